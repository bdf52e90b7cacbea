import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { EventDraft } from '../events/index.js';
import { MinicodeError } from '../errors.js';
import type { EventSink } from '../decode/types.js';
import { scrubEnvironment } from '../policy/credentials.js';
import type { NativeAgent } from '../decode/formats.js';
import { AGENT_SPECS } from './agents.js';
import { NATIVE_AGENT_DECODERS } from './index.js';
import { definedOnly } from '../defined-only.js';
import { dropExpected } from '../debug.js';

/** Options of {@link superviseAgent}. */
export interface SuperviseOptions {
  agent: NativeAgent;
  prompt: string;
  /** Working directory of the child; default `process.cwd()`. */
  cwd?: string | undefined;
  /** Environment to start from (credentials are scrubbed from it); default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** More credential names the child may keep (exact or `PREFIX_*`). */
  keepCredentials?: readonly string[] | undefined;
  /** Extra arguments appended after the agent's own (e.g. `--model`). */
  extraArgs?: readonly string[] | undefined;
  /** Aborting sends SIGTERM, then SIGKILL after `killGraceMs`; the run settles `task.cancelled`. */
  signal?: AbortSignal | undefined;
  /** Delay between SIGTERM and SIGKILL; default 2000 ms. */
  killGraceMs?: number | undefined;
  /** Receive drafts here instead of through `events`. */
  onEvent?: EventSink | undefined;
  /**
   * Receive drafts here, one batch per stdout/stderr chunk (preferred over `onEvent`). A returned
   * promise pauses the child's stdout until it resolves, so the pipe slows the agent down.
   */
  write?: ((drafts: EventDraft[]) => Promise<void> | undefined) | undefined;
  /**
   * Events buffered in `events` before the child's stdout is paused, once `events` is being
   * read; default 1024. Without a reader (only `done` awaited) drafts buffer without bound.
   */
  highWaterMark?: number | undefined;
  /** Longest stdout line, in characters; default 16 MiB. */
  maxFrameBytes?: number | undefined;
}

/** How the child ended. */
export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when minicode aborted it. */
  aborted: boolean;
}

/** A running supervised agent. */
export interface SupervisedAgent {
  /** Decoded drafts in order; ends after the child exited and the decoder settled. Empty when `onEvent` is given. */
  events: AsyncIterable<EventDraft>;
  /** Resolves when the child has exited and every draft has been produced. */
  done: Promise<AgentExit>;
  pid: number | undefined;
  /** The command line that was started (for logs). */
  argv: readonly string[];
  /**
   * Stop the child (SIGTERM, then SIGKILL after `killGraceMs`) without counting it as aborted:
   * its exit is decoded as any other, and the caller decides what the run's outcome is.
   */
  stop(): void;
}

/**
 * Resolve an agent's executable: the override variable (`MINICODE_CODEX_BIN`, ...) or the
 * binary on PATH. A missing executable is a setup failure with an actionable message.
 */
export function resolveAgentBinary(agent: NativeAgent, env: NodeJS.ProcessEnv = process.env): string {
  const spec = AGENT_SPECS[agent];
  const override = env[spec.binEnv];
  if (override) {
    if (isExecutableFile(override)) return override;
    throw new MinicodeError(
      'MINICODE_E_AGENT_NOT_INSTALLED',
      `${spec.binEnv} points at ${override}, which is not an executable file`,
      {
        action: `fix ${spec.binEnv} or unset it to use \`${spec.binary}\` from PATH`,
        data: { agent, binary: override },
      },
    );
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, spec.binary);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new MinicodeError(
    'MINICODE_E_AGENT_NOT_INSTALLED',
    `${agent} is not installed: \`${spec.binary}\` was not found on PATH`,
    {
      action: `${spec.install}, or set ${spec.binEnv} to its path`,
      data: { agent, binary: spec.binary },
    },
  );
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    // A .js/.mjs stand-in runs under this node; anything else must be executable itself.
    if (/\.(?:c|m)?js$/.test(file)) return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch (error) {
    dropExpected('native agent: checking an executable', error, 'ENOENT', 'EACCES', 'ENOTDIR');
    return false;
  }
}

/**
 * Start a native agent CLI with its non-interactive flags and decode it live: stdout bytes go to
 * the decoder, stderr text to `decoder.stderr`, the exit to `decoder.exit` (after stdout is
 * drained). The child's environment has every credential removed except the agent's own.
 * Throws `MINICODE_E_AGENT_NOT_INSTALLED` (synchronously) when the executable is missing.
 */
