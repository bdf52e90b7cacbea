/**
 * Which environment variables hold credentials, and an environment with them removed. Every
 * subprocess minicode starts (the bash tool, git, verify, native agents) gets `scrubEnv(...)`,
 * so a `GITHUB_TOKEN` in CI never reaches a command the model chose (seed automation-ci).
 */

/** Names that are credentials whatever their shape. */
const EXACT = new Set([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITLAB_TOKEN',
  'NPM_TOKEN',
  'NODE_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'OPENROUTER_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AZURE_CLIENT_SECRET',
  'DATABASE_URL',
  'REDIS_URL',
  'SSH_AUTH_SOCK',
  'VAULT_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
  'CI_JOB_TOKEN',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
]);

/**
 * Name segments (split on `_`, `-`, `.`) that mark a credential: `MY_SERVICE_TOKEN`,
 * `DB_PASSWORD`, `STRIPE_SECRET_KEY`, `NPM_CONFIG__AUTH`. Whole segments only, so
 * `TOKENIZERS_PARALLELISM` or `KEYBOARD_LAYOUT` are kept.
 */
const SEGMENTS = new Set([
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'APIKEY',
  'CREDENTIAL',
  'CREDENTIALS',
  'AUTH',
  'COOKIE',
  'PAT',
  'DSN',
]);

/** Whole families that are credentials or point at them (cloud SDKs, registries, agents). */
const CREDENTIAL_PREFIX = /^(?:AWS_|AZURE_|GCLOUD_|CLOUDSDK_AUTH|NPM_CONFIG__AUTH|GH_|GITLAB_|HF_|HUGGING_FACE|DOCKER_AUTH|VAULT_)/i;

/** Variables whose names look secret-ish but hold no secret and that tools need. */
const NOT_CREDENTIALS = new Set(['TOKENIZERS_PARALLELISM', 'KEYTIMEOUT', 'GPG_TTY']);

/** True when `name` looks like an environment variable that holds a credential. */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_CREDENTIALS.has(upper)) return false;
  if (EXACT.has(upper) || CREDENTIAL_PREFIX.test(upper)) return true;
  // Glued spellings such as PGPASSWORD or MYSQLSECRET carry no separator to split on.
  if (/PASSWORD|PASSWD|SECRET/.test(upper)) return true;
  const parts = upper.split(/[_.-]+/).filter(Boolean);
  if (parts.some((p) => SEGMENTS.has(p))) return true;
  // KEY only counts with a qualifier in front (API_KEY, ACCESS_KEY, PRIVATE_KEY, SECRET_KEY,
  // *_KEY_ID): a bare `KEY` segment is too common (`KEYMAP`, `SORT_KEY` in build tools).
  for (let i = 1; i < parts.length; i++) {
    if (parts[i] === 'KEY' || (parts[i] === 'ID' && parts[i - 1] === 'KEY')) {
      const before = parts[i] === 'KEY' ? parts[i - 1] : parts[i - 2];
      if (before === 'API' || before === 'ACCESS' || before === 'PRIVATE' || before === 'SECRET' || before === 'SIGNING' || before === 'ENCRYPTION' || before === 'MASTER' || before === 'SERVICE') return true;
    }
  }
  return false;
}

/**
 * A copy of `env` without credential variables. Names in `keep` survive even when they match
 * (an operator's explicit choice, or an agent keeping its own key): exact names, or prefixes
 * ending in `*` such as `ANTHROPIC_*`. Undefined values are dropped.
 */
export function scrubEnv(env: NodeJS.ProcessEnv, keep: readonly string[] = []): Record<string, string> {
  const exact = new Set(keep.filter((k) => !k.endsWith('*')).map((k) => k.toUpperCase()));
  const prefixes = keep.filter((k) => k.endsWith('*')).map((k) => k.slice(0, -1).toUpperCase());
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    const kept = exact.has(upper) || prefixes.some((p) => upper.startsWith(p));
    if (!kept && isCredentialName(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Options of {@link scrubEnvironment}. */
export interface ScrubEnvironmentOptions {
  /** Credential names (exact) or prefixes ending in `*` the child may keep. */
  keep?: readonly string[];
}

/** {@link scrubEnv} with an options object (the native supervisor's spelling). */
export function scrubEnvironment(env: NodeJS.ProcessEnv, options: ScrubEnvironmentOptions = {}): Record<string, string> {
  return scrubEnv(env, options.keep ?? []);
}

/** Names `scrubEnv` would remove; for reports and tests. */
export function removedCredentialNames(env: NodeJS.ProcessEnv, options: ScrubEnvironmentOptions = {}): string[] {
  const kept = scrubEnvironment(env, options);
  return Object.keys(env).filter((name) => env[name] !== undefined && !(name in kept));
}
