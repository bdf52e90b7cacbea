/**
 * The one definition of a credential. Two things depend on it and must agree: which variables
 * a subprocess does not inherit (`scrubEnv`, credentials.ts; a sandbox's environment too) and
 * whose values are masked in every output (`credentialSecretsFromEnv`, the scrub stage, the
 * artefact writer, the requests sent to a provider). Had they their own lists, a name one of
 * them misses is either masked but handed to the bash tool, or kept from the tool but printed
 * raw when read from a file.
 *
 * A variable is judged by its name AND its value:
 * - a value in a known credential format is one whatever its name: a vendor prefix
 *   (`ghp_`, `sk-ant-`, `AKIA`, `xoxb-`, `npm_`, ...), a URL with a password, a private key,
 *   an `Authorization`-style value; the scrubber's own format rules decide this, so the two
 *   cannot disagree on a format;
 * - a credential name (a secret word: `PASSWORD`, `SECRET`, `TOKEN`, `CREDS`, `AUTH`, a
 *   qualified `*_API_KEY`, ...) with a value that is not a path, a URL without userinfo, a
 *   short word (`dev`, `postgres`), a number or a placeholder;
 * - a weaker name (a bare `*_KEY`: `CUSTOM_KEY` beside `SORT_KEY`) only with a value that looks
 *   random: 16+ characters, letters and digits, no spaces, high entropy.
 * Never a path (`AWS_CA_BUNDLE=/etc/ssl/certs/...`), never a short word (`AWS_PROFILE=dev`):
 * masking those replaces ordinary text everywhere, and removing them breaks the tools that read
 * them. One exception keeps a capability from children without masking anything: a credential
 * name whose value is a path (`GOOGLE_APPLICATION_CREDENTIALS`, `SSH_AUTH_SOCK`,
 * `POSTGRES_PASSWORD_FILE`) points at a key file or an agent socket, so a child does not
 * inherit the pointer; the path itself is no secret and is printed as it is.
 */
import { entropy } from './context-rules.js';
import { DEFAULT_RULES } from './secret-rules.js';
import { createTextRedactor } from './secret-redactor.js';
import type { NamedSecret } from './env-secrets.js';

/** What the rule says about one variable. */
export interface CredentialVerdict {
  /** A subprocess does not inherit it. */
  remove: boolean;
  /** Its value is masked wherever it appears in output. */
  mask: boolean;
}

const NONE: CredentialVerdict = { remove: false, mask: false };
const SECRET: CredentialVerdict = { remove: true, mask: true };
const POINTER: CredentialVerdict = { remove: true, mask: false };

/** Values shorter than this are never credentials: too many false hits (`true`, `8080`, `dev`). Default 8. */
export const MIN_CREDENTIAL_LENGTH = 8;

/** Names that look secret-ish but hold no secret, and that tools need. */
const NOT_CREDENTIALS = new Set([
  // The working directory and the previous one: `PWD` is no password.
  'PWD',
  'OLDPWD',
  'TOKENIZERS_PARALLELISM',
  'KEYTIMEOUT',
  'GPG_TTY',
]);

/**
 * Substrings that mark a credential even glued to other words (`PGPASSWORD`, `MYSQLSECRET`,
 * `GPG_PASSPHRASE`, `NPM_CONFIG_//REGISTRY.NPMJS.ORG/:_AUTHTOKEN`, `APITOKEN`).
 */
const GLUED = /PASSWORD|PASSWD|PASSPHRASE|SECRET|AUTHTOKEN|TOKEN$/;

/**
 * Whole segments that mark a credential: `MY_SERVICE_TOKEN`, `DB_PASS`, `SESSION_COOKIE`,
 * `SENTRY_DSN`, `SLACK_WEBHOOK_URL`, `INTERNAL_CREDS`. Whole segments only, so
 * `TOKENIZERS_PARALLELISM`, `PASSTHROUGH` or `AUTHOR_NAME` are not.
 */
const SEGMENTS = new Set([
  'TOKEN',
  'TOKENS',
  'PASS',
  'APIKEY',
  'ACCESSKEY',
  'PRIVATEKEY',
  'CRED',
  'CREDS',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'AUTHORIZATION',
  'BEARER',
  'JWT',
  'COOKIE',
  'COOKIES',
  'PAT',
  'DSN',
  'SAS',
  'WEBHOOK',
  'CONNSTR',
  'CONNECTIONSTRING',
]);

/** A `*_KEY` (or `*_KEY_ID`) after one of these is a credential name; a bare `KEY` is a weak one (`SORT_KEY`, `CUSTOM_KEY`). */
const KEY_QUALIFIERS = new Set([
  'API',
  'ACCESS',
  'PRIVATE',
  'SECRET',
  'SIGNING',
  'ENCRYPTION',
  'MASTER',
  'SERVICE',
  'SESSION',
  'CLIENT',
  'ACCOUNT',
  'STORAGE',
  'LICENSE',
]);

function segmentsOf(upper: string): string[] {
  return upper.split(/[_.\-/:]+/).filter(Boolean);
}

