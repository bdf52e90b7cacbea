import type { Command } from 'commander';
import type { McpAddFlags, McpAddJsonFlags, McpGetFlags, McpListFlags, McpScopeFlags } from '../mcp-action.js';
import type { McpLoginFlags } from '../mcp-login-action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const SCOPE = ['--scope <scope>', 'user (the user config, default) or project (./.mcp.json)'] as const;

/** `minicode mcp list|get|add|add-json|remove`: the MCP servers of the config. */
export function registerMcp(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('MCP servers of the config (mcpServers): list, get, add, add-json, remove, login, logout');
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
    .description(
      'add a server to the user config (or ./.mcp.json with --scope project): a command (stdio) or an http(s) URL',
    )
    .argument('<name>', 'server name (tools become mcp__<name>__<tool>)')
    .argument('<commandOrUrl>', 'the command to start, or the server URL')
    .argument('[args...]', 'arguments of the command (put them after -- when they start with -)')
    .option('-e, --env <KEY=VALUE>', 'environment of a stdio server (repeatable; ${VAR} expands at start)', collect)
    .option(
      '-H, --header <"Name: value">',
      'HTTP header of a URL server (repeatable; ${VAR} expands at start)',
      collect,
    )
    .option('--include <tool>', "only this tool of the server (repeatable; the server's own name)", collect)
    .option('--exclude <tool>', "never this tool of the server (repeatable; the server's own name)", collect)
    .option(
      '--transport <kind>',
      'stdio, http or sse (default: stdio for a command; a URL is tried over Streamable HTTP, then SSE)',
    )
    .option('--cwd <dir>', 'working directory of a stdio server')
    .option('--startup-timeout <ms>', 'start-up deadline (default 10000)')
    .option('--tool-timeout <ms>', 'tool call deadline, extended by progress (default 60000)')
    .option(...SCOPE)
    .option('--replace', 'replace a server of the same name')
    .action(async (name: string, commandOrUrl: string, args: string[], flags: McpAddFlags) => {
      const { mcpAddAction } = await import('../mcp-action.js');
      process.exitCode = await mcpAddAction(name, commandOrUrl, args, flags);
    });
  mcp
    .command('add-json')
    .description(
      "add a server from one JSON entry, as Claude Code's, Codex's, Gemini CLI's or Cursor's config holds it (docs/mcp.md)",
    )
    .argument('<name>', 'server name (tools become mcp__<name>__<tool>)')
    .argument('<json>', 'the entry, e.g. \'{"command":"npx","args":["-y","pkg"]}\'')
    .option(...SCOPE)
    .option('--replace', 'replace a server of the same name')
    .action(async (name: string, json: string, flags: McpAddJsonFlags) => {
      const { mcpAddJsonAction } = await import('../mcp-action.js');
      process.exitCode = await mcpAddJsonAction(name, json, flags);
    });
  mcp
    .command('get')
    .description(
      'show one server: the file naming it, its entry (credentials masked), then its state and tools once started',
    )
    .argument('<name>', 'server name')
    .option('--json', 'one JSON object')
    .option('--allow-local-config', "also load the servers of the workspace's .mcp.json and .minicode/config.json")
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (name: string, flags: McpGetFlags) => {
      const { mcpGetAction } = await import('../mcp-action.js');
      process.exitCode = await mcpGetAction(name, flags);
    });
  mcp
    .command('remove')
    .description('remove a server from the user config (or ./.mcp.json with --scope project)')
    .argument('<name>', 'server name')
    .option(...SCOPE)
    .action(async (name: string, flags: McpScopeFlags) => {
      const { mcpRemoveAction } = await import('../mcp-action.js');
      process.exitCode = await mcpRemoveAction(name, flags);
    });
  mcp
    .command('login')
    .description(
      "log in to a URL server by OAuth (the browser's answer comes back to 127.0.0.1); the tokens are kept in $MINICODE_HOME/mcp-oauth (0600) and refreshed",
    )
    .argument('<name>', 'server name')
    .option('--no-browser', 'only print the URL to open (default: also try to open the system browser)')
    .option('--timeout <ms>', "how long to wait for the browser's answer (default 300000)")
    .option('--allow-local-config', "also load the servers of the workspace's .mcp.json and .minicode/config.json")
    .option('--cwd <dir>', 'workspace directory (default: the current directory)')
    .action(async (name: string, flags: McpLoginFlags) => {
      const { mcpLoginAction } = await import('../mcp-login-action.js');
      process.exitCode = await mcpLoginAction(name, flags);
    });
  mcp
    .command('logout')
    .description('forget the OAuth login of a server (its tokens and client registration)')
    .argument('<name>', 'server name')
    .action(async (name: string) => {
      const { mcpLogoutAction } = await import('../mcp-login-action.js');
      process.exitCode = mcpLogoutAction(name);
    });
}
