/**
 * MCP servers as lines for a person: `minicode mcp list` and `/mcp` in chat print the same
 * rows. Names, tool names and errors come from config files and servers, so the lines are
 * neutralised (their control characters shown escaped).
 */
import { neutralise } from '../safe-text.js';
import type { McpServerStatus } from './manager.js';

/** One line per server (state, transport, start-up time, tools, sandbox), its error, then its tool names when `tools`. */
export function serverStatusLines(rows: readonly McpServerStatus[], options: { tools: boolean }): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const transport = r.transport ? ` ${r.transport}` : '';
    const timing = r.state === 'disabled' || r.state === 'invalid' ? '' : ` ${r.startupMs} ms`;
    const sandbox = r.sandbox ? `  sandbox ${r.sandbox}` : '';
    lines.push(
      `${r.name}  ${r.state}${transport}${timing}  ${r.tools.length} tool${r.tools.length === 1 ? '' : 's'}${sandbox}`,
    );
    if (r.error) lines.push(`  error: ${r.error}`);
    if (options.tools) for (const name of r.toolNames) lines.push(`  ${name}`);
  }
  return lines.map((l) => neutralise(l));
}
