import type { Config } from '../config.js';
import { MinicodeError } from '../errors.js';
import { PROVIDER_FORMATS, type ProviderFormat } from '../decode/formats.js';
import { definedOnly } from '../defined-only.js';

/** What `--provider` accepts: a wire format, an alias, or `replay`. */
export const PROVIDER_ALIASES: Readonly<Record<string, ProviderFormat>> = {
  openai: 'openai-chat',
  'openai-compatible': 'openai-chat',
  responses: 'openai-responses',
  claude: 'anthropic',
  google: 'gemini',
};

/** Per-format conventions: key variable, base URL variable and default, default model. */
export interface FormatConvention {
  keyVars: readonly string[];
  baseVar: string;
  defaultBase: string;
  defaultModel: string;
}

/** Per-format conventions (the help's Environment section lists them). */
export const PROVIDER_CONVENTIONS: Readonly<Record<ProviderFormat, FormatConvention>> = {
  'openai-chat': {
    keyVars: ['OPENAI_API_KEY'],
    baseVar: 'OPENAI_BASE_URL',
    defaultBase: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4.1-mini',
  },
  'openai-responses': {
    keyVars: ['OPENAI_API_KEY'],
    baseVar: 'OPENAI_BASE_URL',
    defaultBase: 'https://api.openai.com/v1',
    defaultModel: 'gpt-4.1-mini',
  },
  anthropic: {
    keyVars: ['ANTHROPIC_API_KEY'],
    baseVar: 'ANTHROPIC_BASE_URL',
    defaultBase: 'https://api.anthropic.com',
    defaultModel: 'claude-sonnet-4-5',
  },
  gemini: {
    keyVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    baseVar: 'GOOGLE_GEMINI_BASE_URL',
    defaultBase: 'https://generativelanguage.googleapis.com',
    defaultModel: 'gemini-2.5-flash',
  },
  ollama: { keyVars: [], baseVar: 'OLLAMA_HOST', defaultBase: 'http://127.0.0.1:11434', defaultModel: 'llama3.2' },
};

/** Hosted APIs that always need a key (a local or self-hosted compatible server may not). */
const KEYED_HOSTS: Readonly<Record<string, string>> = {
  'api.openai.com': 'OPENAI_API_KEY',
  'openrouter.ai': 'OPENROUTER_API_KEY',
  'api.anthropic.com': 'ANTHROPIC_API_KEY',
  'generativelanguage.googleapis.com': 'GEMINI_API_KEY',
};

/** Model families a hosted API serves; a model of another family there is a mistake. */
const FAMILY: Readonly<Record<string, RegExp>> = {
  'api.anthropic.com': /^claude/,
  'generativelanguage.googleapis.com': /^(gemini|gemma|learnlm|models\/)/,
  'api.openai.com': /^(?!claude|gemini)/,
};

/** The provider a run will talk to. */
export interface ResolvedProvider {
  format: ProviderFormat | 'replay';
  model: string;
  /** Endpoint base for the request builder (empty for `replay`: the replay server supplies it). */
  baseUrl: string;
  apiKey?: string;
  /** The variable the key came from (for messages; never the key itself). */
  keyVariable?: string;
}

/** Inputs of {@link resolveProvider}; flags win over environment, environment over config. */
export interface ResolveProviderOptions {
  provider?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  env?: NodeJS.ProcessEnv;
  config?: Config;
}

/** `OLLAMA_HOST` as Ollama reads it: a scheme and port are optional, `0.0.0.0` means this host. */
export function normalizeOllamaHost(value: string): string {
  let v = value.trim();
  if (!/^[a-z]+:\/\//i.test(v)) v = `http://${v}`;
  const url = new URL(v);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.port === '' && !/:\d+$/.test(value.trim())) url.port = '11434';
  return url.toString().replace(/\/+$/, '');
}

function hostOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new MinicodeError('MINICODE_E_USAGE', `invalid base URL: ${baseUrl}`, {
      action: 'pass an absolute URL such as http://127.0.0.1:8000/v1 to --base-url',
    });
  }
  // Any other scheme would only fail at the first request, after the retries, as a network error.
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new MinicodeError('MINICODE_E_USAGE', `base URL scheme ${url.protocol} is not http: or https:`, {
      action: 'pass an absolute URL such as http://127.0.0.1:8000/v1 to --base-url',
    });
  return url.hostname;
}

function formatOf(name: string): ProviderFormat | 'replay' {
  const lower = name.toLowerCase();
  if (lower === 'replay') return 'replay';
  if ((PROVIDER_FORMATS as readonly string[]).includes(lower)) return lower as ProviderFormat;
  const alias = PROVIDER_ALIASES[lower];
  if (alias) return alias;
  throw new MinicodeError('MINICODE_E_NO_PROVIDER', `unknown provider "${name}"`, {
    action: `use --provider with one of: ${[...PROVIDER_FORMATS, 'replay'].join(', ')} (aliases: ${Object.keys(PROVIDER_ALIASES).join(', ')})`,
  });
}

