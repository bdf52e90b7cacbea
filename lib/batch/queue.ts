/**
 * Distributed batches through BullMQ on Redis (an existing queue engine rather than a home-made
 * distribution layer; docs/batch.md). The producer (`minicode batch FILE --queue URL`) enqueues one job
 * per pending line with a deterministic job id (batch key + line id), so enqueueing again after
 * a crash adds nothing; it then collects the records workers return and writes the outputs.
 * Workers (`minicode batch --worker --queue URL`) run jobs with their own provider setup and
 * local store and return the record as the job's result, retrying transient failures first with
 * the producer's `--retries` (the tries kept in the job's data, so they survive the worker).
 *
 * Delivery is at least once: a worker killed mid-run loses its job lock, the stalled-job check
 * of another worker puts the job back, and it runs again. A record may therefore arrive twice;
 * the output directory keeps the first per id (idempotent by id).
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type * as Bullmq from 'bullmq';
import { MinicodeError } from '../errors.js';
import { loadOptional, type ModuleLoader } from '../optional-module.js';
import { openBatch, type BatchCommon, type BatchSummary } from './batch.js';
import { createConcurrencyController } from './concurrency.js';
import type { BatchLine } from './input.js';
import { setupErrorRecord, type BatchRecord, type RetriedFailure } from './records.js';
import { retriedFailure, retryDue, retryWaitMs } from './retries.js';
import { runLine, type LineSetup } from './run-line.js';
import type { EventStore } from '../store/index.js';
import { definedOnly } from '../defined-only.js';
import { attemptOptions, runKey } from './attempts.js';
import { scoreRecord } from './scorers.js';

/** The queue engine: bullmq (with ioredis), optional dependencies installed only for `--queue`. */
export type QueueEngine = typeof Bullmq;

/** Load the queue engine; MINICODE_E_MISSING_DEPENDENCY (exit 1) when bullmq or ioredis is missing. */
export function loadQueueEngine(load: ModuleLoader<QueueEngine> = () => import('bullmq')): Promise<QueueEngine> {
  return loadOptional(load, ['bullmq', 'ioredis'], '`minicode batch --queue`');
}

/** Default queue name shared by producers and workers. */
export const DEFAULT_QUEUE_NAME = 'minicode-batch';

/** What a job carries. */
export interface BatchJobData {
  line: BatchLine;
  /** Input file's directory (relative line cwds) and the default cwd, as the producer saw them. */
  baseDir: string;
  cwd: string;
  /** The producer's `--retries` and `--retry-backoff` (absent in jobs of an older producer: no retries). */
  retry?: { retries: number; backoffMs: number };
  /** Transient failures already retried, kept in the job so a worker that dies mid-wait hands them on. */
  retried?: RetriedFailure[];
}

/** Redis connection options from `redis://[user:pass@]host:port[/db]`. */
export function redisConnection(url: string): {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  maxRetriesPerRequest: null;
} {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new MinicodeError('MINICODE_E_USAGE', `--queue must be a redis:// URL, got "${url}"`, {
      action: 'pass --queue redis://127.0.0.1:6379',
    });
  }
  if (u.protocol !== 'redis:')
    throw new MinicodeError('MINICODE_E_USAGE', `--queue must be a redis:// URL, got "${shownRedisUrl(url)}"`, {
      action: 'pass --queue redis://127.0.0.1:6379',
    });
  const out: ReturnType<typeof redisConnection> = {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    maxRetriesPerRequest: null,
  };
  if (u.username) out.username = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  const db = u.pathname.replace(/^\//, '');
  if (db) out.db = Number(db);
  return out;
}

/** The batch key: one output directory is one batch (resume keeps the key). */
export function batchKeyOf(outDir: string): string {
  return createHash('sha256').update(path.resolve(outDir)).digest('hex').slice(0, 12);
}

/** Deterministic job id of a run (its {@link runKey}: the line id for attempt 1). BullMQ ids may not be integers or contain ':'. */
export function jobIdOf(batchKey: string, key: string): string {
  return `${batchKey}.${encodeURIComponent(key)}`;
}

/** A Redis URL for messages: its user info masked (a password, or a token given as the user name). */
export function shownRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username) u.username = '***';
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a URL (refused before a connection is tried): what it holds is not repeated.
    return '(invalid URL)';
  }
}

