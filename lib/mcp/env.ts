/**
 * The environment of a stdio MCP server: a minimal base taken from minicode's own environment
 * plus exactly what the server's config `env` names. Nothing else is inherited, so minicode's
 * credentials (provider keys, `GITHUB_TOKEN`, ...) reach a server only when its config passes
 * them on purpose (`"env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}`).
 */
import { credentialVerdict, isCredentialName } from '../policy/credentials.js';

/** Variables a server inherits from minicode when set (never a credential; checked below). */
export const BASE_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
];

/** The base environment plus the config's (already expanded) `env`. */
export function serverEnvironment(
  parent: NodeJS.ProcessEnv,
  configured: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASE_ENV_NAMES) {
    const value = parent[name];
    // A value starting with `()` is an exported shell function: never pass it on.
    if (value !== undefined && !value.startsWith('()') && !isCredentialName(name)) out[name] = value;
  }
  return { ...out, ...configured };
}

/** Values of the config `env` and `headers` that are credentials (the rule every output masks by), for masking in output. */
export function configuredSecrets(record: Record<string, string> | undefined): string[] {
  if (!record) return [];
  return Object.entries(record)
    .filter(([name, value]) => credentialVerdict(name, value).mask)
    .map(([, value]) => value);
}