export function superviseAgent(options: SuperviseOptions): SupervisedAgent {
  const spec = AGENT_SPECS[options.agent];
  const baseEnv = options.env ?? process.env;
  const binary = resolveAgentBinary(options.agent, baseEnv);
  const args = [...spec.args(options.prompt), ...(options.extraArgs ?? [])];
  const useNode = /\.(?:c|m)?js$/.test(binary);
  const command = useNode ? process.execPath : binary;
  const argv = useNode ? [binary, ...args] : args;
  const env = scrubEnvironment(baseEnv, {
    keep: [...spec.keepCredentials, ...(options.keepCredentials ?? []), spec.binEnv],
  });

  const queue = createDraftQueue(options.highWaterMark ?? 1024);
  let batch: EventDraft[] = [];
  const sink: EventSink = options.write ? (d) => void batch.push(d) : (options.onEvent ?? queue.push);
  const flush = (): Promise<void> | undefined => {
    if (!options.write || batch.length === 0) return undefined;
    const drafts = batch;
    batch = [];
    return options.write(drafts);
  };
  const decoder = NATIVE_AGENT_DECODERS[options.agent](
    definedOnly({
      onEvent: sink,
      maxFrameBytes: options.maxFrameBytes,
    }),
  );

  const child = spawn(command, argv, { cwd: options.cwd ?? process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  queue.onPressure((paused) => (paused ? child.stdout.pause() : child.stdout.resume()));
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (): void => {
    if (killTimer || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), options.killGraceMs ?? 2000);
    killTimer.unref();
  };
  const onAbort = () => {
    if (aborted || child.exitCode !== null || child.signalCode !== null) return;
    aborted = true;
    terminate();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  child.stdout.on('data', (chunk: Buffer) => {
    decoder.feed(chunk);
    const wait = flush();
    if (wait) {
      child.stdout.pause();
      void wait.then(() => child.stdout.resume());
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    decoder.stderr(text);
    void flush();
  });

  const done = new Promise<AgentExit>((resolve, reject) => {
    child.on('error', (error) => {
      // spawn failed after resolution (raced with an uninstall, or not executable after all).
      options.signal?.removeEventListener('abort', onAbort);
      const failure = new MinicodeError(
        'MINICODE_E_AGENT_NOT_INSTALLED',
        `could not start ${binary}: ${error.message}`,
        {
          action: `${spec.install}, or set ${spec.binEnv} to its path`,
          cause: error,
        },
      );
      queue.fail(failure);
      reject(failure);
    });
    // 'close' comes after stdout and stderr ended: every byte has been fed before the exit.
    child.on('close', (code, signal) => {
      if (killTimer) clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      decoder.end();
      if (aborted) decoder.cancel(`aborted by minicode (${signal ?? `exit ${code}`})`);
      else decoder.exit(code, signal);
      void flush();
      queue.close();
      resolve({ code, signal, aborted });
    });
  });
  // The caller may only consume `events`; a spawn failure must not become an unhandled rejection.
  done.catch(() => undefined);
  return { events: queue, done, pid: child.pid, argv: [command, ...argv], stop: terminate };
}

interface DraftQueue extends AsyncIterable<EventDraft> {
  push: EventSink;
  close(): void;
  fail(error: Error): void;
  onPressure(listener: (paused: boolean) => void): void;
}

/**
 * An async queue of drafts with a high-water mark: above it the producer is asked to pause
 * (the child's stdout stops being read, so the pipe's own back-pressure slows the agent), and
 * below half of it to resume.
 */
function createDraftQueue(highWaterMark: number): DraftQueue {
  let items: EventDraft[] = [];
  let head = 0;
  let closed = false;
  let failure: Error | undefined;
  let waiter: (() => void) | undefined;
  let paused = false;
  // Back-pressure only once someone reads: a caller that only awaits `done` must not stall the
  // child forever (its drafts then buffer without bound, which the option docs say).
  let reading = false;
  let pressure: (paused: boolean) => void = () => undefined;
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  return {
    push(event) {
      items.push(event);
      if (reading && !paused && items.length - head >= highWaterMark) {
        paused = true;
        pressure(true);
      }
      wake();
    },
    close() {
      closed = true;
      wake();
    },
    fail(error) {
      failure = error;
      closed = true;
      wake();
    },
    onPressure(listener) {
      pressure = listener;
    },
    async *[Symbol.asyncIterator]() {
      reading = true;
      for (;;) {
        if (head < items.length) {
          const item = items[head++] as EventDraft;
          if (head > 1024 && head * 2 > items.length) {
            items = items.slice(head);
            head = 0;
          }
          if (paused && items.length - head <= highWaterMark / 2) {
            paused = false;
            pressure(false);
          }
          yield item;
          continue;
        }
        if (failure) throw failure;
        if (closed) return;
        await new Promise<void>((resolve) => (waiter = resolve));
      }
    },
  };
}
