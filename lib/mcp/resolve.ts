/**
 * The servers of a `mcpServers` map as a run starts them: each entry read on its own
 * (lib/mcp/entry.ts), turned-off ones set aside, `${VAR}` expanded, deadlines filled in. A bad
 * entry is a problem naming its server; the others go on.
 */
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  expandServer,
  isHttpUrl,
  isStdioServer,
  type McpServerConfig,
  type ResolvedServer,
} from './config.js';
import { parseServerEntry, type EntryProblem } from './entry.js';

/** A server as a config names it, before it starts. */
export interface ConfiguredServer {
  name: string;
  config: McpServerConfig;
}

/** The servers of a `mcpServers` map, read entry by entry. */
export interface ServerList {
  /** Enabled servers, with `${VAR}` expanded and deadlines filled in. */
  servers: ResolvedServer[];
  /** Entries turned off (`enabled: false`, `disabled: true`). */
  disabled: ConfiguredServer[];
  /** Entries that cannot be used, each naming its server and key; those servers are skipped. */
  problems: EntryProblem[];
  /** `${VAR}`s referenced but unset, with the server that names each. */
  missing: { server: string; variable: string }[];
}

/**
 * Read every entry of a `mcpServers` map (other agents' spellings included), expand `${VAR}`,
 * and fill the default deadlines. A bad entry is a problem naming it; the others go on.
 */
/** `files`: the config file each entry came from (`LoadedConfig.mcpServerFiles`), named in problems and kept on each server. */
export function resolveServers(
  servers: Record<string, unknown> | undefined,
  env: NodeJS.ProcessEnv,
  origin: string,
  files: Readonly<Record<string, string>> = {},
): ServerList {
  const list: ServerList = { servers: [], disabled: [], problems: [], missing: [] };
  for (const [name, raw] of Object.entries(servers ?? {})) {
    const file = files[name];
    const parsed = parseServerEntry(name, raw);
    if (!parsed.ok) {
      list.problems.push(file ? { ...parsed.problem, message: `${file}: ${parsed.problem.message}` } : parsed.problem);
      continue;
    }
    const { config } = parsed;
    if (config.enabled === false) {
      list.disabled.push({ name, config });
      continue;
    }
    const missing: string[] = [];
    const expanded = expandServer(config, env, missing);
    for (const variable of new Set(missing)) list.missing.push({ server: name, variable });
    if (isStdioServer(expanded) ? expanded.command.trim() === '' : !isHttpUrl(expanded.url)) {
      const key = isStdioServer(expanded) ? 'command' : 'url';
      list.problems.push({
        name,
        message: `mcpServers.${name}: "${key}" is empty or not an http(s) URL once its \${VAR}s are expanded; this server is skipped`,
        action: `set the variables mcpServers.${name}.${key} names`,
      });
      continue;
    }
    list.servers.push({
      name,
      config: expanded,
      startupTimeoutMs: config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      origin,
      ...(file ? { file } : {}),
    });
  }
  return list;
}
