/**
 * `minicode mcp list|add|remove`. `list` really starts each enabled server (in parallel, under
 * its start-up deadline) so that what it shows is what a run would get; `add` and `remove`
 * edit only the user config file.
 */
import path from 'node:path';
import { loadConfig, userConfigPath, type LoadedConfig } from '../lib/config-files.js';
import { MinicodeError } from '../lib/errors.js';
import { MAX_TIMER_MS } from '../lib/control/timers.js';
import { decimalInt } from '../lib/flag-values.js';
import type { McpServerConfig } from '../lib/mcp/config.js';
import { resolveRunSandbox } from '../lib/sandbox/resolve.js';
import { resolveStoreDir } from '../lib/store/location.js';
import type { McpServerStatus } from '../lib/mcp/index.js';
import { serverStatusLines } from '../lib/mcp/status-lines.js';
import { configuredSecrets } from '../lib/mcp/env.js';
import { neutralise } from '../lib/safe-text.js';
import { definedOnly } from '../lib/defined-only.js';
import { failureLine } from '../lib/failure-line.js';

/** Flags of `minicode mcp list`. */
export interface McpListFlags {
  json?: boolean;
  allowLocalConfig?: boolean;
  cwd?: string;
}

/** Where `mcp add`, `add-json` and `remove` write: the user config, or the project's `.mcp.json`. */
export interface McpScopeFlags {
  scope?: string;
}

/** Flags of `minicode mcp add`. */
export interface McpAddFlags extends McpScopeFlags {
  env?: string[];
  header?: string[];
  include?: string[];
  exclude?: string[];
  transport?: string;
  cwd?: string;
  startupTimeout?: string;
  toolTimeout?: string;
  replace?: boolean;
}

/** Flags of `minicode mcp add-json`. */
export interface McpAddJsonFlags extends McpScopeFlags {
  replace?: boolean;
}

/** Flags of `minicode mcp get`. */
export interface McpGetFlags {
  json?: boolean;
  allowLocalConfig?: boolean;
  cwd?: string;
}

/** The file a scope names: `user` (default) the user config, `project` the current directory's `.mcp.json` (0644: it is shared with the project). */
function scopeFile(flags: McpScopeFlags): { file: string; mode: number } {
  const scope = flags.scope ?? 'user';
  if (scope === 'user') return { file: userConfigPath(), mode: 0o600 };
  if (scope === 'project') return { file: path.join(process.cwd(), '.mcp.json'), mode: 0o644 };
  throw new MinicodeError('MINICODE_E_USAGE', `--scope must be user or project, got "${scope}"`, {
    action: 'pass --scope project to write ./.mcp.json',
  });
}

const out = (s: string): void => {
  process.stdout.write(s);
};

/** Writes a MinicodeError as one line on stderr and returns its exit code; anything else is a bug and thrown on. */
export function fail(error: unknown): number {
  if (!(error instanceof MinicodeError)) throw error;
  process.stderr.write(failureLine(error));
  return error.exitCode;
}

function table(rows: McpServerStatus[]): string {
  if (rows.length === 0) return `no MCP servers configured (add one with: minicode mcp add NAME COMMAND [ARGS...])\n`;
  return `${serverStatusLines(rows, { tools: true }).join('\n')}\n`;
}

/** `mcp list`; exit 0 when every enabled server started, 1 when one failed or an entry cannot be used. */
export async function mcpListAction(flags: McpListFlags): Promise<number> {
  try {
    const cwd = path.resolve(flags.cwd ?? process.cwd());
    const loaded = await loadConfig({ cwd, allowLocalConfig: flags.allowLocalConfig === true });
    const servers = loaded.config.mcpServers ?? {};
    let rows: McpServerStatus[] = [];
    if (Object.keys(servers).length > 0) {
      const manager = await startConfigured(servers, loaded, cwd);
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
      throw new MinicodeError(
        'MINICODE_E_USAGE',
        `${flag} expects NAME${flag === '--env' ? '=' : ': '}VALUE, got "${item}"`,
        {
          action: `pass ${flag} ${flag === '--env' ? 'KEY=value' : '"Authorization: Bearer ${TOKEN}"'}`,
        },
      );
    outRecord[item.slice(0, match.index).trim()] = item.slice(match.index + match[0].length).trim();
  }
  return outRecord;
}

export function positiveMs(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = decimalInt(value);
  // A Node timer waits at most MAX_TIMER_MS: a longer deadline would fire at once.
  if (!Number.isInteger(n) || n <= 0 || n > MAX_TIMER_MS)
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `${flag} must be a positive integer of ms (decimal digits) up to ${MAX_TIMER_MS}, got "${value}"`,
      { action: `pass ${flag} 10000` },
    );
  return n;
}

