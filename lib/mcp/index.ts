/**
 * MCP for runs: the servers a config (and, for ACP, the client) names, started only when there
 * is at least one, so the SDK is never imported by a run without MCP servers.
 */
import type { EventDraft } from '../events/index.js';
import type { AnyTool, ToolSource } from '../tools/types.js';
import type { ResolvedServer } from './config.js';
import { resolveServers } from './resolve.js';
import { definedOnly } from '../defined-only.js';
import type { McpManager, McpServerStatus, StartMcpOptions } from './manager.js';

export type { McpManager, McpServerStatus } from './manager.js';
export type { McpServerConfig, ResolvedServer } from './config.js';
export { resolveServers } from './resolve.js';

/** Options of {@link startMcp}. */
export interface StartMcpFromConfigOptions extends Omit<StartMcpOptions, 'notes' | 'skipped'> {
  /** Servers beyond the config's (ACP `session/new`). */
  extra?: readonly ResolvedServer[];
  /** The config file each entry came from (`LoadedConfig.mcpServerFiles`). */
  files?: Readonly<Record<string, string>>;
}

/**
 * Start the enabled servers of `mcpServers` (plus `extra`); undefined when the config names
 * none. An entry that cannot be used (an unknown key, a wrong type) is a diagnostic naming its
 * server and key, and a `${VAR}` that is unset one naming the server's variable; the other
 * servers start.
 */
export async function startMcp(
  mcpServers: Record<string, unknown> | undefined,
  options: StartMcpFromConfigOptions,
): Promise<McpManager | undefined> {
  const files = options.files ?? {};
  const list = resolveServers(mcpServers, options.env, 'config', files);
  const servers = [...list.servers, ...(options.extra ?? [])];
  if (servers.length === 0 && list.problems.length === 0 && list.missing.length === 0 && list.disabled.length === 0)
    return undefined;
  const notes: EventDraft[] = [
    ...list.problems.map(
      (p): EventDraft => ({
        type: 'diagnostic.raised',
        payload: {
          code: 'MINICODE_E_MCP_ENTRY',
          message: p.message,
          category: 'CONFIGURATION_ERROR',
          action: p.action,
        },
        source: 'app',
      }),
    ),
    ...list.missing.map(
      ({ server, variable }): EventDraft => ({
        type: 'diagnostic.raised',
        payload: {
          code: 'MINICODE_E_MCP_CONFIG',
          message: `mcpServers.${server}: \${${variable}} is not set; it expanded to an empty value`,
          category: 'CONFIGURATION_ERROR',
          action: `export ${variable} or remove it from mcpServers.${server}`,
        },
        source: 'app',
      }),
    ),
  ];
  const skipped: McpServerStatus[] = [
    ...list.disabled.map(
      ({ name }): McpServerStatus =>
        definedOnly({
          name,
          origin: 'config',
          file: files[name],
          state: 'disabled',
          tools: [],
          toolNames: [],
          startupMs: 0,
        }),
    ),
    ...list.problems.map(
      (p): McpServerStatus =>
        definedOnly({
          name: p.name,
          origin: 'config',
          file: files[p.name],
          state: 'invalid',
          tools: [],
          toolNames: [],
          startupMs: 0,
          error: p.message,
        }),
    ),
  ];
  const { startMcpServers } = await import('./manager.js');
  return startMcpServers(servers, { ...options, notes, skipped });
}

/**
 * One tool source over several (an ACP session's own servers, then the config's): a tool name
 * already given by an earlier source hides a later one, so the client's server wins.
 */
export function combineToolSources(sources: readonly (ToolSource | undefined)[]): ToolSource | undefined {
  const present = sources.filter((s): s is ToolSource => s !== undefined);
  if (present.length <= 1) return present[0];
  return {
    tools() {
      const seen = new Set<string>();
      const out: AnyTool[] = [];
      for (const source of present) {
        for (const tool of source.tools()) {
          if (seen.has(tool.name)) continue;
          seen.add(tool.name);
          out.push(tool);
        }
      }
      return out;
    },
    async ready() {
      await Promise.all(present.map((s) => s.ready?.()));
    },
    attach(emit) {
      const detach = present.map((s) => s.attach(emit));
      return () => {
        for (const d of detach) d();
      };
    },
  };
}