/** The provider a model name implies, when it names a well-known family. */
function formatForModel(model: string): ProviderFormat | undefined {
  if (/^claude/i.test(model)) return 'anthropic';
  if (/^gemini/i.test(model)) return 'gemini';
  if (/^(gpt-|o[1-9]|chatgpt)/i.test(model)) return 'openai-chat';
  return undefined;
}

/** A variable's value; set but empty (`export OPENAI_BASE_URL=`) counts as unset, as the provider SDKs read it. */
function setVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** Pick the format: flag, `MINICODE_PROVIDER`, config, `--base-url`, model family, then keys present. */
function chooseFormat(options: ResolveProviderOptions, env: NodeJS.ProcessEnv): ProviderFormat | 'replay' {
  const named = options.provider ?? setVar(env, 'MINICODE_PROVIDER') ?? options.config?.provider;
  if (named) return formatOf(named);
  if (options.baseUrl) return 'openai-chat';
  const model = options.model ?? setVar(env, 'MINICODE_MODEL') ?? options.config?.model;
  const fromModel = model ? formatForModel(model) : undefined;
  if (fromModel) return fromModel;
  if (env.ANTHROPIC_API_KEY) return 'anthropic';
  if (env.OPENAI_API_KEY) return 'openai-chat';
  if (env.GEMINI_API_KEY || env.GOOGLE_API_KEY) return 'gemini';
  if (env.OLLAMA_HOST) return 'ollama';
  throw new MinicodeError('MINICODE_E_NO_PROVIDER', 'no provider configured', {
    action:
      'pass --provider (openai-chat, openai-responses, anthropic, gemini, ollama), or set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OLLAMA_HOST, or set "provider" in ~/.config/minicode/config.json',
  });
}

/**
 * Decide which format, model, endpoint and key a run uses, from flags, the conventional
 * environment variables and the config. Throws `MINICODE_E_NO_PROVIDER`,
 * `MINICODE_E_UNKNOWN_MODEL` or `MINICODE_E_MISSING_KEY`, each with an action that names the
 * flag or variable to set.
 */
export function resolveProvider(options: ResolveProviderOptions): ResolvedProvider {
  const env = options.env ?? process.env;
  const format = chooseFormat(options, env);
  const explicitModel = options.model ?? setVar(env, 'MINICODE_MODEL');
  if (format === 'replay') return { format, model: explicitModel ?? options.config?.model ?? 'replay', baseUrl: '' };
  const convention = PROVIDER_CONVENTIONS[format];
  const perFormat = options.config?.providers?.[format];
  const envBase = setVar(env, convention.baseVar);
  let baseUrl = options.baseUrl ?? envBase ?? perFormat?.baseUrl ?? options.config?.baseUrl ?? convention.defaultBase;
  if (format === 'ollama') baseUrl = normalizeOllamaHost(baseUrl);
  const host = hostOf(baseUrl);
  const customEndpoint = baseUrl !== convention.defaultBase;

  const model =
    explicitModel ??
    perFormat?.model ??
    options.config?.model ??
    (customEndpoint && format === 'openai-chat' ? undefined : convention.defaultModel);
  if (model === undefined) {
    throw new MinicodeError('MINICODE_E_UNKNOWN_MODEL', `no model given for ${baseUrl}`, {
      action: 'pass --model with the name the server serves (or set "model" in the config)',
    });
  }
  if (!/^[A-Za-z0-9][\w.:/@+-]*$/.test(model)) {
    throw new MinicodeError('MINICODE_E_UNKNOWN_MODEL', `invalid model name "${model}"`, {
      action: 'pass --model with a model name such as gpt-4.1-mini or claude-sonnet-4-5',
    });
  }
  const family = FAMILY[host];
  if (family && !family.test(model)) {
    throw new MinicodeError('MINICODE_E_UNKNOWN_MODEL', `model "${model}" is not served by ${host}`, {
      action: `pass a ${format} model to --model, or choose the matching --provider`,
    });
  }

  const keyVars = perFormat?.apiKeyEnv ? [perFormat.apiKeyEnv, ...convention.keyVars] : [...convention.keyVars];
  if (host === 'openrouter.ai') keyVars.unshift('OPENROUTER_API_KEY');
  const keyVariable = keyVars.find((v) => env[v]);
  const apiKey = keyVariable ? env[keyVariable] : undefined;
  const required = KEYED_HOSTS[host];
  if (required && !apiKey) {
    const variable = keyVars[0] ?? required;
    throw new MinicodeError('MINICODE_E_MISSING_KEY', `no API key for ${format} at ${host}: ${variable} is not set`, {
      action: `set ${variable} in the environment (or name the variable that holds the key in the config: providers.${format}.apiKeyEnv)`,
    });
  }
  return definedOnly({
    format,
    model,
    baseUrl,
    apiKey: apiKey || undefined,
    keyVariable: keyVariable && apiKey ? keyVariable : undefined,
  });
}
