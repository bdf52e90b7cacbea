/**
 * `minicode mcp list|add|remove`. `list` really starts each enabled server (in parallel, under
 * its start-up deadline) so that what it shows is what a run would get; `add` and `remove`
 * edit only the user config file.
 */
import path from 'node:path';
import { loadConfig, userConfigPath } from '../lib/config-files.js';
import { MinicodeError } from '../lib/errors.js';
import { MAX_TIMER_MS } from '../lib/control/timers.js';
import { decimalInt } from '../lib/flag-values.js';
import type { McpServerConfig } from '../lib/mcp/config.js';
import { resolveRunSandbox } from '../lib/sandbox/resolve.js';
import { resolveStoreDir } from '../lib/store/location.js';
import type { McpServerStatus } from '../lib/mcp/index.js';
import { neutralise } from '../lib/safe-text.js';
import { definedOnly } from '../lib/defined-only.js';
import { failureLine } from '../lib/failure-line.js';

/** Flags of `minicode mcp list`. */
export interface McpListFlags {
  json?: boolean;
  allowLocalConfig?: boolean;
  cwd?: string;
}

/** Flags of `minicode mcp add`. */
export interface McpAddFlags {
  env?: string[];
  header?: string[];
  transport?: string;
  cwd?: string;
  startupTimeout?: string;
  toolTimeout?: string;
  replace?: boolean;
}

const out = (s: string): void => {
  process.stdout.write(s);
};

function fail(error: unknown): number {
  if (!(error instanceof MinicodeError)) throw error;
  process.stderr.write(failureLine(error));
  return error.exitCode;
}

function table(rows: McpServerStatus[]): string {
  if (rows.length === 0) return `no MCP servers configured (add one with: minicode mcp add NAME COMMAND [ARGS...])\n`;
  const lines: string[] = [];
  for (const r of rows) {
    const transport = r.transport ? ` ${r.transport}` : '';
    const timing = r.state === 'disabled' || r.state === 'invalid' ? '' : ` ${r.startupMs} ms`;
    const sandbox = r.sandbox ? `  sandbox ${r.sandbox}` : '';
    lines.push(`${r.name}  ${r.state}${transport}${timing}  ${r.tools.length} tool${r.tools.length === 1 ? '' : 's'}${sandbox}`);
    if (r.error) lines.push(`  error: ${r.error}`);
    for (const name of r.toolNames) lines.push(`  ${name}`);
  }
  // Names, tool names and errors come from config files and servers: their controls are shown escaped.
  return `${neutralise(lines.join('\n'))}\n`;
}

/** `mcp list`; exit 0 when every enabled server started, 1 when one failed or an entry cannot be used. */
export async function mcpListAction(flags: McpListFlags): Promise<number> {
  try {
    const cwd = path.resolve(flags.cwd ?? process.cwd());
    const loaded = await loadConfig({ cwd, allowLocalConfig: flags.allowLocalConfig === true });
    const servers = loaded.config.mcpServers ?? {};
    let rows: McpServerStatus[] = [];
    if (Object.keys(servers).length > 0) {
      // The servers start as a run would start them: in the config's sandbox (no flag here).
      const sandbox = resolveRunSandbox({ loaded, env: process.env, cwd, storeDir: resolveStoreDir({ env: process.env }) });
      const { startMcp } = await import('../lib/mcp/index.js');
      const manager = await startMcp(servers, { env: process.env, cwd, sandbox, files: loaded.mcpServerFiles ?? {} });
      if (manager) {
        // Config order, whatever finished first.
        const byName = new Map(manager.statuses().map((r) => [r.name, r]));
        rows = Object.keys(servers)
          .map((n) => byName.get(n))
          .filter((r): r is McpServerStatus => r !== undefined);
        await manager.close();
      }
    }
    if (flags.json) out(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    else out(table(rows));
    return rows.some((r) => r.state === 'failed' || r.state === 'invalid') ? 1 : 0;
  } catch (error) {
    return fail(error);
  }
}

function pairs(items: string[] | undefined, separator: RegExp, flag: string): Record<string, string> | undefined {
  if (!items || items.length === 0) return undefined;
  const outRecord: Record<string, string> = {};
  for (const item of items) {
    const match = separator.exec(item);
    if (!match || match.index === 0)
      throw new MinicodeError('MINICODE_E_USAGE', `${flag} expects NAME${flag === '--env' ? '=' : ': '}VALUE, got "${item}"`, {
        action: `pass ${flag} ${flag === '--env' ? 'KEY=value' : '"Authorization: Bearer ${TOKEN}"'}`,
      });
    outRecord[item.slice(0, match.index).trim()] = item.slice(match.index + match[0].length).trim();
  }
  return outRecord;
}

function positiveMs(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = decimalInt(value);
  // A Node timer waits at most MAX_TIMER_MS: a longer deadline would fire at once.
  if (!Number.isInteger(n) || n <= 0 || n > MAX_TIMER_MS)
    throw new MinicodeError('MINICODE_E_USAGE', `${flag} must be a positive integer of ms (decimal digits) up to ${MAX_TIMER_MS}, got "${value}"`, { action: `pass ${flag} 10000` });
  return n;
}

/** `mcp add NAME COMMAND_OR_URL [ARGS...]`. */
export async function mcpAddAction(name: string, commandOrUrl: string, args: string[], flags: McpAddFlags): Promise<number> {
  try {
    const isUrl = /^https?:\/\//i.test(commandOrUrl);
    const transport = flags.transport ?? (isUrl ? 'http' : 'stdio');
    if (!['stdio', 'http', 'sse'].includes(transport)) throw new MinicodeError('MINICODE_E_USAGE', `--transport must be stdio, http or sse, got "${transport}"`, { action: 'pass --transport http' });
    if ((transport === 'stdio') === isUrl)
      throw new MinicodeError('MINICODE_E_USAGE', `--transport ${transport} does not fit "${commandOrUrl}"`, { action: 'give a command for stdio, an http(s) URL for http and sse' });
    const startupTimeoutMs = positiveMs(flags.startupTimeout, '--startup-timeout');
    const toolTimeoutMs = positiveMs(flags.toolTimeout, '--tool-timeout');
    const common = definedOnly({ startupTimeoutMs: startupTimeoutMs || undefined, toolTimeoutMs: toolTimeoutMs || undefined });
    let entry: McpServerConfig;
    if (isUrl) {
      if (args.length > 0 || flags.env) throw new MinicodeError('MINICODE_E_USAGE', 'a URL server takes no arguments and no --env', { action: 'use --header for credentials' });
      const headers = pairs(flags.header, /:\s*/, '--header');
      entry = definedOnly({ type: transport as 'http' | 'sse', url: commandOrUrl, headers, ...common });
    } else {
      if (flags.header) throw new MinicodeError('MINICODE_E_USAGE', 'a stdio server takes no --header', { action: 'use --env for credentials' });
      const env = pairs(flags.env, /=/, '--env');
      entry = definedOnly({ command: commandOrUrl, args: args.length > 0 ? args : undefined, env, cwd: flags.cwd || undefined, ...common });
    }
    const { addServer } = await import('../lib/mcp/user-config.js');
    const file = userConfigPath();
    addServer(file, name, entry, { replace: flags.replace === true });
    process.stderr.write(`added MCP server ${name} to ${file}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}

/** `mcp remove NAME`. */
export async function mcpRemoveAction(name: string): Promise<number> {
  try {
    const { removeServer } = await import('../lib/mcp/user-config.js');
    const file = userConfigPath();
    removeServer(file, name);
    process.stderr.write(`removed MCP server ${name} from ${file}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}
