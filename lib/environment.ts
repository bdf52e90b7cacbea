/**
 * The environment variables a person sets for minicode, as `minicode --help` and docs/cli.md
 * list them. The provider variables come from the provider conventions
 * (`lib/agent/provider-select.ts`), so the help names the variables the resolution reads.
 */
import { PROVIDER_CONVENTIONS } from './agent/provider-select.js';

/** One variable (or a group read together) and what it does. */
export interface EnvironmentVariable {
  name: string;
  meaning: string;
}

/** The variables minicode reads besides the provider ones, in the order the help lists them. */
const OWN_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'OPENROUTER_API_KEY', meaning: 'API key sent to an https://openrouter.ai --base-url' },
  {
    name: 'MINICODE_PROVIDER',
    meaning: 'the provider when --provider is not given (then the config, --base-url, the model family, the keys set)',
  },
  { name: 'MINICODE_MODEL', meaning: 'the model when --model is not given' },
  {
    name: 'MINICODE_HOME',
    meaning:
      'where minicode keeps its files: config.json, store/, history.jsonl, commands/, skills/, agents/ (default ~/.config/minicode for the config, ~/.local/share/minicode for the store)',
  },
  { name: 'XDG_DATA_HOME', meaning: 'the store is $XDG_DATA_HOME/minicode/store when MINICODE_HOME is not set' },
  { name: 'MINICODE_TIMEOUT_MS', meaning: 'run deadline when --timeout is not given' },
  { name: 'MINICODE_CONTEXT_WINDOW', meaning: "the model's context window in tokens, when minicode does not know it" },
  {
    name: 'MINICODE_RETRY_BACKOFF_MS',
    meaning: 'the unit of the retry backoff (default 1000: waits up to 1, 2, 4 units)',
  },
  { name: 'MINICODE_CASSETTE', meaning: 'the cassette of --provider replay when --cassette is not given' },
  { name: 'MINICODE_DEBUG', meaning: 'set (not 0): errors minicode drops on purpose are written to stderr' },
  { name: 'NO_COLOR, FORCE_COLOR', meaning: 'turn colour off / on' },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    meaning: 'send OpenTelemetry spans of exec, chat and batch there (docs/tracing.md)',
  },
];

/** Every variable the help lists: each provider's key and base URL, then minicode's own. */
export function environmentVariables(): EnvironmentVariable[] {
  const byKey = new Map<string, { formats: string[]; base: string; defaultBase: string }>();
  for (const [format, c] of Object.entries(PROVIDER_CONVENTIONS)) {
    const name = c.keyVars.length > 0 ? c.keyVars.join(', ') : c.baseVar;
    const seen = byKey.get(name);
    if (seen) seen.formats.push(format);
    else byKey.set(name, { formats: [format], base: c.baseVar, defaultBase: c.defaultBase });
  }
  const providers = [...byKey].map(([name, p]): EnvironmentVariable => {
    if (name === p.base)
      return { name, meaning: `server of ${p.formats.join(', ')} (default ${p.defaultBase}); no key needed` };
    return {
      name,
      meaning: `API key of ${p.formats.join(', ')}; its base URL from ${p.base} (default ${p.defaultBase})`,
    };
  });
  return [...providers, ...OWN_VARIABLES];
}

/** The `Environment:` section of `minicode --help`, at most `width` columns wide where it can. */
export function environmentHelp(width = 80): string {
  const vars = environmentVariables();
  const pad = Math.min(32, Math.max(...vars.map((v) => v.name.length)) + 2);
  const lines = ['Environment:'];
  for (const v of vars) {
    const words = v.meaning.split(' ');
    let line = `  ${v.name.padEnd(pad)}`;
    if (line.length > pad + 2) {
      lines.push(line.trimEnd());
      line = ' '.repeat(pad + 2);
    }
    let first = true;
    for (const w of words) {
      if (!first && line.length + 1 + w.length > width) {
        lines.push(line);
        line = `${' '.repeat(pad + 2)}${w}`;
      } else line += `${first ? '' : ' '}${w}`;
      first = false;
    }
    lines.push(line);
  }
  return lines.join('\n');
}
