/**
 * The MCP servers of one process: started together (in parallel, each under its start-up
 * deadline), their tools named and exposed as gated minicode tools, their stderr and failures
 * turned into `diagnostic.raised` drafts, and all of them closed at the end. A server that fails
 * to start is one diagnostic naming it; the run goes on without its tools.
 */
import { serverSandbox, type SandboxMode, type SandboxSettings } from '../sandbox/settings.js';
import type { EventDraft } from '../events/index.js';
import type { AnyTool, ToolSource } from '../tools/types.js';
import type { ResolvedServer } from './config.js';
import { isStdioServer } from './config.js';
import type { ConnectOptions, ServerConnection, ServerTool } from './connection.js';
import { configuredSecrets } from './env.js';
import { mcpToolName } from './naming.js';
import { maskValues } from './output.js';
import { credentialSecretsFromEnv, redactText } from '../scrub/index.js';
import { createMcpTool } from './tool.js';
import { storedLogin } from './oauth-provider.js';
import { neutralise } from '../safe-text.js';
import { definedOnly } from '../defined-only.js';

/** State of one server as `minicode mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  origin: string;
  /** The config file that names it, when it came from one. */
  file?: string;
  /** `disabled`: turned off in the config; `invalid`: an entry that cannot be used (see `error`). */
  state: 'ready' | 'failed' | 'exited' | 'disabled' | 'invalid';
  transport?: 'stdio' | 'http' | 'sse';
  /** The server's own tool names, after include/exclude. */
  tools: string[];
  /** The names the model sees, in the same order. */
  toolNames: string[];
  startupMs: number;
  error?: string;
  /** The sandbox mode a stdio server runs in (docs/sandbox.md); absent for HTTP servers. */
  sandbox?: SandboxMode;
}

/** Options of {@link startMcpServers}. */
export interface StartMcpOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The run's sandbox; each stdio server runs in its own profile of it (see `serverSandbox`); absent: none. */
  sandbox?: SandboxSettings | undefined;
  clock?: () => number;
  killGraceMs?: number;
  /** Most stderr lines kept as diagnostics per server (the rest are counted). Default 50. */
  maxStderrLines?: number;
  /** Diagnostics raised before start (config problems), delivered first. */
  notes?: readonly EventDraft[];
  /** Config entries not started (turned off, or unusable), listed by `statuses()` after the started ones. */
  skipped?: readonly McpServerStatus[];
}

/** Running MCP servers, as a tool source for runs. */
export interface McpManager extends ToolSource {
  statuses(): McpServerStatus[];
  /** Close one started server and start it again (its tools are named again); undefined for a name not started here. */
  reconnect(name: string): Promise<McpServerStatus | undefined>;
  /** Close every server (SIGTERM, then SIGKILL after the grace); idempotent. */
  close(): Promise<void>;
}

interface Entry {
  server: ResolvedServer;
  status: McpServerStatus;
  connection?: ServerConnection;
  secrets: string[];
  stderrLines: number;
  /** The last stderr lines (masked), for the message of a failed start. */
  stderrTail: string[];
}

/** Stderr lines a failed start quotes, and the characters kept of each. */
const TAIL_LINES = 3;
const TAIL_LINE_CHARS = 300;

function selectTools(server: ResolvedServer, tools: ServerTool[]): ServerTool[] {
  const include = server.config.includeTools;
  const exclude = new Set(server.config.excludeTools ?? []);
  return tools.filter((t) => (!include || include.includes(t.name)) && !exclude.has(t.name));
}

/** The hint of a failed start: a client's server is fixed in the client, a config's in the config. */
export function startAction(server: Pick<ResolvedServer, 'name' | 'origin' | 'file'>): string {
  if (server.origin === 'acp')
    return `check the mcpServers entry "${server.name}" your ACP client passed in session/new (its command or URL, args and env)`;
  return `check mcpServers.${server.name} in ${server.file ?? 'the config'} (try \`minicode mcp list\`)`;
}

