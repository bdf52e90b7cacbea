/**
 * The environment a command starts with: the user's less every credential variable (the one
 * credential rule, lib/policy/credentials.ts), or under `inherit: "core"` only the core
 * variables; names in `pass` survive either way (a credential a task needs, named by the user).
 */
import { scrubEnv } from '../policy/credentials.js';
import { CORE_ENV_NAMES, type SandboxSettings } from './settings.js';

/** `env` as the command gets it under `settings` (absent: the user's environment less credentials). */
export function commandEnv(env: NodeJS.ProcessEnv, settings: SandboxSettings | undefined): Record<string, string> {
  const pass = settings?.env.pass ?? [];
  const scrubbed = scrubEnv(env, pass);
  if (!settings || settings.mode === 'off') return scrubbed;
  if (settings.env.inherit === 'all') return scrubbed;
  const keep = new Set([...CORE_ENV_NAMES, ...pass].map((n) => n.toUpperCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(scrubbed))
    if (keep.has(name.toUpperCase()) || name.startsWith('LC_')) out[name] = value;
  return out;
}
