/**
 * The worker pool (Piscina) for work that would stall the event loop: exact token counting,
 * context estimation over whole transcripts, mechanical compaction. Created lazily on first
 * use (a fresh pool costs ~100 ms before its first result, which a short `exec` should not
 * pay), sized to the machine, shut down with {@link closePool}. Every task is cancellable with
 * an AbortSignal and every failure, the pool's own included, comes back as coded data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { toPlainError } from '../errors.js';
import { failure, type WorkerName, type WorkerResult } from './tasks.js';
import { moveWith } from './wire.js';

/** Pool settings; every field has a default. */
export interface PoolOptions {
  /** Directory of the compiled workers; default: `dist/workers` found from this module. */
  workersDir?: string;
  /** Upper bound of threads; default `availableParallelism() - 1`, at least 1, at most 4. */
  maxThreads?: number;
  /** Idle worker lifetime in ms; default 30 000. */
  idleTimeoutMs?: number;
}

/**
 * Where the compiled workers are. From `dist/lib/control/pool.js` that is `dist/workers`; from
 * the TypeScript source (vitest imports `lib/…`) the `.ts` workers cannot run in a thread, so
 * it is `<root>/dist/workers` (`npm test` builds first).
 */
export function defaultWorkersDir(): string {
  const up = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const candidates = [path.join(up, 'workers'), path.join(up, 'dist', 'workers')];
  for (const dir of candidates) if (fs.existsSync(path.join(dir, 'count-tokens.js'))) return dir;
  return candidates[1] as string;
}

/** Default thread bound: leave one core to the event loop; between 1 and 4. */
export function defaultMaxThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

let options: PoolOptions = {};
let pool: Piscina | undefined;
let workersDir = '';

/** Set options for the pool; takes effect when the pool is next created. */
export function configurePool(next: PoolOptions): void {
  options = { ...next };
}

/** The pool, created on first call. */
export function getPool(): Piscina {
  if (!pool) {
    workersDir = options.workersDir ?? defaultWorkersDir();
    const maxThreads = options.maxThreads ?? defaultMaxThreads();
    pool = new Piscina({
      minThreads: 0,
      maxThreads,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
    });
  }
  return pool;
}

/** True once the pool exists (for tests of lazy creation and for /status). */
export function isPoolStarted(): boolean {
  return pool !== undefined;
}

/** Options of one pool task. */
export interface RunOptions {
  signal?: AbortSignal;
  /** ArrayBuffers inside the task to move rather than copy. */
  transfer?: ArrayBuffer[];
}

/**
 * Run one worker task. Never rejects: a worker's own failure, a crash, a missing worker file
 * and a cancellation all resolve as `{ ok: false, error: {code, message, data?} }`.
 * Cancellation resolves with `MINICODE_E_ABORTED` and the signal's reason as `data`.
 */
export async function runWorker<T>(name: WorkerName, task: object, run: RunOptions = {}): Promise<WorkerResult<T>> {
  if (run.signal?.aborted) return aborted(run.signal);
  const p = getPool();
  const filename = path.join(workersDir, `${name}.js`);
  if (!fs.existsSync(filename)) {
    return failure('MINICODE_E_WORKER', `worker ${name} is not built (${filename}); run npm run build`, { filename });
  }
  const payload = run.transfer && run.transfer.length > 0 ? moveWith(task, run.transfer) : task;
  try {
    const result = (await p.run(payload, run.signal ? { filename, signal: run.signal } : { filename })) as WorkerResult<T>;
    if (!result || typeof result !== 'object' || typeof (result as { ok?: unknown }).ok !== 'boolean') {
      return failure('MINICODE_E_WORKER', `worker ${name} returned a value that is not a result`);
    }
    return result;
  } catch (error) {
    if (run.signal?.aborted) return aborted(run.signal);
    const plain = toPlainError(error);
    return failure('MINICODE_E_WORKER', plain.message, { worker: name, cause: plain.code });
  }
}

function aborted(signal: AbortSignal): WorkerResult<never> {
  const reason: unknown = signal.reason;
  const data = reason && typeof reason === 'object' && 'kind' in reason ? reason : { kind: 'aborted' };
  return failure('MINICODE_E_ABORTED', 'the pool task was cancelled', data);
}

/** Close the pool: finish running tasks, stop the threads. Safe to call when never started. */
export async function closePool(): Promise<void> {
  const p = pool;
  pool = undefined;
  if (p) await p.close();
}
