/**
 * MCP for runs: the servers a config (and, for ACP, the client) names, started only when there
 * is at least one, so the SDK is never imported by a run without MCP servers.
 */
import type { EventDraft } from '../events/index.js';
import type { AnyTool, ToolSource } from '../tools/types.js';
import { resolveServers, type McpServerConfig, type ResolvedServer } from './config.js';
import type { McpManager, StartMcpOptions } from './manager.js';

export type { McpManager, McpServerStatus } from './manager.js';
export { resolveServers, type McpServerConfig, type ResolvedServer } from './config.js';

/** Options of {@link startMcp}. */
export interface StartMcpFromConfigOptions extends Omit<StartMcpOptions, 'notes'> {
  /** Servers beyond the config's (ACP `session/new`). */
  extra?: readonly ResolvedServer[];
}

/**
 * Start the enabled servers of `mcpServers` (plus `extra`); undefined when there are none.
 * A `${VAR}` that is unset becomes a diagnostic naming the server's variable.
 */
export async function startMcp(mcpServers: Record<string, McpServerConfig> | undefined, options: StartMcpFromConfigOptions): Promise<McpManager | undefined> {
  const missing: string[] = [];
  const servers = [...resolveServers(mcpServers, options.env, 'config', missing), ...(options.extra ?? [])];
  if (servers.length === 0) return undefined;
  const notes: EventDraft[] = [...new Set(missing)].map((name) => ({
    type: 'diagnostic.raised',
    payload: {
      code: 'MINICODE_E_MCP_CONFIG',
      message: `mcpServers: \${${name}} is not set; it expanded to an empty value`,
      category: 'CONFIGURATION_ERROR',
      action: `export ${name} or remove it from the server's env/headers`,
    },
    source: 'app',
  }));
  const { startMcpServers } = await import('./manager.js');
  return startMcpServers(servers, { ...options, notes });
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
