/**
 * One connected MCP server: the SDK client over stdio (our process-group transport), Streamable
 * HTTP, or SSE (tried when Streamable HTTP is refused, or asked for with `type: "sse"`). The SDK
 * is imported here and this module is only loaded when a server is configured, so a run without
 * MCP servers never pays for it.
 */
import { serverSandbox } from '../sandbox/settings.js';
import type { SandboxSettings } from '../sandbox/settings.js';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
  type Tool as SdkTool,
} from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { isStdioServer, type ResolvedServer } from './config.js';
import { serverEnvironment } from './env.js';
import { ProcessGroupStdioTransport } from './stdio-transport.js';
import type { McpCallResult } from './output.js';
import fs from 'node:fs';
import path from 'node:path';
import { definedOnly } from '../defined-only.js';
import { dropExpected, reportDropped } from '../debug.js';

/** A tool as the server lists it. */
export interface ServerTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** The server says the tool changes nothing (`annotations.readOnlyHint`): its own claim, not a guarantee. */
  readOnly?: boolean;
}

/** Options of {@link connectServer}. */
export interface ConnectOptions {
  /** minicode's environment: the base of a stdio server's env and the source of `${VAR}`. */
  env: NodeJS.ProcessEnv;
  /** Working directory of a stdio server without `cwd` (relative `cwd`s resolve against it); the workspace of its sandbox. */
  cwd: string;
  /** The run's sandbox; absent: none. */
  sandbox?: SandboxSettings | undefined;
  /** Each stderr line of a stdio server (bounded to 2,000 chars). */
  onStderr?: (line: string) => void;
  /** The server said its tool list changed; `tools` is the re-listed set. */
  onToolsChanged?: (tools: ServerTool[]) => void;
  /** SIGTERM -> SIGKILL grace of a stdio server. Default 2,000 ms. */
  killGraceMs?: number;
  /** Most tools kept from one server (the rest are reported by the caller). Default 1,000. */
  maxTools?: number;
  /** The stored OAuth login of a URL server (`minicode mcp login`): its token is sent and refreshed when refused. */
  authProvider?: OAuthClientProvider;
}

/** Options of one call. */
export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (message: string) => void;
}

/** A server that answered `initialize` and `tools/list`. */
export interface ServerConnection {
  tools: ServerTool[];
  /** The transport actually used: `stdio`, `http` or `sse`. */
  transport: 'stdio' | 'http' | 'sse';
  pid?: number;
  call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<McpCallResult>;
  close(): Promise<void>;
  /** How a stdio server's process ended, once it did; undefined for URL servers and while it runs. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Set by the owner: called once when the connection ends (the server exited or was closed). */
  onClosed?: () => void;
  /** The re-listing a `tools/list_changed` started, until it settles. */
  refreshing?: Promise<void>;
}

const CLIENT_INFO = { name: 'minicode', version: '0.1.0' };
const MAX_STDERR_LINE = 2_000;

function pipeLines(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    // A server writing one endless line must not grow this buffer without bound.
    if (pending.length > MAX_STDERR_LINE) {
      lines.push(pending);
      pending = '';
    }
    for (const line of lines) if (line.trim() !== '') onLine(line.slice(0, MAX_STDERR_LINE));
  });
  stream.on('end', () => {
    if (pending.trim() !== '') onLine(pending.slice(0, MAX_STDERR_LINE));
  });
}

async function listAllTools(client: Client, max: number): Promise<ServerTool[]> {
  const tools: ServerTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    for (const t of page.tools as SdkTool[]) {
      if (tools.length >= max) return tools;
      tools.push(
        definedOnly({
          name: t.name,
          description: t.description || undefined,
          inputSchema: t.inputSchema as Record<string, unknown>,
          readOnly: t.annotations?.readOnlyHint === true || undefined,
        }),
      );
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The network cause under a failed fetch (`ECONNREFUSED 127.0.0.1:9`, `ENOTFOUND host`), if any. */
function networkCause(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, address, port, hostname, cause, errors } = e as {
      code?: unknown;
      address?: unknown;
      port?: unknown;
      hostname?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) {
      const host = typeof address === 'string' ? address : typeof hostname === 'string' ? hostname : undefined;
      return host === undefined ? code : `${code} ${host}${typeof port === 'number' ? `:${port}` : ''}`;
    }
    queue.push(cause, ...(Array.isArray(errors) ? errors : []));
  }
  return undefined;
}

