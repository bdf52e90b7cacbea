/**
 * Batch runs on the process's one worker pool: the coordinator (main thread) keeps
 * scheduling, records, progress and signals; each line is a `batch-line` pool task
 * (`workers/batch-line.ts`), many per thread (`concurrentTasksPerWorker`), on the same pool
 * that folds and counts. One event loop doing all the runs would lag by a whole round of every
 * run's steps per turn at a high concurrency (bench/batch measures it); with the runs on the pool
 * the coordinator's loop stays near idle.
 *
 * An abort is broadcast on the batch's channel so every run in flight settles as aborted, with
 * its terminal events stored (Piscina's own task signal would end the thread, and with it the
 * other runs it carries, without their terminal events); a shared flag catches runs that
 * start after it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import { DEFAULT_TASKS_PER_WORKER, holdPool, runWorker } from '../control/pool.js';
import type { BatchLine } from './input.js';
import type { BatchLineTask, BatchLineValue, ChannelMessage, PlainLineSetup, ThreadLag } from './pool-task.js';
import { setupErrorRecord, type BatchRecord } from './records.js';
import type { LineTrace, RunSignals } from './run-line.js';
import type { HarnessOptions } from './harness.js';
import { DEFAULT_POOL_NICE } from './nice.js';
import { DEFAULT_MAX_ACKNOWLEDGING } from './scheduler.js';

/** Options of {@link createPoolRunners}. */
export interface PoolRunnerOptions {
  /** Shared store directory; none: runs are not stored. */
  storeDir?: string | undefined;
  /** Nice value of the pool threads running the lines, and so of their subprocesses (0: the coordinator's); default {@link DEFAULT_POOL_NICE}. */
  nice?: number | undefined;
}

/** Batch runs dispatched to the pool. */
export interface PoolRunners {
  run(
    line: BatchLine,
    setup: PlainLineSetup,
    where: { baseDir: string; cwd: string; trace?: LineTrace; harness?: HarnessOptions & { outDir: string } },
    signals: RunSignals,
  ): Promise<BatchRecord>;
  /** Abort every run in flight (they settle as aborted records). */
  abort(): void;
  /** Stop listening and let go of the pool (closed when no one else holds it); each pool thread's event-loop delay. */
  close(): Promise<ThreadLag[]>;
}

/**
 * Tasks per pool thread for a batch of `concurrency` runs on `threads` threads: room for every
 * run the scheduler allows (it, with its backoff, bounds the runs in flight, not a queue inside
 * the pool; a real provider's runs wait seconds on HTTP): `concurrency` executing and the
 * settled ones waiting for the store's acknowledgement (scheduler.ts), never below the pool's default.
 */
export function tasksPerThreadFor(concurrency: number, threads: number): number {
  return Math.max(
    DEFAULT_TASKS_PER_WORKER,
    Math.ceil((concurrency + DEFAULT_MAX_ACKNOWLEDGING) / Math.max(1, threads)),
  );
}

const interrupted = { kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' };

/** Dispatch lines to the pool; the pool itself starts with the first line. */
export function createPoolRunners(options: PoolRunnerOptions = {}): PoolRunners {
  // libuv starts its shared thread pool (fs, dns, zlib work of every thread) on the first request,
  // from the requesting thread, and new threads take that thread's nice value: the first request
  // made here, before any pool thread lowers its priority, keeps the coordinator's file writes at its own.
  fs.stat('.', () => {});
  const name = `minicode-batch:${randomUUID()}`;
  const channel = new BroadcastChannel(name);
  // Only runs in flight should keep the process alive, not the channel.
  channel.unref();
  const aborted = new Int32Array(new SharedArrayBuffer(4));
  const signals = new Map<number, RunSignals>();
  const lags = new Map<number, ThreadLag>();
  const release = holdPool();
  let seq = 0;
  channel.onmessage = (event) => {
    const message = (event as { data: ChannelMessage }).data;
    if (message.type === 'rate-limit') signals.get(message.seq)?.onRateLimit?.(message.retryAfterMs);
    else if (message.type === 'quota') signals.get(message.seq)?.onQuota?.(message.message);
    else if (message.type === 'settled') signals.get(message.seq)?.onSettled?.();
  };
  return {
    async run(line, setup, where, lineSignals) {
      const id = ++seq;
      signals.set(id, lineSignals);
      const task: BatchLineTask = {
        seq: id,
        line,
        setup,
        baseDir: where.baseDir,
        cwd: where.cwd,
        channel: name,
        aborted,
        sentAt: Date.now(),
        nice: options.nice ?? DEFAULT_POOL_NICE,
      };
      if (options.storeDir) task.storeDir = options.storeDir;
      if (lineSignals.onSettled) task.signalSettled = true;
      if (where.trace) task.trace = where.trace;
      if (where.harness) task.harness = where.harness;
      const result = await runWorker<BatchLineValue>('batch-line', task);
      signals.delete(id);
      if (result.ok) {
        lags.set(result.value.thread.threadId, result.value.thread);
        if (result.value.spans) lineSignals.onSpans?.(result.value.spans);
        return result.value.record;
      }
      // A thread that died took the run with it: an error record (run again with --retry-errors).
      return setupErrorRecord(line, {
        category: 'INTERNAL_ERROR',
        code: result.error.code,
        message: result.error.message,
      });
    },
    abort() {
      Atomics.store(aborted, 0, 1);
      channel.postMessage({ type: 'abort', reason: interrupted } satisfies ChannelMessage);
    },
    async close() {
      channel.close();
      await release();
      return [...lags.values()];
    },
  };
}
