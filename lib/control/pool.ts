/**
 * The one worker pool (Piscina) of the process: exact token counting, context estimation over
 * whole transcripts, mechanical compaction, and the runs of a local batch. Created lazily on
 * first use (a fresh pool takes a while before its first result, which a short `exec` should
 * not pay), sized to the machine, shut down with {@link closePool} or when its last holder lets
 * go ({@link holdPool}). Every task is cancellable with an AbortSignal and every failure, the
 * pool's own included, comes back as coded data.
 *
 * On a pool worker thread (a batch run that compacts or counts) a task runs inline: the work
 * is already off the main thread, and a pool of its own per worker would multiply the threads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
  /** Tasks one worker runs at once; default {@link DEFAULT_TASKS_PER_WORKER}. */
  concurrentTasksPerWorker?: number;
}

/**
 * Tasks one worker runs at once unless a batch asks for more: 16 (bench/batch compares it with
 * 64 per thread: more runs at once gave fewer runs/s and longer event-loop lags, figures in
 * docs/benchmarks.md). On loopback the runs are CPU-bound, so more at once only lengthens each
 * thread's turns. CPU-bound tasks (a fold, an exact count) are
 * synchronous and simply queue on their thread; the least-busy balancer picks the emptiest.
 */
export const DEFAULT_TASKS_PER_WORKER = 16;

/**
 * Where the compiled workers are: the nearest `workers/` or `dist/workers/` holding compiled
 * workers, walking up from this module. That is `dist/workers` whether this code runs from
 * `dist/lib/control/pool.js`, from a CLI bundle chunk (`dist/chunks/…`), or from the TypeScript
 * source (vitest imports `lib/…`; the `.ts` workers cannot run in a thread, `npm test` builds first).
 */
export function defaultWorkersDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    for (const candidate of [path.join(dir, 'workers'), path.join(dir, 'dist', 'workers')]) {
      if (fs.existsSync(path.join(candidate, 'count-tokens.js'))) return candidate;
    }
    if (path.dirname(dir) === dir) return path.resolve(here, '../../dist/workers');
  }
}

/** Default thread bound: leave one core to the event loop; between 1 and 4. */
export function defaultMaxThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

let options: PoolOptions = {};
let pool: Piscina | undefined;
let workersDir = '';
let holders = 0;
const built = new Set<string>();

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
      concurrentTasksPerWorker: options.concurrentTasksPerWorker ?? DEFAULT_TASKS_PER_WORKER,
      // Tasks that wait on I/O (batch runs) need a live event loop between tasks: the default
      // 'sync' mode parks an idle worker in Atomics.wait, freezing its sockets and timers.
      atomics: 'disabled',
    });
  }
  return pool;
}

/** True on a thread of the pool itself (there, tasks run inline). */
export function onPoolThread(): boolean {
  return Piscina.isWorkerThread;
}

/**
 * Keep the pool for a while (a batch, a run that compacts): the returned release, called once,
 * closes the pool when no other holder remains, so one user never closes it under another.
 */
export function holdPool(): () => Promise<void> {
  holders++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0 && pool) await closePool();
  };
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
  if (onPoolThread()) return runInline<T>(name, task);
  const p = getPool();
  const filename = path.join(workersDir, `${name}.js`);
  if (!built.has(filename)) {
    if (!fs.existsSync(filename))
      return failure('MINICODE_E_WORKER', `worker ${name} is not built (${filename}); run npm run build`, { filename });
    // A batch posts thousands of tasks: look for each file once.
    built.add(filename);
  }
  const payload = run.transfer && run.transfer.length > 0 ? moveWith(task, run.transfer) : task;
  try {
    const result = (await p.run(
      payload,
      run.signal ? { filename, signal: run.signal } : { filename },
    )) as WorkerResult<T>;
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

/** The worker's default export called on this thread; a moved result is unwrapped. */
async function runInline<T>(name: WorkerName, task: object): Promise<WorkerResult<T>> {
  const filename = path.join(options.workersDir ?? defaultWorkersDir(), `${name}.js`);
  try {
    const handler = ((await import(pathToFileURL(filename).href)) as { default: (task: object) => unknown }).default;
    let result = (await handler(task)) as unknown;
    if (result && typeof result === 'object' && Piscina.valueSymbol in result)
      result = (result as Record<symbol, unknown>)[Piscina.valueSymbol];
    if (!result || typeof result !== 'object' || typeof (result as { ok?: unknown }).ok !== 'boolean') {
      return failure('MINICODE_E_WORKER', `worker ${name} returned a value that is not a result`);
    }
    return result as WorkerResult<T>;
  } catch (error) {
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