/** The HTTP status an SDK transport error carries (`StreamableHTTPError`, `SseError`: a numeric `code`), if any. */
function httpStatus(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : undefined;
}

/**
 * The HTTP status of a refused credential: a 401 or 403 answer, or the SDK's client auth giving
 * up (a stored login that can no longer be refreshed counts as a 401); undefined otherwise.
 */
function authFailure(error: unknown): 401 | 403 | undefined {
  const status = httpStatus(error);
  if (status === 401 || status === 403) return status;
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'McpLoginRequired' || name === 'UnauthorizedError' ? 401 : undefined;
}

/** What a refused server start says to do: log in, fix the header's token, or (a client's server) ask the client. */
function refusal(server: ResolvedServer, status: 401 | 403): string {
  const config = server.config;
  const headers = isStdioServer(config) ? undefined : config.headers;
  const hasToken = Object.keys(headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  const what =
    status === 401
      ? 'the server wants authorization (HTTP 401)'
      : 'the server refused the credentials it was given (HTTP 403)';
  if (server.origin === 'acp') return `${what}; the ACP client that passed this server must give it credentials`;
  if (hasToken)
    return `${what}; check the token in the "Authorization" header of mcpServers.${server.name}, or remove the header and run minicode mcp login ${server.name}`;
  return `${what}; run minicode mcp login ${server.name} (or give a token in the entry's "headers")`;
}

/** A URL as failures show it: no user info, query or fragment (they may carry credentials). */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Why a server failed to start, actionable: a stdio server's command and how it exited, a URL
 * server's address and the network cause, then the SDK's own message.
 */
function startFailure(server: ResolvedServer, error: unknown, stdio: ProcessGroupStdioTransport | undefined): Error {
  const message = error instanceof Error ? error.message : String(error);
  const config = server.config;
  if (isStdioServer(config)) {
    const command = [config.command, ...(config.args ?? [])].join(' ');
    const exit = stdio?.exit;
    const how = exit ? (exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`) : undefined;
    return new Error(how ? `\`${command}\` ${how} before it answered (${message})` : `\`${command}\`: ${message}`);
  }
  const status = authFailure(error);
  // The SDK's words for a refused credential ("SSE error: Non-200 status code (401)") do not say what to do.
  if (status !== undefined) return new Error(`${shownUrl(config.url)}: ${refusal(server, status)}`);
  const cause = networkCause(error);
  return new Error(`${shownUrl(config.url)}: ${message}${cause && !message.includes(cause) ? ` (${cause})` : ''}`);
}

async function openTransport(
  server: ResolvedServer,
  options: ConnectOptions,
  client: Client,
  onStdio: (transport: ProcessGroupStdioTransport) => void,
): Promise<{ transport: Transport; kind: ServerConnection['transport']; pid?: number }> {
  const config = server.config;
  if (isStdioServer(config)) {
    const transport = new ProcessGroupStdioTransport(
      definedOnly({
        command: config.command,
        args: config.args ?? [],
        env: serverEnvironment(options.env, config.env),
        cwd: config.cwd ? path.resolve(options.cwd, config.cwd) : options.cwd,
        workspace: options.cwd,
        sandbox: serverSandbox(options.sandbox, config.sandbox),
        killGraceMs: options.killGraceMs,
        onStderr: options.onStderr ? (stream: Readable) => pipeLines(stream, options.onStderr!) : undefined,
      }),
    );
    onStdio(transport);
    await client.connect(transport);
    return definedOnly({ transport, kind: 'stdio', pid: transport.pid });
  }
  const url = new URL(config.url);
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const authProvider = options.authProvider;
  if (config.type !== 'sse') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(url, definedOnly({ requestInit, authProvider }));
    try {
      await client.connect(transport);
      return { transport, kind: 'http' };
    } catch (error) {
      // Only an explicit Streamable HTTP entry fails here; an untyped URL may be an SSE-only server,
      // but a refused credential is not a transport question.
      if (config.type === 'http' || config.type === 'streamable-http' || authFailure(error) !== undefined) throw error;
      await transport.close().catch(() => {});
    }
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const transport = new SSEClientTransport(
    url,
    definedOnly({
      authProvider,
      requestInit,
      eventSourceInit: requestInit
        ? {
            fetch: (u: string | URL, init?: RequestInit) =>
              fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...config.headers } }),
          }
        : undefined,
    }),
  );
  await client.connect(transport);
  return { transport, kind: 'sse' };
}

