/**
 * Which environment variables hold credentials. Used to build the environment of every
 * subprocess minicode starts (DESIGN.md §5: credential variables are removed from the
 * environment of every subprocess), and reusable by anything else that must not leak them.
 */

// Name shapes that hold secrets: *_API_KEY, *_TOKEN, *_SECRET, *PASSWORD*, *_CREDENTIALS, ...
const CREDENTIAL_NAME =
  /(?:^|_)(?:API_?KEY|APIKEY|ACCESS_?KEY|SECRET(?:_ACCESS)?(?:_KEY)?|CLIENT_SECRET|TOKEN|AUTH_TOKEN|SESSION_TOKEN|PRIVATE_KEY|KEY|CREDENTIALS?|PASSPHRASE)(?:_|$)|PASSWORD|PASSWD|SECRET|TOKEN/i;
// Whole families that are credentials or point at them.
const CREDENTIAL_PREFIX = /^(?:AWS_|AZURE_|GOOGLE_APPLICATION_CREDENTIALS$|GCLOUD_|CLOUDSDK_AUTH|DATABASE_URL$|REDIS_URL$|NPM_CONFIG__AUTH|NODE_AUTH_TOKEN$|GH_|GITHUB_TOKEN$|GITLAB_|HF_|HUGGING_FACE|DOCKER_AUTH|SSH_AUTH_SOCK$|VAULT_)/i;
// Variables whose names look secret-ish but hold no secret and that tools need.
const NOT_CREDENTIALS = new Set(['TOKENIZERS_PARALLELISM', 'KEYTIMEOUT', 'GPG_TTY']);

/** True when an environment variable's name says it holds (or points at) a credential. */
export function isCredentialName(name: string): boolean {
  if (NOT_CREDENTIALS.has(name.toUpperCase())) return false;
  return CREDENTIAL_NAME.test(name) || CREDENTIAL_PREFIX.test(name);
}

/** Options of {@link scrubEnvironment}. */
export interface ScrubEnvironmentOptions {
  /** Credential names (exact) or prefixes ending in `*` the child may keep, e.g. `ANTHROPIC_*`. */
  keep?: readonly string[];
}

/**
 * A copy of `env` without credential variables, except those `keep` allows (each agent keeps
 * only its own, e.g. Codex `OPENAI_API_KEY` and `CODEX_*`). Undefined values are dropped.
 */
export function scrubEnvironment(env: NodeJS.ProcessEnv, options: ScrubEnvironmentOptions = {}): Record<string, string> {
  const keep = options.keep ?? [];
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

/** Names `scrubEnvironment` would remove; for reports and tests. */
export function removedCredentialNames(env: NodeJS.ProcessEnv, options: ScrubEnvironmentOptions = {}): string[] {
  const kept = scrubEnvironment(env, options);
  return Object.keys(env).filter((name) => env[name] !== undefined && !(name in kept));
}
