/**
 * Detectors that no vendor prefix gives: the surrounding text marks the secret.
 * - private-key PEM blocks (BEGIN ... END, JSON-escaped too, or cut without END): one marker,
 *   then the block is dropped as it streams, never buffered (RFC 7468; gitleaks `private-key`);
 * - passwords in URLs `scheme://user:pass@host` (RFC 3986 §3.2.1 userinfo), and a token used
 *   as the user with `x-oauth-basic` (GitHub docs "Git automation with OAuth tokens");
 * - `curl -u user:pass` / `--user` (curl manual, `-u, --user <user:password>`);
 * - `Authorization:` headers and bare `Bearer <token>` (RFC 7235 / RFC 6750);
 * - Azure storage `AccountKey=` / `SharedAccessKey=` in connection strings (Azure Storage docs);
 * - Bundler host credentials `BUNDLE_<HOST>__<TLD>=user:pass` (Bundler docs "bundle config").
 * Key/value assignments with secret-like names live in `keyword-rule.ts`.
 */
import { tokenRule } from './token-rule.js';
import { NONE, PENDING, isSpace, type Decision, type SecretRule } from './rule-types.js';
import { isPlaceholder } from './placeholders.js';

/** END line of a private-key block, plain or inside a JSON string; dashes may be short. */
const PEM_END = /-{3,5}END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-{2,5}/g;

const privateKey: SecretRule = {
  ...tokenRule({
    id: 'private-key',
    triggers: ['-----BEGIN '],
    boundary: false,
    pattern: '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----',
    window: 76,
    alphabet: 'A-Z0-9 \\-',
  }),
};
const pemDecide = privateKey.decide;
privateKey.decide = (s, p, ended) => {
  const d = pemDecide(s, p, ended);
  return d.kind === 'match' ? { ...d, suppress: { kind: 'until', end: PEM_END } } : d;
};

/** Characters that end a URL authority or a shell word. */
function endsAuthority(c: number): boolean {
  return (
    isSpace(c) ||
    c === 0x2f ||
    c === 0x3f ||
    c === 0x23 ||
    c === 0x22 ||
    c === 0x27 ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x60
  );
}

/** `://user:pass@`: redact the password (or a token used as the user with x-oauth-basic). */
const urlUserinfo: SecretRule = {
  id: 'url-password',
  triggers: ['://'],
  decide(s: string, p: number, ended: boolean): Decision {
    const from = p + 3;
    const lim = Math.min(s.length, from + 384);
    let colon = -1;
    let at = -1;
    let q = from;
    for (; q < lim; q++) {
      const c = s.charCodeAt(q);
      if (endsAuthority(c)) break;
      if (c === 0x40)
        at = q; // the last '@' ends the userinfo: passwords may contain '@'
      else if (c === 0x3a && colon < 0 && at < 0) colon = q;
    }
    // Undecided until the authority has visibly ended (or the window/input has).
    if (q === s.length && !ended && q < from + 384) return PENDING;
    if (at < 0 || colon < 0 || colon > at) return NONE;
    const user = s.slice(from, colon);
    const password = s.slice(colon + 1, at);
    if (password === 'x-oauth-basic' || password === 'x-oauth-token') {
      if (user.length < 16 || isPlaceholder(user)) return NONE;
      return { kind: 'match', redactStart: from, redactEnd: colon, label: 'url-token' };
    }
    if (password.length === 0 || isPlaceholder(password) || isPlaceholder(user)) return NONE;
    return { kind: 'match', redactStart: colon + 1, redactEnd: at, label: 'url-password' };
  },
};

/** `curl -u user:pass`, `--user "user:pass"`, `--user=user:pass`. */
const curlUser: SecretRule = {
  id: 'cli-basic-auth',
  triggers: ['-u', '--user'],
  decide(s: string, p: number, ended: boolean): Decision {
    let q = p + (s.startsWith('--user', p) ? 6 : 2);
    const lim = Math.min(s.length, q + 400);
    const sep = q;
    while (q < lim && (s.charCodeAt(q) === 0x20 || s.charCodeAt(q) === 0x09 || (q === sep && s.charCodeAt(q) === 0x3d)))
      q++;
    if (q === sep) return q < s.length || ended ? NONE : PENDING;
    if (q === lim) return ended || lim < s.length ? NONE : PENDING;
    const quote = s.charCodeAt(q);
    const quoted = quote === 0x22 || quote === 0x27;
    const start = quoted ? q + 1 : q;
    let colon = -1;
    let e = start;
    for (; e < lim; e++) {
      const c = s.charCodeAt(e);
      if (quoted ? c === quote : isSpace(c)) break;
      if (c === 0x0a) return NONE;
      if (c === 0x3a && colon < 0) colon = e;
    }
    if (e === lim && !ended && lim === s.length) return PENDING;
    if (colon < 0 || (quoted && e === lim)) return NONE;
    const user = s.slice(start, colon);
    const password = s.slice(colon + 1, e);
    if (
      password.length === 0 ||
      isPlaceholder(password) ||
      (user.length > 0 && isPlaceholder(user)) ||
      user.startsWith('-')
    )
      return NONE;
    return { kind: 'match', redactStart: colon + 1, redactEnd: e, label: 'basic-auth-password' };
  },
};

/**
 * A quoted literal compared with a secret-named variable: `if ("hunter2" == my_password)`
 * (detect-secrets KeywordDetector, "followed by equal signs, reversed"). Triggered by the quote,
 * decided as soon as what follows the closing quote is not a comparison.
 */
