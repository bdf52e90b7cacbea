/**
 * An environment with its credential variables removed. Every subprocess minicode starts (the
 * bash tool, git, verify, native agents) gets `scrubEnv(...)`, so a `GITHUB_TOKEN` in CI never
 * reaches a command the model chose. Which variables are credentials is decided in
 * `lib/scrub/credential-rule.ts`, the same decision the output scrubber masks by.
 */
import { buildRuleTable, createTextRedactor } from '../scrub/secret-redactor.js';
import { credentialSecretsFromEnv, isCredentialVariable } from '../scrub/credential-rule.js';

export {
  credentialSecretsFromEnv,
  credentialVerdict,
  isCredentialName,
  isCredentialVariable,
  type CredentialVerdict,
} from '../scrub/credential-rule.js';

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
    if (!kept && isCredentialVariable(name, value)) continue;
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
export function scrubEnvironment(
  env: NodeJS.ProcessEnv,
  options: ScrubEnvironmentOptions = {},
): Record<string, string> {
  return scrubEnv(env, options.keep ?? []);
}

/**
 * Masks the known credential values of `env` (exact values and their encodings, as the scrub
 * stage does: `[REDACTED:env:NAME]`) and nothing else: for what is sent back to the provider (a
 * tool result holding `cat .env` or `env` output). Format rules are not applied there: a
 * `password = "..."` in a file the model is editing is the model's work, not a leak of ours.
 */
export function credentialValueMasker(env: Readonly<Record<string, string | undefined>>): (text: string) => string {
  const secrets = credentialSecretsFromEnv(env);
  if (secrets.length === 0) return (text) => text;
  return createTextRedactor(buildRuleTable(secrets, []));
}
