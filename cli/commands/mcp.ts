import type { Command } from 'commander';
import type { McpAddFlags, McpListFlags } from '../mcp-action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `minicode mcp list|add|remove`: the MCP servers of the user config. */
export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('MCP servers of the user config (mcpServers): list, add, remove');
  mcp
    .command('list')
    .description('start each configured server, then show its state, start-up time and tools')
    .option('--json', 'one JSON object per server per line')
    .option('--allow-local-config', "also load the servers of the workspace's .mcp.json and .minicode/config.json")
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (flags: McpListFlags) => {
      const { mcpListAction } = await import('../mcp-action.js');
      process.exitCode = await mcpListAction(flags);
    });
  mcp
    .command('add')
    .description('add a server to the user config: a command (stdio) or an http(s) URL')
    .argument('<name>', 'server name (tools become mcp__<name>__<tool>)')
    .argument('<commandOrUrl>', 'the command to start, or the server URL')
    .argument('[args...]', 'arguments of the command (put them after -- when they start with -)')
    .option('-e, --env <KEY=VALUE>', 'environment of a stdio server (repeatable; ${VAR} expands at start)', collect)
    .option('-H, --header <"Name: value">', 'HTTP header of a URL server (repeatable; ${VAR} expands at start)', collect)
    .option('--transport <kind>', 'stdio, http or sse (default: http for a URL, stdio otherwise)')
    .option('--cwd <dir>', 'working directory of a stdio server')
    .option('--startup-timeout <ms>', 'start-up deadline (default 10000)')
    .option('--tool-timeout <ms>', 'tool call deadline, extended by progress (default 60000)')
    .option('--replace', 'replace a server of the same name')
    .action(async (name: string, commandOrUrl: string, args: string[], flags: McpAddFlags) => {
      const { mcpAddAction } = await import('../mcp-action.js');
      process.exitCode = await mcpAddAction(name, commandOrUrl, args, flags);
    });
  mcp
    .command('remove')
    .description('remove a server from the user config')
    .argument('<name>', 'server name')
    .action(async (name: string) => {
      const { mcpRemoveAction } = await import('../mcp-action.js');
      process.exitCode = await mcpRemoveAction(name);
    });
}
