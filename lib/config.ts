import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CheckpointConfigSchema } from './checkpoints/settings.js';
import { CACHE_TTLS, REASONING_LEVELS } from './agent/requests/types.js';
import { MinicodeError } from './errors.js';
import { McpServersSchema } from './mcp/config.js';

const ProviderSettings = z.object({
  model: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  /** Name of the variable holding the key, when not the conventional one. */
  apiKeyEnv: z.string().min(1).optional(),
});

/**
 * The config file's schema. Unknown keys are kept (a newer minicode may add some); a known key
 * with the wrong type makes the whole file invalid, with the path of the offending key.
 */
export const ConfigSchema = z.looseObject({
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.string().url().optional(),
  providers: z.record(z.string(), ProviderSettings).optional(),
  approval: z
    .object({
      mode: z.enum(['ask', 'auto', 'read-only']),
      allowTools: z.array(z.string()).optional(),
      allowCommands: z.array(z.string()).optional(),
    })
    .optional(),
  verify: z.union([z.string().min(1), z.object({ command: z.string().min(1) })]).optional(),
  budgetUsd: z.number().nonnegative().optional(),
  maxSteps: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** The model's context window in tokens, when the built-in table does not know it. */
  contextWindow: z.number().int().positive().optional(),
  allowedPaths: z.array(z.string()).optional(),
  /** `false` turns workspace checkpoints off; an object overrides their limits. */
  checkpoints: CheckpointConfigSchema.optional(),
  /** Reasoning effort sent with every request (`--reasoning` wins). */
  reasoning: z.enum(REASONING_LEVELS).optional(),
  /** Anthropic prompt-cache lifetime (`--cache-ttl` wins). */
  cacheTtl: z.enum(CACHE_TTLS).optional(),
  /** OpenAI `prompt_cache_key` (`--cache-key` wins). */
  cacheKey: z.string().min(1).max(64).optional(),
  /** MCP servers, in the `.mcp.json` shape (see lib/mcp/config.ts). */
  mcpServers: McpServersSchema.optional(),
});
/** A validated config. */
export type Config = z.infer<typeof ConfigSchema>;

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Trust `.minicode/config.json` in `cwd` (`--allow-local-config`); default false. */
  allowLocalConfig?: boolean;
  /** Home directory; default `os.homedir()`. */
  home?: string;
}

/** A loaded config and where it came from. */
export interface LoadedConfig {
  config: Config;
  /** Files actually read, in merge order. */
  sources: string[];
  /** A local config that exists but was ignored (no `--allow-local-config`), for a diagnostic. */
  ignoredLocal?: string;
}

/** The user config path: `$MINICODE_HOME/config.json`, else `~/.config/minicode/config.json`. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  if (env.MINICODE_HOME) return path.join(env.MINICODE_HOME, 'config.json');
  return path.join(home, '.config', 'minicode', 'config.json');
}

/** Read and validate one file; absent is `undefined`, anything else wrong is a coded error. */
function readConfigFile(file: string): Config | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new MinicodeError('MINICODE_E_CONFIG_UNREADABLE', `cannot read config ${file}: ${code ?? (error as Error).message}`, {
      action: `fix the file's permissions or remove it (${file})`,
      data: { path: file },
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file} is not valid JSON: ${(error as Error).message}`, {
      action: `fix the JSON syntax in ${file}`,
      data: { path: file },
    });
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file}: ${where}: ${issue.message}`, {
      action: `fix "${where}" in ${file}`,
      data: { path: file, issues: parsed.error.issues.length },
    });
  }
  return parsed.data;
}

/**
 * Load the user config and, only with `allowLocalConfig`, the workspace's
 * `.minicode/config.json` over it (a cloned repository must not configure the agent that
 * works on it: seed automation-ci). A missing file is an empty config.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const sources: string[] = [];
  const userFile = userConfigPath(env, options.home ?? os.homedir());
  let config: Config = {};
  const user = readConfigFile(userFile);
  if (user) {
    config = user;
    sources.push(userFile);
  }
  const localFile = path.join(cwd, '.minicode', 'config.json');
  if (!options.allowLocalConfig) {
    return fs.existsSync(localFile) ? { config, sources, ignoredLocal: localFile } : { config, sources };
  }
  const local = readConfigFile(localFile);
  if (local) {
    config = { ...config, ...local, providers: { ...config.providers, ...local.providers }, mcpServers: { ...config.mcpServers, ...local.mcpServers } };
    if (!config.providers || Object.keys(config.providers).length === 0) delete config.providers;
    if (Object.keys(config.mcpServers ?? {}).length === 0) delete config.mcpServers;
    sources.push(localFile);
  }
  return { config, sources };
}