/** `mcp add NAME COMMAND_OR_URL [ARGS...]`. */
export async function mcpAddAction(
  name: string,
  commandOrUrl: string,
  args: string[],
  flags: McpAddFlags,
): Promise<number> {
  try {
    const isUrl = /^https?:\/\//i.test(commandOrUrl);
    // A bare URL stays untyped, so a server that refuses Streamable HTTP is tried over SSE.
    const transport = flags.transport ?? (isUrl ? undefined : 'stdio');
    if (transport !== undefined && !['stdio', 'http', 'sse'].includes(transport))
      throw new MinicodeError('MINICODE_E_USAGE', `--transport must be stdio, http or sse, got "${transport}"`, {
        action: 'pass --transport http',
      });
    if ((transport === 'stdio') === isUrl)
      throw new MinicodeError('MINICODE_E_USAGE', `--transport ${transport} does not fit "${commandOrUrl}"`, {
        action: 'give a command for stdio, an http(s) URL for http and sse',
      });
    const target = scopeFile(flags);
    const startupTimeoutMs = positiveMs(flags.startupTimeout, '--startup-timeout');
    const toolTimeoutMs = positiveMs(flags.toolTimeout, '--tool-timeout');
    const common = definedOnly({
      startupTimeoutMs: startupTimeoutMs || undefined,
      toolTimeoutMs: toolTimeoutMs || undefined,
      includeTools: flags.include && flags.include.length > 0 ? flags.include : undefined,
      excludeTools: flags.exclude && flags.exclude.length > 0 ? flags.exclude : undefined,
    });
    let entry: McpServerConfig;
    if (isUrl) {
      if (args.length > 0 || flags.env)
        throw new MinicodeError('MINICODE_E_USAGE', 'a URL server takes no arguments and no --env', {
          action: 'use --header for credentials',
        });
      const headers = pairs(flags.header, /:\s*/, '--header');
      entry = definedOnly({ type: transport as 'http' | 'sse' | undefined, url: commandOrUrl, headers, ...common });
    } else {
      if (flags.header)
        throw new MinicodeError('MINICODE_E_USAGE', 'a stdio server takes no --header', {
          action: 'use --env for credentials',
        });
      const env = pairs(flags.env, /=/, '--env');
      entry = definedOnly({
        command: commandOrUrl,
        args: args.length > 0 ? args : undefined,
        env,
        cwd: flags.cwd || undefined,
        ...common,
      });
    }
    const { addServer } = await import('../lib/mcp/user-config.js');
    addServer(target.file, name, entry, { replace: flags.replace === true, mode: target.mode });
    process.stderr.write(`added MCP server ${name} to ${target.file}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}

/** `mcp add-json NAME JSON`: one entry as another agent's config holds it, read as a run reads it. */
export async function mcpAddJsonAction(name: string, json: string, flags: McpAddJsonFlags): Promise<number> {
  try {
    let entry: unknown;
    try {
      entry = JSON.parse(json);
    } catch (error) {
      throw new MinicodeError('MINICODE_E_USAGE', `the entry is not valid JSON: ${(error as Error).message}`, {
        action: `quote it whole: minicode mcp add-json ${name} '{"command":"npx","args":["-y","pkg"]}'`,
      });
    }
    const target = scopeFile(flags);
    const { addServer } = await import('../lib/mcp/user-config.js');
    addServer(target.file, name, entry, { replace: flags.replace === true, mode: target.mode });
    process.stderr.write(`added MCP server ${name} to ${target.file}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}

/** `config` as shown: credential values of `env` and `headers` masked, `${VAR}` references kept. */
function shownEntry(config: unknown): unknown {
  if (!config || typeof config !== 'object' || Array.isArray(config)) return config;
  const out: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const key of ['env', 'headers', 'http_headers']) {
    const record = out[key];
    if (!record || typeof record !== 'object' || Array.isArray(record)) continue;
    const secrets = new Set(
      configuredSecrets(
        Object.fromEntries(
          Object.entries(record).filter(([, v]) => typeof v === 'string' && !v.includes('${')),
        ) as Record<string, string>,
      ),
    );
    out[key] = Object.fromEntries(
      Object.entries(record).map(([k, v]) => [k, typeof v === 'string' && secrets.has(v) ? '[REDACTED]' : v]),
    );
  }
  return out;
}

/** The config's servers, once it is known that `name` is one of them (`MINICODE_E_MCP_NOT_FOUND` otherwise). */
export function configuredServers(
  loaded: LoadedConfig,
  name: string,
  allowLocalConfig: boolean,
): Record<string, unknown> {
  const servers = loaded.config.mcpServers ?? {};
  if (Object.hasOwn(servers, name)) return servers;
  const known = Object.keys(servers);
  throw new MinicodeError('MINICODE_E_MCP_NOT_FOUND', `no MCP server named ${name} in the config`, {
    action:
      known.length > 0
        ? `known servers: ${known.join(', ')}`
        : allowLocalConfig
          ? 'add one with minicode mcp add'
          : "add one with minicode mcp add (a project's .mcp.json is read with --allow-local-config)",
  });
}

/** `mcp get NAME`: where the entry is, how minicode reads it, and the server started as a run would start it. */
export async function mcpGetAction(name: string, flags: McpGetFlags): Promise<number> {
  try {
    const cwd = path.resolve(flags.cwd ?? process.cwd());
    const loaded = await loadConfig({ cwd, allowLocalConfig: flags.allowLocalConfig === true });
    const servers = configuredServers(loaded, name, flags.allowLocalConfig === true);
    const manager = await startConfigured({ [name]: servers[name] }, loaded, cwd);
    const status = manager?.statuses()[0];
    await manager?.close();
    const file = loaded.mcpServerFiles?.[name];
    const entry = shownEntry(servers[name]);
    if (flags.json) out(`${JSON.stringify({ name, file, entry, status })}\n`);
    else
      out(
        `${neutralise(`${name}\n  file: ${file ?? '(unknown)'}\n  entry: ${JSON.stringify(entry)}`)}\n${status ? serverStatusLines([status], { tools: true }).join('\n') : ''}\n`,
      );
    return status && (status.state === 'failed' || status.state === 'invalid') ? 1 : 0;
  } catch (error) {
    return fail(error);
  }
}

/** `mcp remove NAME`. */
export async function mcpRemoveAction(name: string, flags: McpScopeFlags = {}): Promise<number> {
  try {
    const { removeServer } = await import('../lib/mcp/user-config.js');
    const { file } = scopeFile(flags);
    removeServer(file, name);
    // Its OAuth login goes with it: tokens for a server no config names are only a risk.
    const { oauthFile, removeOAuthRecord } = await import('../lib/mcp/oauth-store.js');
    const forgot = removeOAuthRecord(oauthFile(process.env, name));
    process.stderr.write(`removed MCP server ${name} from ${file}${forgot ? ' and forgot its login' : ''}\n`);
    return 0;
  } catch (error) {
    return fail(error);
  }
}

/** Start configured servers as a run would start them: in the config's sandbox (no flag here). */
async function startConfigured(servers: Record<string, unknown>, loaded: LoadedConfig, cwd: string) {
  const sandbox = resolveRunSandbox({ loaded, env: process.env, cwd, storeDir: resolveStoreDir({ env: process.env }) });
  const { startMcp } = await import('../lib/mcp/index.js');
  return startMcp(servers, { env: process.env, cwd, sandbox, files: loaded.mcpServerFiles ?? {} });
}