/**
 * The roots a server is given (`roots/list`): the workspace, then each directory its own command
 * line names. A server that takes its folders from the client's roots (the
 * reference filesystem server replaces its arguments with them) keeps the folders it was started
 * with, and is told the workspace besides.
 */
function serverRoots(server: ResolvedServer, cwd: string): { uri: string; name: string }[] {
  const workspace = path.resolve(cwd);
  const config = server.config;
  // Relative arguments are the server's: they resolve against its own working directory.
  const base = isStdioServer(config) && config.cwd ? path.resolve(workspace, config.cwd) : workspace;
  const named = isStdioServer(config)
    ? (config.args ?? [])
        .filter((a) => a !== '' && !a.startsWith('-'))
        .map((a) => path.resolve(base, a))
        .filter(isDirectory)
    : [];
  return [...new Set([workspace, ...named])].map((dir) => ({
    uri: pathToFileURL(dir).href,
    name: path.basename(dir) || dir,
  }));
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch (error) {
    dropExpected('mcp: a server argument as a root', error, 'ENOENT', 'ENOTDIR', 'EACCES');
    return false;
  }
}

/**
 * Connect to one server and list its tools. Rejects on failure; the caller applies the
 * start-up deadline (closing the connection it gets late) and turns failures into diagnostics.
 * `onStarted` receives the closer as soon as a transport exists, so a timed-out start can still
 * kill the process.
 */
export async function connectServer(
  server: ResolvedServer,
  options: ConnectOptions,
  onStarted?: (close: () => Promise<void>) => void,
): Promise<ServerConnection> {
  const roots = serverRoots(server, options.cwd);
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: false } } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => {});
  };
  onStarted?.(close);
  const maxTools = options.maxTools ?? 1_000;
  let stdio: ProcessGroupStdioTransport | undefined;
  let opened: Awaited<ReturnType<typeof openTransport>>;
  let tools: ServerTool[];
  try {
    opened = await openTransport(server, options, client, (t) => {
      stdio = t;
    });
    tools = await listAllTools(client, maxTools);
  } catch (error) {
    throw startFailure(server, error, stdio);
  }
  const connection = definedOnly<ServerConnection>({
    tools,
    transport: opened.kind,
    pid: opened.pid,
    exitStatus: () => stdio?.exit,
    async call(tool, args, callOptions) {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: callOptions.signal,
        timeout: callOptions.timeoutMs,
        // Progress notifications restart the deadline (a long build reporting progress is alive).
        resetTimeoutOnProgress: true,
        onprogress: (p) =>
          callOptions.onProgress?.(p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ''}`),
      });
      return result as McpCallResult;
    },
    close,
  });
  client.onclose = () => connection.onClosed?.();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    // Set before the call that caused the change returns (the server sends the notification
    // first), so the next step can wait for the new list.
    const refresh = (async () => {
      try {
        const next = await listAllTools(client, maxTools);
        connection.tools = next;
        options.onToolsChanged?.(next);
      } catch (error) {
        // A failed re-list keeps the previous tools; the next call reports any real failure.
        reportDropped('mcp: re-listing tools', error);
      }
    })();
    connection.refreshing = refresh;
    void refresh.finally(() => {
      if (connection.refreshing === refresh) delete connection.refreshing;
    });
    return refresh;
  });
  return connection;
}
