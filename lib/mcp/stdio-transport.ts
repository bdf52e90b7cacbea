/**
 * A stdio transport for the MCP client that owns its subprocess the way minicode owns every
 * other one: the server runs in its own process group (so `npx`-style launchers and whatever
 * they start die together), gets exactly the environment it is given, and its stderr is a
 * stream the caller reads (never the terminal). Closing ends stdin, sends SIGTERM to the group,
 * and SIGKILL after a grace period; a process-exit hook SIGKILLs any group still alive, so a
 * second Ctrl+C or a crash leaves no orphans either.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { launch, signalProcess } from '../sandbox/launch.js';
import type { SandboxSettings } from '../sandbox/settings.js';
import { definedOnly } from '../defined-only.js';
import { reportDropped } from '../debug.js';

/** Largest single message accepted from a server (a line of JSON): 32 MiB. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Process groups still alive, killed on process exit. */
const LIVE_GROUPS = new Set<number>();
let exitHookInstalled = false;

/** Signal a server's process group (it was launched detached: its pid leads its group). */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  signalProcess(pid, signal, true);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of LIVE_GROUPS) killGroup(pid, 'SIGKILL');
  });
}

/** Options of {@link ProcessGroupStdioTransport}. */
export interface StdioTransportOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** The server's sandbox (lib/sandbox); absent: none. */
  sandbox?: SandboxSettings | undefined;
  /** The writable workspace of its sandbox under `workspace-write`; default `cwd`. */
  workspace?: string;
  /** Wait between SIGTERM and SIGKILL. Default 2,000 ms. */
  killGraceMs?: number;
  /** Receives the server's stderr from the moment it is spawned (a server failing at start says why there). */
  onStderr?: (stream: Readable) => void;
}

/** The SDK's `Transport` over a subprocess in its own process group. */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private exited: Promise<void> | undefined;
  /** How the server process ended (after it did): its exit code, or the signal that ended it. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The server's pid (after `start`). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawn the server; rejects when the command cannot be started. */
  start(): Promise<void> {
    installExitHook();
    return new Promise((resolve, reject) => {
      const child = launch(
        this.options.command,
        [...this.options.args],
        definedOnly({
          cwd: this.options.cwd,
          env: this.options.env,
          stdin: true,
          detached: true,
          sandbox: this.options.sandbox,
          workspace: this.options.workspace || undefined,
        }),
      );
      this.child = child;
      if (child.stderr) this.options.onStderr?.(child.stderr);
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) LIVE_GROUPS.add(child.pid);
        resolve();
      });
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        if (child.pid !== undefined) LIVE_GROUPS.delete(child.pid);
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server logging to stdout): report it, keep reading.
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
    });
  }

  /** Write one message; resolves once written (or drained). */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error('MCP server is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** End the server: stdin closed, SIGTERM to its group, SIGKILL after the grace period. */
  async close(): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    this.buffer.clear();
    if (!child || child.pid === undefined || !exited) return;
    const pid = child.pid;
    try {
      child.stdin?.end();
    } catch (error) {
      // Already closed: the signals below stop the server either way.
      reportDropped('mcp: closing a server stdin', error);
    }
    killGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace'>((resolve) => {
      timer = setTimeout(() => resolve('grace'), this.options.killGraceMs ?? 2_000);
    });
    await Promise.race([exited, graceOver]);
    clearTimeout(timer);
    // Whether the leader left on SIGTERM or not, members of its group may still live (a
    // launcher's child that ignores SIGTERM): SIGKILL the group; an empty group makes it a no-op.
    killGroup(pid, 'SIGKILL');
    LIVE_GROUPS.delete(pid);
  }
}
