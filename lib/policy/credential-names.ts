/**
 * The one definition of a credential variable. Two things depend on it and must agree: which
 * variables a subprocess does not inherit (`scrubEnv`, lib/policy/credentials.ts) and whose
 * values the scrub stage masks in every output (`credentialSecretsFromEnv`,
 * lib/scrub/env-secrets.ts). Had they their own lists, a name one of them misses is either
 * masked but handed to the bash tool, or kept from the tool but printed raw when read from a
 * file. No imports: both the policy and the scrubber load it.
 *
 * A variable is a credential when its name says so, or, for a URL-valued name (`*_URL`,
 * `*_URI`), when its value carries userinfo (`scheme://user:pass@host`). Names are compared
 * upper-cased and split into segments on `_`, `-`, `.`, `/`, `:`.
 */

/** Names that are credentials whatever their shape (none of the rules below would catch them). */
const EXACT = new Set(['DATABASE_URL', 'REDIS_URL', 'ACTIONS_ID_TOKEN_REQUEST_URL', 'GOOGLE_APPLICATION_CREDENTIALS']);

/** Names that look secret-ish but hold no secret, and that tools need. */
const NOT_CREDENTIALS = new Set([
  // The working directory and the previous one: `PWD` is no password.
  'PWD',
  'OLDPWD',
  'TOKENIZERS_PARALLELISM',
  'KEYTIMEOUT',
  'GPG_TTY',
  // Where and how the AWS CLI talks, not who it is (the rest of AWS_* is a credential family).
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_DEFAULT_OUTPUT',
  'AWS_PAGER',
]);

/**
 * Substrings that mark a credential even glued to other words (`PGPASSWORD`, `MYSQLSECRET`,
 * `GPG_PASSPHRASE`, `NPM_CONFIG_//REGISTRY.NPMJS.ORG/:_AUTHTOKEN`). A name that points at a
 * credential file (`PASSWD_FILE`, `POSTGRES_PASSWORD_FILE`) counts too: a child without the
 * pointer does not go looking for the file, and masking a path costs nothing.
 */
const GLUED = /PASSWORD|PASSWD|PASSPHRASE|SECRET|AUTHTOKEN|TOKEN$/;

/**
 * Whole segments that mark a credential: `MY_SERVICE_TOKEN`, `DB_PASS`, `SESSION_COOKIE`,
 * `SENTRY_DSN`, `SLACK_WEBHOOK_URL`. Whole segments only, so `TOKENIZERS_PARALLELISM`,
 * `PASSTHROUGH` or `AUTHOR_NAME` are kept.
 */
const SEGMENTS = new Set([
  'TOKEN',
  'TOKENS',
  'PASS',
  'APIKEY',
  'ACCESSKEY',
  'PRIVATEKEY',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'COOKIE',
  'COOKIES',
  'PAT',
  'DSN',
  'SAS',
  'WEBHOOK',
  'CONNSTR',
  'CONNECTIONSTRING',
]);

/** A `*_KEY` (or `*_KEY_ID`) only counts after one of these: a bare `KEY` is too common (`SORT_KEY`, `KEYMAP`). */
const KEY_QUALIFIERS = new Set(['API', 'ACCESS', 'PRIVATE', 'SECRET', 'SIGNING', 'ENCRYPTION', 'MASTER', 'SERVICE', 'SESSION', 'CLIENT', 'ACCOUNT', 'STORAGE', 'LICENSE']);

/** Datastores whose `*_URL` / `*_URI` is a connection string, credentials or not (`MONGODB_URI`, `SHADOW_DATABASE_URL`). */
const DATASTORES = new Set(['DATABASE', 'DB', 'REDIS', 'MONGO', 'MONGODB', 'POSTGRES', 'POSTGRESQL', 'PG', 'MYSQL', 'MARIADB', 'AMQP', 'RABBITMQ', 'BROKER']);

/** Families that are credentials or select one (the AWS SDKs read every `AWS_*` to choose an identity). */
const FAMILY = /^AWS_/;

/** `scheme://userinfo@`: a URL that carries a user name, a password or a token before the host. */
const URL_WITH_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+@/i;

function segmentsOf(upper: string): string[] {
  return upper.split(/[_.\-/:]+/).filter(Boolean);
}

/**
 * True when the NAME alone marks a credential variable (whatever its value). Header and query
 * parameter names (`x-api-key`, `access_token`) can be asked too.
 */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_CREDENTIALS.has(upper)) return false;
  if (EXACT.has(upper) || FAMILY.test(upper) || GLUED.test(upper)) return true;
  const parts = segmentsOf(upper);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (SEGMENTS.has(part)) return true;
    // `MYSQL_PWD`, `DB_PWD`; never the first segment (`PWD` itself is the working directory).
    if (part === 'PWD' && i > 0) return true;
    if (part === 'STRING' && parts[i - 1] === 'CONNECTION') return true;
    if (part === 'KEY' && i > 0 && KEY_QUALIFIERS.has(parts[i - 1]!)) return true;
    if (part === 'ID' && parts[i - 1] === 'KEY' && i > 1 && KEY_QUALIFIERS.has(parts[i - 2]!)) return true;
    if ((part === 'URL' || part === 'URI') && parts.slice(0, i).some((p) => DATASTORES.has(p))) return true;
  }
  return false;
}

/** True when `name` names a URL (`*_URL`, `*_URI`), whose value decides whether it is a credential. */
function isUrlName(name: string): boolean {
  const last = segmentsOf(name.toUpperCase()).at(-1);
  return last === 'URL' || last === 'URI';
}

/**
 * True when the variable `name=value` holds a credential: its name says so
 * ({@link isCredentialName}), or it is a `*_URL` / `*_URI` whose value has userinfo
 * (`https://user:pass@host`, `https://ghp_...@github.com`). Without a value only the name is
 * judged. The one decision behind both the subprocess environment and output masking.
 */
export function isCredentialVariable(name: string, value?: string): boolean {
  if (isCredentialName(name)) return true;
  if (value === undefined || NOT_CREDENTIALS.has(name.toUpperCase())) return false;
  return isUrlName(name) && URL_WITH_USERINFO.test(value.trim());
}