const COMPARED_NAME = /[ \t]{0,4}[!=]==?[ \t]{0,4}[\w.$]{0,40}?(pass(?:word|wd)?|pwd|secret|token|api_?key)/iy;
const quotedComparison: SecretRule = {
  id: 'compared-secret',
  // Only a literal opening a condition: `("...`, `( "...` (not every string of JSON and code).
  triggers: ['("', "('", '( "', "( '", 'if "', "if '"],
  decide(s: string, p: number, ended: boolean): Decision {
    while (s.charCodeAt(p) !== 0x22 && s.charCodeAt(p) !== 0x27) p++;
    const quote = s.charCodeAt(p);
    const n = s.length;
    const lim = Math.min(n, p + 130);
    let e = p + 1;
    while (e < lim && s.charCodeAt(e) !== quote && s.charCodeAt(e) !== 0x0a) e++;
    if (e === n) return ended || e >= p + 130 ? NONE : PENDING;
    if (e === lim || s.charCodeAt(e) !== quote || e - p - 1 < 6) return NONE;
    // Cheap early exit: the next non-blank character must start a comparison.
    let k = e + 1;
    while (k < n && k - e < 6 && isBlank(s.charCodeAt(k))) k++;
    if (k >= n) return ended ? NONE : PENDING;
    const c = s.charCodeAt(k);
    if (c !== 0x3d && c !== 0x21) return NONE;
    // The compared name may still be arriving: decided once a character outside the
    // comparison's alphabet is seen, or its 64-char window has passed.
    if (!ended && n < e + 65 && !/[^\w.$ \t=!]/.test(s.slice(e + 1))) return PENDING;
    COMPARED_NAME.lastIndex = e + 1;
    const m = COMPARED_NAME.exec(s);
    if (m === null) return NONE;
    const value = s.slice(p + 1, e);
    if (isPlaceholder(value)) return NONE;
    const word = (m[1] ?? '').toLowerCase();
    const label = word.startsWith('p') ? 'password' : word === 'token' ? 'token' : 'secret';
    return { kind: 'match', redactStart: p + 1, redactEnd: e, label };
  },
};

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

const CRED = `A-Za-z0-9._~+/=:\\-`;

/** Shannon entropy in bits per character (the one measure of randomness the scrubber and the credential rule share). */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const f = n / text.length;
    h -= f * Math.log2(f);
  }
  return h;
}

export const CONTEXT_RULES: readonly SecretRule[] = [
  privateKey,
  // dotenv line `NAME=<32+ random base64>` whose name says nothing: only a high-entropy,
  // mixed-case value with digits is taken (detect-secrets `Base64HighEntropyString`, limit 4.5
  // there on whole strings; 4.2 here on 32-200 chars).
  tokenRule({
    id: 'high-entropy-secret',
    triggers: ['='],
    boundary: false,
    next: 'A-Za-z0-9+/',
    before: /(?:^|\n)(?:export )?[A-Za-z_][A-Za-z0-9_]{0,40}$/,
    pattern: '(?<keep>=)[A-Za-z0-9+/]{32,200}={0,2}(?![A-Za-z0-9+/=_.-])',
    window: 205,
    check: (m) => /[A-Z]/.test(m) && /[a-z]/.test(m) && /\d/.test(m) && entropy(m.slice(1)) >= 4.2,
  }),
  quotedComparison,
  urlUserinfo,
  { ...curlUser, boundary: true },
  // `Authorization: Bearer x`, `authorization: "token x"`, `Authorization: Basic x`.
  tokenRule({
    id: 'authorization-header',
    label: 'authorization',
    triggers: ['authorization'],
    ignoreCase: true,
    boundary: false,
    pattern: `(?<keep>authorization["']?[ \\t]{0,4}[:=][ \\t]{0,4}["']?(?:(?:bearer|basic|token|digest|bot|apikey|sso-key|negotiate)[ \\t]{1,4})?)(?![$<{%])[${CRED}]{8}`,
    flags: 'i',
    window: 64,
    tail: CRED,
    spaceEnds: false,
  }),
  // A bare `Bearer <token>` (logs, curl traces) with a token-looking credential of 16+ chars.
  tokenRule({
    id: 'bearer-token',
    label: 'authorization',
    triggers: ['bearer '],
    ignoreCase: true,
    pattern: `(?<keep>bearer[ \\t]{1,4})(?![$<{%])[${CRED}]{16}`,
    flags: 'i',
    window: 28,
    tail: CRED,
    spaceEnds: false,
    check: (m) => /\d/.test(m) && /[A-Za-z]/.test(m.slice(7)),
  }),
  tokenRule({
    id: 'azure-storage-account-key',
    triggers: ['AccountKey=', 'SharedAccessKey='],
    boundary: false,
    pattern: '(?<keep>(?:Account|SharedAccess)Key=)[A-Za-z0-9+/]{40}',
    window: 57,
    tail: 'A-Za-z0-9+/=',
  }),
  tokenRule({
    id: 'env-credential',
    triggers: ['BUNDLE_'],
    pattern:
      '(?<keep>BUNDLE_[A-Z0-9_]{1,60}__[A-Z0-9_]{1,20}["\']?[ \\t]{0,4}[:=][ \\t]{0,4}["\']?)[^\\s"\'$<{][^\\s"\']{3}',
    window: 120,
    tail: '^\\s"\'',
    spaceEnds: false,
  }),
];