/** A client of the queue engine: connection errors are its `error` events (BullMQ prints them when nobody listens). */
interface EngineClient {
  waitUntilReady(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Listen to `client`'s connection errors (ioredis retries them; unheard, BullMQ prints each
 * one's stack on stderr), and wait until it is connected: MINICODE_E_NETWORK after `timeoutMs`,
 * naming the last error.
 */
async function ready(client: EngineClient, url: string, timeoutMs = 5000): Promise<void> {
  let last: string | undefined;
  client.on('error', (error) => {
    last = (error as NodeJS.ErrnoException).code ?? error.message;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new MinicodeError(
            'MINICODE_E_NETWORK',
            `cannot reach Redis at ${shownRedisUrl(url)}${last ? ` (${last})` : ''}`,
            {
              action: 'start redis-server or pass --queue with a reachable redis:// URL',
            },
          ),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([client.waitUntilReady(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link runProducer}. */
export interface ProducerOptions extends BatchCommon {
  queueUrl: string;
  queueName?: string | undefined;
  baseDir: string;
  cwd: string;
  signal?: AbortSignal | undefined;
  /** Sweep for finished jobs this often (besides queue events); default 1000 ms. */
  sweepMs?: number | undefined;
  /** Loads bullmq; default `import('bullmq')` (tests inject a failing one). */
  loadEngine?: ModuleLoader<QueueEngine> | undefined;
}

function recordOf(value: unknown): BatchRecord | undefined {
  const v = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return v && typeof v === 'object' && typeof (v as BatchRecord).id === 'string' ? (v as BatchRecord) : undefined;
}

/** Enqueue the pending lines, collect records until every one is in (or the signal stops waiting). */
export async function runProducer(options: ProducerOptions): Promise<BatchSummary> {
  const connection = redisConnection(options.queueUrl);
  const { Job, Queue, QueueEvents } = await loadQueueEngine(options.loadEngine);
  const name = options.queueName ?? DEFAULT_QUEUE_NAME;
  const queue = new Queue<BatchJobData, BatchRecord>(name, { connection });
  // The events' client is made once Redis answered: closing one that never connected waits forever.
  let events: InstanceType<typeof QueueEvents> | undefined;
  try {
    await ready(queue, options.queueUrl);
    events = new QueueEvents(name, { connection });
    await ready(events, options.queueUrl);
    const ctx = openBatch(options);
    const key = batchKeyOf(options.outDir);
    const waiting = new Map(ctx.pending.map((l) => [jobIdOf(key, runKey(l)), l]));
    // --retry-errors: the old jobs hold the old (error) results; remove them so the ids run again.
    if (options.retryErrors && ctx.superseded > 0) {
      for (const jobId of waiting.keys()) await (await queue.getJob(jobId))?.remove();
    }
    let resolveAll!: () => void;
    const allIn = new Promise<void>((r) => (resolveAll = r));
    // Records taken but still being scored: the batch ends only once each is accepted.
    let scoring = 0;
    const take = (jobId: string, record: BatchRecord | undefined): void => {
      const line = waiting.get(jobId);
      if (!line || !record) return;
      waiting.delete(jobId);
      scoring++;
      // Scored where the records are written: the same scorers whichever worker ran the line.
      void (line.expect ? scoreRecord(record, line.expect) : Promise.resolve(undefined)).then((scores) => {
        if (scores) record.scores = scores;
        ctx.accept(record);
        options.progress.update(ctx.snapshot(0));
        if (--scoring === 0 && waiting.size === 0) resolveAll();
      });
    };
    events.on('completed', ({ jobId, returnvalue }) => take(jobId, recordOf(returnvalue)));
    const attempts = attemptOptions(options.attempts);
    const retry = { retries: attempts.retries, backoffMs: attempts.retryBackoffMs };
    const jobs = [...waiting].map(([jobId, line]) => ({
      name: 'run',
      data: { line, baseDir: options.baseDir, cwd: options.cwd, retry },
      opts: {
        jobId,
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: false,
        removeOnFail: false,
      },
    }));
    for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
    // The sweep finds jobs finished before we listened (a resumed producer) and jobs that failed
    // every attempt (an internal error on the worker: recorded as an error, not waited for).
    const sweep = async (): Promise<void> => {
      const ids = [...waiting.keys()].slice(0, 2000);
      for (const jobId of ids) {
        const job = await Job.fromId<BatchJobData, BatchRecord>(queue, jobId);
        if (!job || !job.finishedOn) continue;
        if (job.returnvalue) take(jobId, recordOf(job.returnvalue));
        else if (job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1)) {
          take(
            jobId,
            setupErrorRecord(job.data.line, {
              category: 'INTERNAL_ERROR',
              code: 'MINICODE_E_WORKER',
              message: job.failedReason,
            }),
          );
        }
      }
    };
    if (waiting.size === 0) resolveAll();
    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      sweep().finally(() => (sweeping = false));
    }, options.sweepMs ?? 1000);
    // An interrupt that came while the jobs were being queued has already fired its event.
    const aborted = untilAborted(options.signal);
    await sweep();
    await Promise.race([allIn, aborted]);
    clearInterval(timer);
    return await ctx.finish(
      definedOnly({ mode: 'queue', stoppedBy: options.signal?.aborted ? 'interrupted' : undefined }),
    );
  } finally {
    await events?.close();
    await queue.close();
  }
}

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  queueUrl: string;
  queueName?: string | undefined;
  concurrency: number;
  setup: (line: BatchLine) => Promise<LineSetup>;
  store?: EventStore | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** Job lock duration; a killed worker's jobs run again after about this long. Default 30 000 ms. */
  lockMs?: number | undefined;
  /** Worker name stamped on records; default `host:pid`. */
  name?: string | undefined;
  /** Stops the worker (it finishes its active jobs first). */
  signal?: AbortSignal | undefined;
  onRecord?: ((record: BatchRecord) => void) | undefined;
  /** Called once connected and taking jobs. */
  onReady?: ((name: string) => void) | undefined;
  /** Loads bullmq; default `import('bullmq')` (tests inject a failing one). */
  loadEngine?: ModuleLoader<QueueEngine> | undefined;
}

/** Run jobs until the signal aborts. */
export async function runWorker(options: WorkerOptions): Promise<void> {
  const connection = redisConnection(options.queueUrl);
  const { Worker } = await loadQueueEngine(options.loadEngine);
  const controller = createConcurrencyController({ max: options.concurrency });
  const name = options.name ?? `${os.hostname()}:${process.pid}`;
  const lockMs = options.lockMs ?? 30_000;
  const worker = new Worker<BatchJobData, BatchRecord>(
    options.queueName ?? DEFAULT_QUEUE_NAME,
    async (job) => {
      // Transient failures are retried here, as a local batch does (lib/batch/retries.ts): the
      // job's own attempts are for a worker that dies or throws, and a returned error record is
      // a finished job to BullMQ. The job keeps the wait's slot (its lock is renewed meanwhile).
      const retry = job.data.retry ?? { retries: 0, backoffMs: 0 };
      let tries = job.data.retried ?? [];
      for (;;) {
        let clean = true;
        const record = await runLine({
          line: job.data.line,
          baseDir: job.data.baseDir,
          cwd: job.data.cwd,
          setup: options.setup,
          worker: name,
          store: options.store,
          env: options.env,
          onRateLimit: (retryAfterMs) => {
            clean = false;
            controller.onRateLimit(Date.now(), retryAfterMs);
            worker.concurrency = controller.snapshot().limit;
          },
        });
        controller.onFinished(clean);
        worker.concurrency = controller.snapshot().limit;
        if (retryDue(record, tries.length, retry.retries, options.signal)) {
          const wait = retryWaitMs(tries.length + 1, retry.backoffMs);
          tries = [...tries, retriedFailure(record, wait)];
          await job.updateData({ ...job.data, retried: tries });
          // A worker told to stop ends the wait and returns this failure (the tries kept in it).
          if (await waitUnlessAborted(wait, options.signal)) continue;
        }
        if (tries.length > 0) record.retries = tries;
        options.onRecord?.(record);
        return record;
      }
    },
    {
      connection,
      concurrency: options.concurrency,
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
      maxStalledCount: 5,
      autorun: false,
    },
  );
  // Connection hiccups are retried by ioredis; the worker goes on (ready() listens to them).
  try {
    await ready(worker, options.queueUrl);
  } catch (error) {
    // Left open, the worker's client would retry forever and keep the process alive.
    await worker.close();
    throw error;
  }
  const stopped = untilAborted(options.signal);
  void worker.run();
  options.onReady?.(name);
  await stopped;
  await worker.close();
}

/** Wait `ms`; false when `signal` aborted first. */
function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves once `signal` is aborted, at once when it already is; never without a signal. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}
