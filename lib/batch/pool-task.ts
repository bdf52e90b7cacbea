/**
 * The batch line as a pool task (`workers/batch-line.ts`), and the messages on the batch's
 * BroadcastChannel. Plain data only (structured clone): a line, its provider setup without
 * functions, the record. The channel carries what a task's one answer cannot: the
 * coordinator's abort to every run in flight, and a run's rate-limit, quota and settled
 * signals back while it runs.
 */
import type { BatchLine } from './input.js';
import type { BatchRecord } from './records.js';
import type { LineSetup, LineTrace } from './run-line.js';
import type { HarnessOptions } from './harness.js';
import type { SpanData } from '../telemetry/span.js';

/**
 * A setup that crosses a thread boundary: no function and no live object (a recording HTTP client,
 * MCP tools, a lent file system or terminal), and no environment variables (a line's run takes
 * its thread's own, see `LineContext.env`).
 */
export interface PlainLineSetup extends LineSetup {
  provider: LineSetup['provider'] & { http: undefined };
  environment: LineSetup['environment'] & { toolSource: undefined; fileSystem: undefined; terminal: undefined };
  /** The output schema travels as its JSON (a compiled validator is a function); the pool thread compiles it again ({@link lineSetupOfPlain}). */
  prompting: LineSetup['prompting'] & { outputSchema: undefined };
  outputSchema: { schema: Record<string, unknown>; source: string } | undefined;
}

/** `setup` as plain data for a pool thread; undefined when it cannot cross (a recording HTTP client, MCP tools, a lent file system or terminal). */
export function plainLineSetup(setup: LineSetup): PlainLineSetup | undefined {
  const { provider, environment } = setup;
  if (provider.http || environment.toolSource || environment.fileSystem || environment.terminal) return undefined;
  return {
    provider: { ...provider, http: undefined },
    limits: setup.limits,
    environment: { ...environment, env: {}, toolSource: undefined, fileSystem: undefined, terminal: undefined },
    prompting: { ...setup.prompting, outputSchema: undefined },
    folder: setup.folder,
    outputSchema: setup.prompting.outputSchema
      ? { schema: setup.prompting.outputSchema.schema, source: setup.prompting.outputSchema.source }
      : undefined,
  };
}

/** A pool thread's setup from the plain one: the output schema compiled again (ajv loads only then). */
export async function lineSetupOfPlain(plain: PlainLineSetup): Promise<LineSetup> {
  if (!plain.outputSchema) return plain;
  const { compileOutputSchema } = await import('../output-schema/compile.js');
  return {
    ...plain,
    prompting: {
      ...plain.prompting,
      outputSchema: compileOutputSchema(plain.outputSchema.schema, plain.outputSchema.source),
    },
  };
}

/** One line to run on a pool thread. */
export interface BatchLineTask {
  /** The run's number in its batch: ties the channel's signals to the run. */
  seq: number;
  line: BatchLine;
  setup: PlainLineSetup;
  baseDir: string;
  cwd: string;
  /** The shared store directory (each pool thread opens it once; lmdb-js shares the environment); none: not stored. */
  storeDir?: string;
  /** Name of the batch's BroadcastChannel. */
  channel: string;
  /** Set to 1 by the coordinator on abort: a run that starts afterwards settles as aborted at once. */
  aborted: Int32Array;
  /** Trace the run (its spans come back in the value). */
  trace?: LineTrace;
  /** Isolation and verify of the line, done on the pool thread around the run. */
  harness?: HarnessOptions & { outDir: string };
  /** Nice value the pool thread (and every subprocess it starts) runs at, at least (lib/batch/nice.ts); none: unchanged. */
  nice?: number;
  /** `Date.now()` when the coordinator queued the task: the wait in the pool's queue is added to the record's `timing.queueMs`. */
  sentAt: number;
  /** Post `settled` on the channel once the run's events are settled (the coordinator hands its slot on); default false. */
  signalSettled?: boolean;
}

/** A pool thread's own event-loop delay since it loaded the batch worker (monitorEventLoopDelay). */
export interface ThreadLag {
  threadId: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** The thread's nice value while it ran the batch's lines (absent where it cannot be read). */
  nice?: number;
}

/** What `batch-line` returns: the record and its thread's loop delay so far. */
export interface BatchLineValue {
  record: BatchRecord;
  thread: ThreadLag;
  /** The run's spans, when traced: exported by the coordinator. */
  spans?: SpanData[];
}

/** Messages on the batch's channel. */
export type ChannelMessage =
  /** Coordinator -> every pool thread: abort the batch's runs in flight. */
  | { type: 'abort'; reason: unknown }
  /** Pool thread -> coordinator: a run saw a 429/529. */
  | { type: 'rate-limit'; seq: number; retryAfterMs?: number }
  /** Pool thread -> coordinator: a run saw an exhausted usage quota. */
  | { type: 'quota'; seq: number; message?: string }
  /** Pool thread -> coordinator: a run's events are settled, its store acknowledgement pending (`RunSignals.onSettled`). */
  | { type: 'settled'; seq: number };
