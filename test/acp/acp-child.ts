import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ndJsonStream, type ClientConnection, type Stream } from '@agentclientprotocol/sdk';
import { CLI, ROOT } from '../helpers/cli.js';
import { createWireValidator } from './wire-schema.js';

/** One line seen on the wire, in the order it crossed (client->agent is `client`). */
export interface WireLine {
  from: 'client' | 'agent';
  text: string;
  message: unknown;
}

/** A spawned `minicode acp` with every line in both directions recorded and schema-checked. */
export interface AcpChild {
  child: ChildProcessWithoutNullStreams;
  /** An SDK stream over the child's stdio (for `client().connect(stream)`). */
  stream: Stream;
  wire: WireLine[];
  /** Schema violations, one string per problem, with the offending line. */
  violations: string[];
  stderr: () => string;
  /** Write raw bytes to the child's stdin, bypassing the SDK (recorded too). */
  writeRaw(text: string): void;
  /** Wait until a recorded line satisfies `predicate` (polls the log; no timing asserted). */
  waitFor(predicate: (line: WireLine) => boolean, what: string): Promise<WireLine>;
  /** End stdin and wait for the child to exit. */
  close(): Promise<number | null>;
}

/** Options of {@link spawnAcp}. */
export interface SpawnAcpOptions {
  /** The scripted test agent (default) or, when false, the real agent port. */
  scripted?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Spawn `node dist/cli/main.js acp ARGS` (the scripted test agent unless `scripted: false`). */
export function spawnAcp(args: string[] = [], options: SpawnAcpOptions = {}): AcpChild {
  const child = spawn(process.execPath, [CLI, 'acp', ...args], {
    cwd: options.cwd ?? ROOT,
    // A scratch MINICODE_HOME unless the test gives one: the real port checkpoints the workspace there.
    env: {
      ...process.env,
      MINICODE_HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-home-')),
      ...options.env,
      MINICODE_ACP_SCRIPTED: options.scripted === false ? '' : '1',
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const wire: WireLine[] = [];
  const violations: string[] = [];
  const validator = createWireValidator();
  const errChunks: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => errChunks.push(b));

  const recorder = (from: 'client' | 'agent') => {
    let rest = '';
    return (chunk: Buffer | Uint8Array) => {
      const lines = (rest + Buffer.from(chunk).toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const text of lines) {
        if (text.trim() === '') continue;
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          message = undefined;
        }
        wire.push({ from, text, message });
        // Garbage the test writes on purpose is not a protocol message to validate.
        if (message !== undefined && !(from === 'client' && raw.has(text))) {
          for (const problem of validator.check(from, message)) violations.push(`${from}: ${problem} in ${text}`);
        } else if (message === undefined && from === 'agent') violations.push(`agent wrote a non-JSON line: ${text}`);
      }
    };
  };
  const raw = new Set<string>();
  const recordAgent = recorder('agent');
  const recordClient = recorder('client');
  // Recorded before the SDK sees the bytes: the log order is the wire order.
  child.stdout.on('data', recordAgent);
  const stdin = Writable.toWeb(child.stdin) as WritableStream<Uint8Array>;
  const tappedStdin = new WritableStream<Uint8Array>({
    async write(chunk) {
      recordClient(chunk);
      const writer = stdin.getWriter();
      try {
        await writer.write(chunk);
      } finally {
        writer.releaseLock();
      }
    },
  });
  // Once the reader cancels (the client closed the connection), the agent may still write what
  // it had in flight: those bytes are recorded above, not enqueued into a closed stream.
  let reading = true;
  const stdout = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (b: Buffer) => {
        if (reading) controller.enqueue(new Uint8Array(b));
      });
      child.stdout.on('end', () => {
        if (!reading) return;
        reading = false;
        controller.close();
      });
    },
    cancel() {
      reading = false;
    },
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  return {
    child,
    stream: ndJsonStream(tappedStdin, stdout),
    wire,
    violations,
    stderr: () => Buffer.concat(errChunks).toString('utf8'),
    writeRaw(text) {
      for (const line of text.split('\n')) raw.add(line);
      // Whole lines straight to the pipe: they interleave with the SDK's messages line by line.
      const bytes = Buffer.from(text, 'utf8');
      recordClient(bytes);
      child.stdin.write(bytes);
    },
    async waitFor(predicate, what) {
      // A ceiling, not a wait: under load a child can take seconds to answer.
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const line = wire.find(predicate);
        if (line) return line;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`never saw ${what}; stderr: ${Buffer.concat(errChunks).toString('utf8')}`);
    },
    async close() {
      child.stdin.end();
      return exited;
    },
  };
}

/** The `session/update` payloads the agent sent for one session, in wire order. */
export function updatesFor(
  wire: WireLine[],
  sessionId: string,
  from = 0,
  to = wire.length,
): Array<Record<string, unknown>> {
  return wire
    .slice(from, to)
    .filter((l) => l.from === 'agent' && isUpdate(l.message) && l.message.params.sessionId === sessionId)
    .map((l) => (l.message as { params: { update: Record<string, unknown> } }).params.update);
}

function isUpdate(m: unknown): m is { params: { sessionId: string; update: Record<string, unknown> } } {
  return typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'session/update';
}

/** Index in the wire log of the agent's response to the client request with `id`. */
export function responseIndex(wire: WireLine[], id: unknown): number {
  return wire.findIndex(
    (l) =>
      l.from === 'agent' &&
      typeof l.message === 'object' &&
      l.message !== null &&
      !('method' in l.message) &&
      (l.message as { id?: unknown }).id === id,
  );
}

/** Index in the wire log of the client request with `method` whose params match. */
export function requestIndex(
  wire: WireLine[],
  method: string,
  match: (params: Record<string, unknown>) => boolean = () => true,
): number {
  return wire.findIndex((l) => {
    const m = l.message as { method?: unknown; id?: unknown; params?: Record<string, unknown> } | undefined;
    return l.from === 'client' && m?.method === method && 'id' in (m ?? {}) && match(m.params ?? {});
  });
}

/** `initialize` as a full client sends it: fs read/write and terminals offered, named `name` 1.0.0. */
export function initializeFullClient(conn: ClientConnection, name: string) {
  return conn.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name, version: '1.0.0' },
  });
}

/** `session/prompt` with one text block. */
export function promptText(conn: ClientConnection, sessionId: string, text: string) {
  return conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
}

/** The text of each update of kind `kind` (`agent_message_chunk`, `user_message_chunk`, ...), in order. */
export function chunkTexts(updates: Array<Record<string, unknown>>, kind: string): string[] {
  return updates.filter((u) => u.sessionUpdate === kind).map((u) => (u.content as { text: string }).text);
}

/** Each tool call's last reported status, in order of first report. */
export function finalToolStatuses(updates: Array<Record<string, unknown>>): Map<unknown, unknown> {
  const finals = new Map<unknown, unknown>();
  for (const u of updates)
    if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.status)
      finals.set(u.toolCallId, u.status);
  return finals;
}
