/**
 * Key/value assignments whose key names a secret: `password = "..."`, `"client_secret": "..."`,
 * `DB_PASS: ...`, `secret("...")`, `<password>...</password>`, `apiKey := "..."`, `api_key => '...'`,
 * and the YAML form with the value one line down (`password:\n  secure: ...`). The design follows
 * detect-secrets' KeywordDetector (Apache-2.0, Yelp) and gitleaks `generic-api-key` (MIT):
 * a keyword anywhere in an identifier, a separator, then a value that is not a placeholder.
 *
 * Only the value is redacted; the key and separator stay visible so a reader still sees what
 * was there. The keyword is the trigger, so nothing is held until a keyword appears, and then
 * only up to the end of its value (bounded: 40-char key suffix, 256-char value).
 */
import { LEFT_CONTEXT, NONE, PENDING, isSpace, type Decision, type SecretRule } from './rule-types.js';
import { isPlaceholder } from './placeholders.js';

interface Keyword {
  word: string;
  label: string;
  /** Short keywords (`pass`, `pwd`, `auth`) must start a word and end the key (not `bypass`, `passport`). */
  strict?: boolean;
  /** Vendor names: the value must look like a random token (20+ chars with a digit). */
  vendor?: boolean;
  /**
   * Only as the last part of a longer key (`DB_PWD`, `MYSQL_PWD`, `dbPwd`): the key `PWD` on its
   * own is the shell's working directory (`PWD=/home/me` in `env` output), not a password.
   */
  suffixOnly?: boolean;
}

const KEYWORDS: readonly Keyword[] = [
  { word: 'password', label: 'password' },
  { word: 'passwd', label: 'password' },
  { word: 'passphrase', label: 'password' },
  { word: 'pass', label: 'password', strict: true },
  { word: 'pwd', label: 'password', strict: true, suffixOnly: true },
  { word: 'secret', label: 'secret' },
  { word: 'token', label: 'token' },
  { word: 'api_key', label: 'api-key' },
  { word: 'api-key', label: 'api-key' },
  { word: 'apikey', label: 'api-key' },
  { word: 'access_key', label: 'secret' },
  { word: 'accesskey', label: 'secret' },
  { word: 'access-key', label: 'secret' },
  { word: 'private_key', label: 'secret' },
  { word: 'privatekey', label: 'secret' },
  { word: 'credential', label: 'secret' },
  { word: 'auth', label: 'token', strict: true },
  // Vendor names whose config keys carry tokens without a secret-like word (SONAR_LOGIN, ...).
  { word: 'sonar', label: 'sonar-token', vendor: true },
  { word: 'sourcegraph', label: 'sourcegraph-token', vendor: true },
  { word: 'heroku', label: 'heroku-api-key', vendor: true },
  { word: 'twilio', label: 'twilio-token', vendor: true },
  { word: 'mailgun', label: 'mailgun-api-key', vendor: true },
  { word: 'datadog', label: 'datadog-api-key', vendor: true },
  { word: 'okta', label: 'okta-token', vendor: true },
];

/** Key segments that say the value is not the secret itself but a name, a place or a size. */
const NOT_A_SECRET_SEGMENT = new Set([
  'name',
  'names',
  'id',
  'ids',
  'file',
  'files',
  'path',
  'paths',
  'url',
  'urls',
  'uri',
  'type',
  'types',
  'len',
  'length',
  'count',
  'size',
  'env',
  'var',
  'vars',
  'variable',
  'ref',
  'field',
  'label',
  'prefix',
  'header',
  'param',
  'expires',
  'expiry',
  'expiration',
  'ttl',
  'endpoint',
  'location',
  'dir',
  'mode',
  'format',
  'policy',
  'source',
  'class',
  'method',
  'provider',
  'service',
  'required',
  'enabled',
  'limit',
  'timeout',
  'hint',
  'placeholder',
  'regex',
  'pattern',
  'usage',
  'budget',
  'input',
  'output',
  'used',
  'max',
  'min',
  'index',
  'store',
  'manager',
  'version',
  'key_id',
  'kind',
  'set',
  'list',
  'min_length',
  'rotation',
  'validator',
  'field',
  'column',
  'policy',
  'arn',
  'query',
]);

/** Lower-case continuations allowed right after a keyword (`passwords`, `secrete`, `tokenValue`). */
const LOWER_SUFFIX = /^(?:s|e|es|key|keys|value|val|str|string|text)(?![a-z])/;

/**
 * {@link LOWER_SUFFIX} at `at` of `s`, where a key suffix starts: the same answer as on the
 * suffix sliced out, because the character after a suffix is never a letter (letters are key
 * characters) and so passes `(?![a-z])` as the end of the slice does.
 */
