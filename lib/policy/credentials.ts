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

/** True when `name` looks like an environment variable that holds a credential. */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (EXACT.has(upper)) return true;
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
 * (an operator's explicit choice, e.g. a verify command that needs `NPM_TOKEN`).
 */
export function scrubEnv(env: NodeJS.ProcessEnv, keep: string[] = []): NodeJS.ProcessEnv {
  const kept = new Set(keep.map((k) => k.toUpperCase()));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isCredentialName(name) && !kept.has(name.toUpperCase())) continue;
    out[name] = value;
  }
  return out;
}