/** Start every server in parallel; resolves when each is ready, failed or past its deadline. */
export async function startMcpServers(
  servers: readonly ResolvedServer[],
  options: StartMcpOptions,
): Promise<McpManager> {
  const clock = options.clock ?? Date.now;
  const maxStderr = options.maxStderrLines ?? 50;
  const pending: EventDraft[] = [...(options.notes ?? [])];
  let sink: ((d: EventDraft) => void) | undefined;
  let tools: AnyTool[] = [];
  let closed = false;
  const raise = (
    code: string,
    message: string,
    extra: Partial<{ action: string; category: 'CONFIGURATION_ERROR' | 'TOOL_ERROR' }> = {},
  ): void => {
    const d: EventDraft = {
      type: 'diagnostic.raised',
      payload: definedOnly({
        code,
        message,
        category: extra.category ?? 'TOOL_ERROR',
        action: extra.action || undefined,
      }),
      source: 'app',
    };
    if (sink) sink(d);
    else pending.push(d);
  };
  const entries: Entry[] = servers.map((server) => {
    const config = server.config;
    const secrets = configuredSecrets(isStdioServer(config) ? config.env : config.headers);
    const status: McpServerStatus = definedOnly({
      name: server.name,
      origin: server.origin,
      file: server.file,
      state: 'failed',
      tools: [],
      toolNames: [],
      startupMs: 0,
    });
    if (isStdioServer(config)) status.sandbox = serverSandbox(options.sandbox, config.sandbox)?.mode ?? 'off';
    return { server, secrets, stderrLines: 0, stderrTail: [], status };
  });

  /** Name every listed tool again (in config order, so names are stable) after any change. */
  const rebuild = (): void => {
    const taken = new Set<string>();
    const next: AnyTool[] = [];
    for (const entry of entries) {
      const listed =
        entry.status.state === 'ready' && entry.connection ? selectTools(entry.server, entry.connection.tools) : [];
      entry.status.tools = listed.map((t) => t.name);
      entry.status.toolNames = [];
      for (const tool of listed) {
        const name = mcpToolName(entry.server.name, tool.name, taken);
        entry.status.toolNames.push(name);
        next.push(
          createMcpTool({
            server: entry.server.name,
            tool,
            name,
            toolTimeoutMs: entry.server.toolTimeoutMs,
            secrets: entry.secrets,
            trusted: entry.server.config.trust === true,
            connection: () => (entry.status.state === 'ready' ? entry.connection : undefined),
          }),
        );
      }
    }
    tools = next;
  };

  const start = async (entry: Entry): Promise<void> => {
    const { server } = entry;
    // The SDK loads with the first server to start (a config whose entries are all skipped never
    // pays for it), and before the deadline runs: loading it is not the server's start-up.
    const { connectServer } = await import('./connection.js');
    const began = clock();
    let closeEarly: (() => Promise<void>) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not start within ${server.startupTimeoutMs} ms`)),
        server.startupTimeoutMs,
      );
    });
    try {
      const connection = await Promise.race([
        connectServer(
          server,
          definedOnly<ConnectOptions>({
            env: options.env,
            cwd: options.cwd,
            sandbox: options.sandbox,
            killGraceMs: options.killGraceMs,
            onStderr: (line) => {
              entry.stderrLines++;
              entry.stderrTail.push(maskValues(line, entry.secrets).slice(0, TAIL_LINE_CHARS));
              if (entry.stderrTail.length > TAIL_LINES) entry.stderrTail.shift();
              if (entry.stderrLines <= maxStderr)
                raise('MINICODE_E_MCP_STDERR', `${server.name}: ${maskValues(line, entry.secrets)}`);
              else if (entry.stderrLines === maxStderr + 1)
                raise(
                  'MINICODE_E_MCP_STDERR',
                  `${server.name}: further stderr lines not kept (more than ${maxStderr})`,
                );
            },
            onToolsChanged: () => rebuild(),
            // Its tokens join the values masked in what the server returns, refreshed ones too.
            authProvider: storedLogin(server, options.env, (value) => {
              if (!entry.secrets.includes(value)) entry.secrets.push(value);
            }),
          }),
          (close) => {
            closeEarly = close;
          },
        ),
        deadline,
      ]);
      entry.connection = connection;
      entry.status.state = 'ready';
      entry.status.transport = connection.transport;
      entry.status.startupMs = Math.max(0, clock() - began);
      if (closed) await connection.close();
    } catch (error) {
      entry.status.startupMs = Math.max(0, clock() - began);
      await closeEarly?.();
      const tail =
        entry.stderrTail.length > 0
          ? `; last stderr: ${entry.stderrTail.map((l) => JSON.stringify(l.trim())).join(' / ')}`
          : '';
      // Masked (the server's configured env and header values) and redacted (known secret
      // shapes and the environment's credentials): the command line or stderr may hold one.
      entry.status.error = neutralise(
        redactText(maskValues(`${error instanceof Error ? error.message : String(error)}${tail}`, entry.secrets), {
          secrets: credentialSecretsFromEnv(options.env),
        }),
      );
      raise('MINICODE_E_MCP_START', `MCP server ${server.name} failed to start: ${entry.status.error}`, {
        category: 'CONFIGURATION_ERROR',
        action: startAction(server),
      });
    } finally {
      clearTimeout(timer);
    }
  };

  /** A server that exits during the run: its tools fail with a clear message from then on. */
  const watch = (entry: Entry): void => {
    const conn = entry.connection;
    if (!conn) return;
    conn.onClosed = () => {
      if (closed || entry.status.state !== 'ready' || entry.connection !== conn) return;
      entry.status.state = 'exited';
      const exit = conn.exitStatus();
      const how = exit
        ? exit.signal
          ? `was killed by ${exit.signal}`
          : `exited with code ${exit.code}`
        : conn.transport === 'stdio'
          ? 'exited'
          : 'closed its connection';
      const tail =
        entry.stderrTail.length > 0
          ? `; last stderr: ${entry.stderrTail.map((l) => JSON.stringify(l.trim())).join(' / ')}`
          : '';
      entry.status.error = neutralise(redactText(`${how}${tail}`, { secrets: credentialSecretsFromEnv(options.env) }));
      raise('MINICODE_E_MCP_EXITED', `MCP server ${entry.server.name} ${entry.status.error}`, {
        action: `its tools fail until it is reconnected (/mcp reconnect ${entry.server.name} in chat) or the next run; see its stderr diagnostics`,
      });
    };
  };

  await Promise.all(entries.map(start));
  rebuild();
  for (const entry of entries) watch(entry);
  return {
    async reconnect(name) {
      const entry = entries.find((e) => e.server.name === name);
      if (!entry || closed) return undefined;
      const previous = entry.connection;
      delete entry.connection;
      entry.status = definedOnly({
        ...entry.status,
        state: 'failed',
        error: undefined,
        transport: undefined,
        tools: [],
        toolNames: [],
      });
      entry.stderrTail = [];
      await previous?.close();
      await start(entry);
      watch(entry);
      rebuild();
      return { ...entry.status, tools: [...entry.status.tools], toolNames: [...entry.status.toolNames] };
    },
    tools: () => tools,
    async ready() {
      // A refresh can trigger another (a server that changes its list again): wait until none is running.
      for (;;) {
        const pending = entries.map((e) => e.connection?.refreshing).filter((p): p is Promise<void> => p !== undefined);
        if (pending.length === 0) return;
        await Promise.all(pending);
      }
    },
    statuses: () => [
      ...entries.map((e) => ({ ...e.status, tools: [...e.status.tools], toolNames: [...e.status.toolNames] })),
      ...(options.skipped ?? []).map((s) => ({ ...s })),
    ],
    attach(emit) {
      sink = emit;
      for (const d of pending.splice(0)) emit(d);
      return () => {
        if (sink === emit) sink = undefined;
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(entries.map((e) => e.connection?.close()));
    },
  };
}
