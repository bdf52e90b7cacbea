/**
 * Worker: one batch line run on a pool thread, for the coordinator's `lib/batch/pool-runners.ts`.
 * Default export `(task) => result`; never throws: a failed run is a record. A pool thread
 * carries many runs at once (they mostly wait on HTTP), each with its own event loop share, so
 * the runs' decoding, scrubbing and reduction leave the coordinator's loop free for
 * scheduling, records, progress and signals. Compaction and counting inside a run go inline
 * (`runWorker` on a pool thread): no second pool.
 */
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import {
  lineSetupOfPlain,
  type BatchLineTask,
  type BatchLineValue,
  type ChannelMessage,
  type ThreadLag,
} from '../lib/batch/pool-task.js';
import type { BatchRecord } from '../lib/batch/records.js';
import { runLine } from '../lib/batch/run-line.js';
import { runIsolated } from '../lib/batch/harness.js';
import { raiseThreadNice } from '../lib/batch/nice.js';
import { failure, type WorkerResult } from '../lib/control/tasks.js';
import { toPlainError } from '../lib/errors.js';
import { openStore, type EventStore } from '../lib/store/index.js';
import { definedOnly } from '../lib/defined-only.js';

// This thread's loop carries the runs: its delay is reported with every record.
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

// One store per directory for the thread's life: opening an LMDB environment per run would cost more than the run.
const stores = new Map<string, EventStore>();
function storeFor(dir: string): EventStore {
  let store = stores.get(dir);
  if (!store) {
    store = openStore({ dir });
    stores.set(dir, store);
  }
  return store;
}

/** A batch's channel on this thread, open while it has runs here. */
interface Batch {
  channel: BroadcastChannel;
  abort: AbortController;
  active: number;
}
const batches = new Map<string, Batch>();

function join(name: string): Batch {
  let batch = batches.get(name);
  if (!batch) {
    const channel = new BroadcastChannel(name);
    const abort = new AbortController();
    // Every run of the batch on this thread listens on one signal.
    setMaxListeners(0, abort.signal);
    const joined: Batch = { channel, abort, active: 0 };
    channel.onmessage = (event) => {
      const message = (event as { data: ChannelMessage }).data;
      if (message.type === 'abort') joined.abort.abort(message.reason);
    };
    batch = joined;
    batches.set(name, batch);
  }
  batch.active++;
  return batch;
}

function leave(name: string, batch: Batch): void {
  if (--batch.active > 0) return;
  batch.channel.close();
  batches.delete(name);
}

/** This thread's nice value, once a task set it (undefined where it cannot be read). */
let threadNice: number | undefined;

/**
 * Lower this thread's priority to the batch's (lib/batch/nice.ts) before it starts anything:
 * every command forked from this thread afterwards inherits it.
 */
function applyNice(nice = 0): void {
  if (threadNice !== undefined && nice <= threadNice) return;
  threadNice = raiseThreadNice(nice);
}

function threadLag(): ThreadLag {
  return definedOnly({ threadId, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6, nice: threadNice });
}

const interrupted = { kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' };

/** Run `task.line` to its record. */
export default async function batchLineTask(task: BatchLineTask): Promise<WorkerResult<BatchLineValue>> {
  if (!task || typeof task.channel !== 'string' || !task.line || !(task.aborted instanceof Int32Array)) {
    return failure('MINICODE_E_WORKER_INPUT', 'batch-line needs `line`, `setup`, `channel` and `aborted`');
  }
  applyNice(task.nice);
  const batch = join(task.channel);
  const queuedMs = Math.max(0, Date.now() - (task.sentAt ?? Date.now()));
  try {
    // Aborted while queued: the abort broadcast reached no run of this batch here.
    if (Atomics.load(task.aborted, 0) === 1 && !batch.abort.signal.aborted) batch.abort.abort(interrupted);
    const post = (message: ChannelMessage): void => batch.channel.postMessage(message);
    const { seq } = task;
    let spans: BatchLineValue['spans'];
    const setup = lineSetupOfPlain(task.setup);
    // A rejection is the line's error record (runLine's), never an unhandled one here.
    setup.catch(() => undefined);
    const runOne = (line: BatchLineTask['line'], signal: AbortSignal | undefined): ReturnType<typeof runLine> =>
      runLine({
        line,
        setup: () => setup,
        baseDir: task.baseDir,
        cwd: task.cwd,
        signal,
        store: task.storeDir ? storeFor(task.storeDir) : undefined,
        onRateLimit: (retryAfterMs) =>
          post(retryAfterMs === undefined ? { type: 'rate-limit', seq } : { type: 'rate-limit', seq, retryAfterMs }),
        onQuota: (text) => post(text === undefined ? { type: 'quota', seq } : { type: 'quota', seq, message: text }),
        onSettled: task.signalSettled ? () => post({ type: 'settled', seq }) : undefined,
        trace: task.trace,
        onSpans: (s) => (spans = s),
      });
    // Isolation and verify here, around the run: their subprocesses start from this thread, not the coordinator's loop.
    const runAll = (): Promise<BatchRecord> =>
      task.harness
        ? runIsolated(
            task.line,
            {
              ...task.harness,
              baseDir: task.baseDir,
              cwd: task.cwd,
              setup: async () => task.setup,
              signal: batch.abort.signal,
            },
            runOne,
          )
        : runOne(task.line, batch.abort.signal);
    const record = await runAll();
    if (record.timing) record.timing = { ...record.timing, queueMs: record.timing.queueMs + queuedMs };
    // The record is only final once its events are on disk: the thread may be ended when idle.
    // Its session's events only (other runs' later writes are theirs to wait for); a record
    // without a session waits for everything this thread wrote.
    if (task.storeDir) await stores.get(task.storeDir)?.flushed(record.sessionId);
    return { ok: true, value: definedOnly({ record, thread: threadLag(), spans }) };
  } catch (error) {
    return { ok: false, error: toPlainError(error) };
  } finally {
    leave(task.channel, batch);
  }
}
