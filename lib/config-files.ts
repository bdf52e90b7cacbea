/**
 * Finding, reading and merging the config files, without their schema: a run with no config
 * file never loads zod for it (docs/startup.md). Validation is `lib/config.ts`'s, which
 * {@link loadConfig} imports only when there is a file to validate.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from './config.js';
import { MinicodeError } from './errors.js';

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
  /** The project files that exist but were ignored (no `--allow-local-config`), comma-separated, for a diagnostic. */
  ignoredLocal?: string;
  /** The file each `mcpServers` entry was taken from (the last one that named it). */
  mcpServerFiles?: Record<string, string>;
  /**
   * The `hooks` section of each file read that has one, in merge order (hooks add up; they do not
   * replace each other); `local` marks the workspace's `.minicode/config.json`.
   */
  hookSources?: { file: string; section: NonNullable<Config['hooks']>; local?: true }[];
}

/** One config file's JSON, not yet validated. */
export interface ConfigSource {
  file: string;
  raw: unknown;
  /** A project file (`.mcp.json`, `.minicode/config.json`), merged over the user config. */
  local?: boolean;
  /** The project's `.mcp.json`: only its `mcpServers` is read. */
  mcpOnly?: boolean;
}

/** The user config path: `$MINICODE_HOME/config.json`, else `~/.config/minicode/config.json`. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  if (env.MINICODE_HOME) return path.join(env.MINICODE_HOME, 'config.json');
  return path.join(home, '.config', 'minicode', 'config.json');
}

/** Read and parse one file as JSON; absent is `undefined`, anything else wrong is a coded error. */
export function readConfigJson(file: string): ConfigSource | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new MinicodeError(
      'MINICODE_E_CONFIG_UNREADABLE',
      `cannot read config ${file}: ${code ?? (error as Error).message}`,
      {
        action: `fix the file's permissions or remove it (${file})`,
        data: { path: file },
      },
    );
  }
  try {
    // A UTF-8 byte order mark (Notepad, PowerShell) is not part of the JSON.
    return { file, raw: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch (error) {
    throw new MinicodeError(
      'MINICODE_E_CONFIG_INVALID',
      `config ${file} is not valid JSON: ${(error as Error).message}`,
      {
        action: `fix the JSON syntax in ${file}`,
        data: { path: file },
      },
    );
  }
}

/**
 * The config files to merge, in order: the user config and, only with `allowLocalConfig`, the
 * project's `.mcp.json` (its `mcpServers`, the file Claude Code and Cursor share) and the
 * workspace's `.minicode/config.json` (a cloned repository must not configure the agent that
 * works on it, nor make it spawn programs). Project files that exist but are not trusted come
 * back as `ignoredLocal`.
 */
export function readConfigSources(options: LoadConfigOptions = {}): { sources: ConfigSource[]; ignoredLocal?: string } {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const sources: ConfigSource[] = [];
  const user = readConfigJson(userConfigPath(env, options.home ?? os.homedir()));
  if (user) sources.push(user);
  const mcpFile = path.join(cwd, '.mcp.json');
  const localFile = path.join(cwd, '.minicode', 'config.json');
  if (!options.allowLocalConfig) {
    const ignored = [localFile, mcpFile].filter((f) => fs.existsSync(f));
    return ignored.length > 0 ? { sources, ignoredLocal: ignored.join(', ') } : { sources };
  }
  const project = readConfigJson(mcpFile);
  if (project) sources.push({ ...project, local: true, mcpOnly: true });
  const local = readConfigJson(localFile);
  if (local) sources.push({ ...local, local: true });
  return { sources };
}

/** Merge validated configs in order: later keys win, `providers` and `mcpServers` merge by name. */
export function mergeConfigs(
  validated: readonly { file: string; config: Config; local?: boolean }[],
  ignoredLocal?: string,
): LoadedConfig {
  let config: Config = {};
  const sources: string[] = [];
  const hookSources: NonNullable<LoadedConfig['hookSources']> = [];
  const mcpServerFiles: Record<string, string> = {};
  for (const { file, config: next, local } of validated) {
    if (next.hooks)
      hookSources.push(local ? { file, section: next.hooks, local: true } : { file, section: next.hooks });
    for (const name of Object.keys(next.mcpServers ?? {})) mcpServerFiles[name] = file;
    if (!local) config = next;
    else {
      config = {
        ...config,
        ...next,
        providers: { ...config.providers, ...next.providers },
        mcpServers: { ...config.mcpServers, ...next.mcpServers },
      };
      if (!config.providers || Object.keys(config.providers).length === 0) delete config.providers;
      if (Object.keys(config.mcpServers ?? {}).length === 0) delete config.mcpServers;
    }
    sources.push(file);
  }
  const loaded: LoadedConfig = ignoredLocal ? { config, sources, ignoredLocal } : { config, sources };
  if (hookSources.length > 0) loaded.hookSources = hookSources;
  if (Object.keys(mcpServerFiles).length > 0) loaded.mcpServerFiles = mcpServerFiles;
  return loaded;
}

/**
 * Load the user config and, only with `allowLocalConfig`, the workspace's
 * `.minicode/config.json` over it (a cloned repository must not configure the agent that
 * works on it: seed automation-ci). A missing file is an empty config. The schema (and zod) is
 * imported only when there is a file to validate.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const { sources, ignoredLocal } = readConfigSources(options);
  if (sources.length === 0) return mergeConfigs([], ignoredLocal);
  const { validateConfig, validateMcpJson } = await import('./config.js');
  return mergeConfigs(
    sources.map((s) => ({ ...s, config: s.mcpOnly ? validateMcpJson(s.raw, s.file) : validateConfig(s.raw, s.file) })),
    ignoredLocal,
  );
}
