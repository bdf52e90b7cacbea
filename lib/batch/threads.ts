/**
 * Runner threads for a local batch: the coordinator (main thread) keeps scheduling, records,
 * progress and signals; the runs themselves execute in `count` worker threads
 * (`workers/batch-runner.js`), each line sent to the thread with the fewest runs in flight.
 * Measured in bench/batch: at concurrency 64 one event loop doing all the runs lags by a whole
 * round of 64 runs' steps per turn, well past the 50 ms target; with the runs on threads the
 * coordinator's loop stays near idle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BatchLine } from './input.js';
import type { BatchRecord } from './records.js';
import type { RunSignals } from './run-line.js';
import type { FromRunner, PlainLineSetup, RunnerData, ToRunner } from './thread-protocol.js';

/** Options of {@link startRunnerThreads}. */
export interface RunnerThreadOptions {
  /** Threads to start, >= 1. */
  count: number;
  /** Shared store directory; none: runs are not stored. */
  storeDir?: string;
  /** Directory of the compiled `batch-runner.js`; default: found from this module. */
  workersDir?: string;
}

/** Started runner threads. */
export interface RunnerThreads {
  run(line: BatchLine, setup: PlainLineSetup, where: { baseDir: string; cwd: string }, signals: RunSignals): Promise<BatchRecord>;
  /** Abort every run in flight (they settle as aborted records). */
  abort(): void;
  /** Let runs in flight finish, close the threads' stores, stop the threads; each thread's event-loop delay. */
  close(): Promise<{ lagP99Ms: number; lagMaxMs: number }[]>;
}

/**
 * Default runner threads: one per core but one (the coordinator, LMDB's writer and a loopback
 * provider need a core too), at least 1, at most 4. Measured on 2 cores (bench/batch, 1,000
 * runs): 1 runner thread 130 runs/s at 254 MB peak RSS, 2 threads 133 runs/s at 354 MB.
 */
export function defaultRunnerThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/** `dist/workers` from `dist/lib/batch` (compiled) or from the sources (vitest: built first). */
export function defaultRunnerDir(): string {
  const up = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const candidates = [path.join(up, 'workers'), path.join(up, 'dist', 'workers')];
  for (const dir of candidates) if (fs.existsSync(path.join(dir, 'batch-runner.js'))) return dir;
  return candidates[1]!;
}

interface Pending {
  resolve: (record: BatchRecord) => void;
  signals: RunSignals;
  thread: number;
}

/** Start the threads and wait until each is ready. */
export async function startRunnerThreads(options: RunnerThreadOptions): Promise<RunnerThreads> {
  if (!Number.isInteger(options.count) || options.count < 1) throw new RangeError(`runner threads must be >= 1, got ${options.count}`);
  const file = path.join(options.workersDir ?? defaultRunnerDir(), 'batch-runner.js');
  const data: RunnerData = options.storeDir ? { storeDir: options.storeDir } : {};
  const pending = new Map<number, Pending>();
  const load: number[] = [];
  let seq = 0;
  const threads = await Promise.all(
    Array.from({ length: options.count }, (_, index) => {
      load.push(0);
      const worker = new Worker(file, { workerData: data });
      worker.on('message', (message: FromRunner) => {
        if (message.type === 'record') {
          const p = pending.get(message.seq);
          if (!p) return;
          pending.delete(message.seq);
          load[p.thread]!--;
          p.resolve(message.record);
        } else if (message.type === 'rate-limit') pending.get(message.seq)?.signals.onRateLimit?.(message.retryAfterMs);
        else if (message.type === 'quota') pending.get(message.seq)?.signals.onQuota?.(message.message);
      });
      // A thread that dies takes its runs with it: they settle as error records (run again with --retry-errors).
      worker.on('error', (error) => {
        for (const [s, p] of pending) {
          if (p.thread !== index) continue;
          pending.delete(s);
          load[index]!--;
          p.resolve({ kind: 'error', id: '', line: 0, outcome: 'failed', reason: 'setup', error: { category: 'INTERNAL_ERROR', code: 'MINICODE_E_WORKER', message: error.message } });
        }
      });
      return new Promise<Worker>((resolve, reject) => {
        worker.once('error', reject);
        worker.once('message', (m: FromRunner) => {
          if (m.type === 'ready') resolve(worker);
        });
      });
    }),
  );
  const send = (i: number, message: ToRunner): void => threads[i]!.postMessage(message);
  return {
    run(line, setup, where, signals) {
      let best = 0;
      for (let i = 1; i < load.length; i++) if (load[i]! < load[best]!) best = i;
      load[best]!++;
      const id = ++seq;
      return new Promise<BatchRecord>((resolve) => {
        pending.set(id, {
          // A record lost with a dead thread still names its line.
          resolve: (record) => resolve(record.id === '' ? { ...record, id: line.id, line: line.line } : record),
          signals,
          thread: best,
        });
        send(best, { type: 'run', seq: id, line, setup, baseDir: where.baseDir, cwd: where.cwd });
      });
    },
    abort() {
      for (let i = 0; i < threads.length; i++) send(i, { type: 'abort' });
    },
    async close() {
      return Promise.all(
        threads.map(
          (worker, i) =>
            new Promise<{ lagP99Ms: number; lagMaxMs: number }>((resolve) => {
              let stats = { lagP99Ms: Number.NaN, lagMaxMs: Number.NaN };
              worker.once('exit', () => resolve(stats));
              worker.on('message', (m: FromRunner) => {
                if (m.type !== 'closed') return;
                stats = { lagP99Ms: m.lagP99Ms, lagMaxMs: m.lagMaxMs };
                void worker.terminate();
              });
              send(i, { type: 'close' });
            }),
        ),
      );
    },
  };
}
