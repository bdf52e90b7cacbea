/**
 * Main-thread helpers over the pool: they encode the transcript to bytes in slices (so a
 * 5 MB transcript never blocks the loop in one piece), move the bytes to a worker, and decode
 * the answer. Each returns a {@link WorkerResult}; none throws.
 */
import type { FoldOptions } from './fold.js';
import { runWorker, type RunOptions } from './pool.js';
import type {
  CompactValue,
  CountTokensValue,
  EstimateContextTask,
  EstimateContextValue,
  WorkerResult,
} from './tasks.js';
import type { FixedContext, TranscriptMessage } from './transcript.js';
import { decodeTranscript, encodeTranscriptSliced, ownBuffer } from './wire.js';
import { reportDropped } from '../debug.js';

const encoder = new TextEncoder();

/** Strings shorter than this are posted as strings; longer ones as moved bytes. */
const BYTES_ABOVE_CHARS = 64 * 1024;

/**
 * Transcripts of at least this many characters (1 Mi) are folded in the pool; smaller ones on
 * the calling thread: below it the in-process fold stalls the loop less than encoding the
 * transcript for the pool and decoding the answer (bench/pool-sizes measures where the two cross).
 */
export const FOLD_IN_POOL_CHARS = 1024 * 1024;

/**
 * Exact o200k token count of a text, always in the pool: the count stalls a loop for long on
 * a large text, and the o200k table is tens of megabytes of memory the main thread never pays.
 */
export async function countTokensExact(
  text: string,
  run: Pick<RunOptions, 'signal'> = {},
): Promise<WorkerResult<CountTokensValue>> {
  if (text.length < BYTES_ABOVE_CHARS) return runWorker('count-tokens', { text }, run);
  const bytes = ownBuffer(encoder.encode(text));
  return runWorker('count-tokens', { bytes }, { ...run, transfer: [bytes] });
}

/** Estimate a transcript plus its fixed overhead in the pool (`heuristic` or `exact`). */
export async function estimateContextInPool(
  fixed: FixedContext,
  messages: readonly TranscriptMessage[],
  options: { mode?: 'heuristic' | 'exact'; densities?: EstimateContextTask['densities'] } & Pick<
    RunOptions,
    'signal'
  > = {},
): Promise<WorkerResult<EstimateContextValue>> {
  let bytes: ArrayBuffer;
  try {
    bytes = ownBuffer(await encodeTranscriptSliced(messages, options.signal ? { signal: options.signal } : {}));
  } catch (error) {
    // An abort stops the encoding; anything else is reported.
    if (!options.signal?.aborted) reportDropped('estimating context in the pool', error);
    return cancelled();
  }
  const task: EstimateContextTask = { bytes, fixed, mode: options.mode ?? 'heuristic' };
  if (options.densities) task.densities = options.densities;
  return runWorker(
    'estimate-context',
    task,
    options.signal ? { signal: options.signal, transfer: [bytes] } : { transfer: [bytes] },
  );
}

/** A fold done in the pool, decoded back into messages. */
export interface PoolFold extends Omit<CompactValue, 'bytes'> {
  messages: TranscriptMessage[];
}

/** Fold a transcript mechanically in the pool. */
export async function compactInPool(
  messages: readonly TranscriptMessage[],
  options: FoldOptions = {},
  run: Pick<RunOptions, 'signal'> = {},
): Promise<WorkerResult<PoolFold>> {
  let bytes: ArrayBuffer;
  try {
    bytes = ownBuffer(await encodeTranscriptSliced(messages, run.signal ? { signal: run.signal } : {}));
  } catch (error) {
    // An abort stops the encoding; anything else is reported.
    if (!run.signal?.aborted) reportDropped('compacting in the pool', error);
    return cancelled();
  }
  const result = await runWorker<CompactValue>('compact', { bytes, options }, { ...run, transfer: [bytes] });
  if (!result.ok) return result;
  const { bytes: out, ...figures } = result.value;
  return { ok: true, value: { ...figures, messages: decodeTranscript(out).messages } };
}

function cancelled(): WorkerResult<never> {
  return {
    ok: false,
    error: { code: 'MINICODE_E_ABORTED', message: 'the pool task was cancelled', data: { kind: 'aborted' } },
  };
}