const LOWER_SUFFIX_AT = new RegExp(LOWER_SUFFIX.source.slice(1), 'y');
function lowerSuffixAt(s: string, at: number): boolean {
  LOWER_SUFFIX_AT.lastIndex = at;
  return LOWER_SUFFIX_AT.test(s);
}

function isKeyChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5b ||
    c === 0x5d
  );
}
function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isLower(c: number): boolean {
  return c >= 0x61 && c <= 0x7a;
}
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}
/** Characters that end an unquoted value. */
function endsValue(c: number): boolean {
  return isSpace(c) || c === 0x22 || c === 0x27 || c === 0x60 || c === 0x2c || c === 0x3b || c === 0x26 || c === 0x3c;
}

function segments(suffix: string): string[] {
  return suffix
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.\-[\]]+/)
    .filter(Boolean);
}

const MAX_SUFFIX = 40;
const MAX_VALUE = 256;

/** Whether the value is worth redacting under this keyword. */
function valueIsSecret(value: string, quoted: boolean, kw: Keyword): boolean {
  if (isPlaceholder(value) || value.includes('://')) return false;
  if (kw.vendor) return value.length >= 20 && /^[A-Za-z0-9_-]+$/.test(value) && /\d/.test(value);
  if (value.length < (quoted ? 4 : 6)) return false;
  if (/^\d+(?:\.\d+)?$/.test(value)) return false; // counts, sizes, ports
  if (!quoted) {
    if (/^[A-Za-z_]+$/.test(value) && value.length < 20) return false; // a variable name
    if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false; // member access
    if (/^[A-Za-z_$][\w$]*(?:\.[\w$]+)*[[(]/.test(value)) return false; // a call or an index: os.environ[...]
  }
  return true;
}

function labelFor(s: string, p: number, keyEnd: number, kw: Keyword): string {
  const key = s.slice(Math.max(0, p - 24), keyEnd).toLowerCase();
  if (!kw.vendor && key.includes('aws') && (kw.label === 'secret' || kw.label === 'token'))
    return 'aws-secret-access-key';
  return kw.label;
}

function decideKeyword(kw: Keyword, s: string, p: number, ended: boolean): Decision {
  const n = s.length;
  if (kw.strict && p > 0) {
    const before = s.charCodeAt(p - 1);
    // `db_pass`, `DB_PWD`, `dbPass` (camel case) but not `bypass`.
    if (isLetter(before) && !(isLower(before) && s.charCodeAt(p) >= 0x41 && s.charCodeAt(p) <= 0x5a)) return NONE;
  }
  if (kw.suffixOnly) {
    const before = p > 0 ? s.charCodeAt(p - 1) : -1;
    const separated =
      (before === 0x5f || before === 0x2d || before === 0x2e) &&
      p > 1 &&
      isKeyChar(s.charCodeAt(p - 2)) &&
      !isSpace(s.charCodeAt(p - 2));
    const camel = isLower(before) && s.charCodeAt(p) >= 0x41 && s.charCodeAt(p) <= 0x5a;
    if (!separated && !camel) return NONE;
  }
  let q = p + kw.word.length;
  const suffixStart = q;
  while (q < n && q - suffixStart <= MAX_SUFFIX && isKeyChar(s.charCodeAt(q))) q++;
  if (q === n && !ended) return PENDING;
  if (q - suffixStart > MAX_SUFFIX) return NONE;
  // The test below on the suffix, first, without slicing it: a keyword inside a longer word
  // (`passes`, `secretary`, `tokenizer`) is most candidates, and ends here.
  if (q > suffixStart && isLower(s.charCodeAt(suffixStart)) && (kw.strict || !lowerSuffixAt(s, suffixStart)))
    return NONE;
  const suffix = s.slice(suffixStart, q);
  if (suffix.length > 0) {
    if (isLower(suffix.charCodeAt(0)) && (kw.strict || !LOWER_SUFFIX.test(suffix))) return NONE;
    if (kw.strict && /^[0-9]/.test(suffix)) return NONE;
    if (!kw.vendor && segments(suffix).some((seg) => NOT_A_SECRET_SEGMENT.has(seg))) return NONE;
  }
  const keyEnd = q;
  // Optional closing quote of a quoted key: "password": ...
  if (q < n && (s.charCodeAt(q) === 0x22 || s.charCodeAt(q) === 0x27 || s.charCodeAt(q) === 0x60)) q++;
  while (q < n && q - keyEnd < 12 && isBlank(s.charCodeAt(q))) q++;
  if (q + 2 >= n && !ended) return PENDING;
  const c = s.charCodeAt(q);
  const c2 = q + 1 < n ? s.charCodeAt(q + 1) : 0;
  let xml = false;
  let quotedOnly = false;
  if (c === 0x3a) {
    if (c2 === 0x3a) return NONE; // C++ scope `secret::x`
    q += c2 === 0x3d ? 2 : 1; // `:` or `:=`
  } else if (c === 0x3d) {
    q += c2 === 0x3d || c2 === 0x3e ? (s.charCodeAt(q + 2) === 0x3d ? 3 : 2) : 1; // = == === =>
  } else if (c === 0x21 && c2 === 0x3d) {
    q += s.charCodeAt(q + 2) === 0x3d ? 3 : 2;
  } else if (c === 0x28 && q === keyEnd) {
    q += 1; // secret("...")
  } else if (c === 0x3e && q === keyEnd && p > 0 && s.charCodeAt(p - 1) === 0x3c) {
    q += 1; // <password>...</password>
    xml = true;
  } else if (q > keyEnd && p >= 2 && s.charCodeAt(p - 1) === 0x2d && s.charCodeAt(p - 2) === 0x2d) {
    // a command-line flag with its value after a space: `--password hunter2`
  } else if (c === 0x22 || c === 0x27) {
    quotedOnly = true; // `secret "value";` (detect-secrets: followed by quotes and semicolon)
  } else {
    return NONE;
  }
  while (q < n && q - keyEnd < 24 && isBlank(s.charCodeAt(q))) q++;
  if (q >= n) return ended ? NONE : PENDING;
  // YAML: the value one line down, under a nested key (`password:\n  secure: value`).
  if (s.charCodeAt(q) === 0x0a && c === 0x3a && !kw.vendor) {
    const m = /\n[ \t]{1,16}[A-Za-z_][\w-]{0,23}:[ \t]{1,8}(?=\S)/y;
    m.lastIndex = q;
    if (!m.test(s)) {
      if (!ended && n - q < 52) return PENDING;
      return NONE;
    }
    q = m.lastIndex;
  }
  // String prefixes: C# verbatim `@"..."`, Python `r"..."`/`b"..."`/`f"..."`.
  if (!xml && q + 1 < n && /[@rbfuRBFU]/.test(s[q] as string) && /["'`]/.test(s[q + 1] as string)) q++;
  const open = s.charCodeAt(q);
  const quoted = !xml && (open === 0x22 || open === 0x27 || open === 0x60);
  if (quotedOnly && !quoted) return NONE;
  const valueStart = quoted ? q + 1 : q;
  let e = valueStart;
  const lim = valueStart + MAX_VALUE;
  if (quoted) {
    while (e < n && e < lim) {
      const ch = s.charCodeAt(e);
      if (ch === open) break;
      if (ch === 0x0a) return NONE; // unterminated on this line: not an assignment we understand
      e += ch === 0x5c ? 2 : 1; // backslash escape
    }
    if (e >= n) return ended ? NONE : PENDING;
    if (e >= lim) return NONE;
  } else {
    while (
      e < n &&
      e < lim &&
      !(xml ? s.charCodeAt(e) === 0x3c || s.charCodeAt(e) === 0x0a : endsValue(s.charCodeAt(e)))
    )
      e++;
    if (e === n && !ended && e < lim) return PENDING;
    // A trailing `)` closes a call around the assignment: `f(password=x)`.
    while (e > valueStart && s.charCodeAt(e - 1) === 0x29 && !s.slice(valueStart, e - 1).includes('(')) e--;
  }
  const value = s.slice(valueStart, e);
  if (!valueIsSecret(value, quoted, kw)) return NONE;
  if (quotedOnly) {
    if (e + 1 >= n && !ended) return PENDING;
    if (s.charCodeAt(e + 1) !== 0x3b) return NONE;
  }
  const label = labelFor(s, Math.max(p, 0), keyEnd, kw);
  if (!quoted && e >= lim) {
    // Fail closed: a value longer than the window is dropped to its end.
    return {
      kind: 'match',
      redactStart: valueStart,
      redactEnd: e,
      label,
      suppress: { kind: 'run', test: (ch: number) => !endsValue(ch) },
    };
  }
  return { kind: 'match', redactStart: valueStart, redactEnd: e, label };
}

/** One rule per keyword (they share the redactor's dispatch by first two characters). */
export const KEYWORD_RULES: readonly SecretRule[] = KEYWORDS.map((kw) => ({
  id: `keyword-${kw.label}`,
  triggers: [kw.word],
  ignoreCase: true,
  // Vendor names must start the key (`SONAR_LOGIN`), so `the` is not a candidate for `heroku`.
  boundary: kw.vendor === true,
  decide: (s: string, p: number, ended: boolean) => decideKeyword(kw, s, p, ended),
}));

// The left look of this rule (labelFor, strict) stays within LEFT_CONTEXT characters.
void LEFT_CONTEXT;