/** How much a name says: `strong` (a secret word), `weak` (a bare `KEY`), or nothing. */
function nameStrength(name: string): 'strong' | 'weak' | 'none' {
  const upper = name.toUpperCase();
  if (NOT_CREDENTIALS.has(upper)) return 'none';
  if (GLUED.test(upper)) return 'strong';
  const parts = segmentsOf(upper);
  let weak = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (SEGMENTS.has(part)) return 'strong';
    // `MYSQL_PWD`, `DB_PWD`; never the first segment (`PWD` itself is the working directory).
    if (part === 'PWD' && i > 0) return 'strong';
    if (part === 'STRING' && parts[i - 1] === 'CONNECTION') return 'strong';
    if (part === 'KEY' || part === 'KEYS') {
      if (i > 0 && KEY_QUALIFIERS.has(parts[i - 1]!)) return 'strong';
      if (i > 0) weak = true;
    }
    if (part === 'ID' && parts[i - 1] === 'KEY' && i > 1 && KEY_QUALIFIERS.has(parts[i - 2]!)) return 'strong';
  }
  return weak ? 'weak' : 'none';
}

/**
 * True when the NAME alone marks a credential (a secret word in it), whatever the value. For
 * names without a value: header and query parameter names (`x-api-key`, `access_token`) of a
 * recorded cassette, the names of a config's `env`.
 */
export function isCredentialName(name: string): boolean {
  return nameStrength(name) === 'strong';
}

/** Values that are obviously not secrets whatever the name: booleans, numbers, placeholders. */
const TRIVIAL =
  /^(?:true|false|yes|no|on|off|null|nil|none|undefined|\d+(?:\.\d+)*|[*x.#_-]+|changeme|placeholder|example|redacted)$/i;
/** A reference to a secret rather than one (`$TOKEN`, `${{ secrets.X }}`, `<token>`, `{{pass}}`), or a masked one. */
const REFERENCE = /^(?:\$|\{\{|<[^>]*>$|%[sd]|\[redacted)/i;
/** A short word: letters only (a dash or dot between them), under 12 characters: `dev`, `postgres`, `prod-admin`. */
const SHORT_WORD = /^[A-Za-z]+(?:[-.][A-Za-z]+)*$/;
/** `scheme://` */
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A file system path: absolute, home- or dot-relative, or a drive letter, made of path characters. */
function isPath(value: string): boolean {
  if (!/^(?:~|\.{1,2})?\/|^[A-Za-z]:[\\/]/.test(value)) return false;
  // A base64 secret may start with `/`; a path has no `+`, `=` or line break and no random 24+ character segment.
  if (/[+=\n\t]/.test(value)) return false;
  return !value.split(/[\\/]/).some((segment) => segment.length >= 24 && looksRandom(segment));
}

/** A random-looking token: 16+ characters without spaces, letters and digits, at least 3 bits of entropy a character. */
function looksRandom(value: string): boolean {
  return value.length >= 16 && !/\s/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value) && entropy(value) >= 3;
}

let formatRedactor: ((text: string) => string) | undefined;
/** True when the scrubber's format rules (vendor prefixes, URL passwords, keys, JWTs) find a secret in `value`. */
function hasKnownFormat(value: string): boolean {
  formatRedactor ??= createTextRedactor(DEFAULT_RULES);
  return formatRedactor(value) !== value;
}

/** The userinfo of a URL value (`user:pass` of `scheme://user:pass@host`), or undefined. */
function userinfoOf(value: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s]+)@/i.exec(value);
  return m?.[1];
}

/**
 * The rule: whether the variable `name=value` is kept from subprocesses and masked in output.
 * Without a value only the name is judged (a credential name is removed and masked).
 */
export function credentialVerdict(name: string, value?: string): CredentialVerdict {
  const strength = nameStrength(name);
  if (NOT_CREDENTIALS.has(name.toUpperCase())) return NONE;
  if (value === undefined) return strength === 'strong' ? SECRET : NONE;
  const v = value.trim();
  if (v.length < MIN_CREDENTIAL_LENGTH || TRIVIAL.test(v) || REFERENCE.test(v)) return NONE;
  if (URL_START.test(v)) {
    const userinfo = userinfoOf(v);
    // `user:password@` or a token as the user (`https://ghp_...@github.com`); never `git@`.
    if (userinfo !== undefined && (/:[^:]+$/.test(userinfo) || looksRandom(userinfo) || hasKnownFormat(userinfo)))
      return SECRET;
    if (hasKnownFormat(v)) return SECRET;
    // A URL without userinfo is an address, unless the name says the URL is the secret (a webhook, a DSN).
    return strength === 'strong' ? SECRET : NONE;
  }
  if (hasKnownFormat(v)) return SECRET;
  if (isPath(v)) return strength === 'strong' ? POINTER : NONE;
  if (v.length < 12 && SHORT_WORD.test(v)) return NONE;
  if (strength === 'strong') return SECRET;
  if (strength === 'weak' && looksRandom(v)) return SECRET;
  return NONE;
}

/**
 * True when the variable `name=value` is kept from subprocesses ({@link credentialVerdict}).
 * Without a value only the name is judged.
 */
export function isCredentialVariable(name: string, value?: string): boolean {
  return credentialVerdict(name, value).remove;
}

/**
 * The credential values of an environment, to mask exactly in output: every variable whose
 * verdict is `mask` (the same rule that keeps it from subprocesses).
 */
export function credentialSecretsFromEnv(env: Readonly<Record<string, string | undefined>>): NamedSecret[] {
  const out: NamedSecret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_CREDENTIAL_LENGTH) continue;
    if (credentialVerdict(name, value).mask) out.push({ name, value });
  }
  return out;
}
