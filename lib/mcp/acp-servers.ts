/**
 * MCP servers an ACP client passes in `session/new` / `session/load` (`mcpServers`: stdio with
 * `env` as `{name, value}` pairs, or `{type: "http" | "sse", url, headers}`), as servers the
 * manager starts for that session. The client's values are literal: no `${VAR}` expansion.
 */
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type McpServerConfig,
  type ResolvedServer,
} from './config.js';

/** One `mcpServers` entry of ACP v1 (structural: the ACP SDK's `McpServer`). */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: { name: string; value: string }[]; type?: undefined }
  | { type: 'http' | 'sse'; name: string; url: string; headers: { name: string; value: string }[] };

const pairs = (list: { name: string; value: string }[] | undefined): Record<string, string> =>
  Object.fromEntries((list ?? []).map((p) => [p.name, p.value]));

/** The client's servers, named as minicode names servers (sanitised, unique). */
export function serversFromAcp(servers: readonly AcpMcpServer[] | undefined): ResolvedServer[] {
  const taken = new Set<string>();
  const out: ResolvedServer[] = [];
  for (const server of servers ?? []) {
    let name = server.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60) || 'server';
    for (let i = 2; taken.has(name); i++) name = `${name.slice(0, 60)}-${i}`;
    taken.add(name);
    const config: McpServerConfig =
      'url' in server && server.type !== undefined
        ? { type: server.type, url: server.url, headers: pairs(server.headers) }
        : {
            command: (server as { command: string }).command,
            args: (server as { args?: string[] }).args ?? [],
            env: pairs((server as { env?: { name: string; value: string }[] }).env),
          };
    out.push({
      name,
      config,
      startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
      toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      origin: 'acp',
    });
  }
  return out;
}
