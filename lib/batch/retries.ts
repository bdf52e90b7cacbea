/**
 * Which failed runs a batch runs again by itself (`--retries N`): only failures that say nothing
 * about the agent or the task, so that a pass rate is not lowered by a provider's bad minute.
 *
 * Transient: the provider could not be reached (NETWORK_ERROR), the provider's stream broke, an
 * answer of 408, 409, 429 or 5xx that the provider's own retries (the control plane's policy,
 * up to 3) did not get past, and a pool thread that died under the run (MINICODE_E_WORKER).
 * Everything else is a result and never retried: the agent failing or running out of steps,
 * budget or time (the line timeout included), a 4xx that is not a rate limit, an answer the
 * provider layer classified as not cleared by waiting (recoverability `ACTION_REQUIRED`: an
 * exhausted usage quota or a spend limit, which answer 429 like a rate limit, or an
 * `x-should-retry: false`), a setup failure, a failed verify or scorer. An interrupted run (Ctrl+C) is neither: it has no record and runs
 * again on resume.
 */
import type { BatchRecord, RetriedFailure } from './records.js';

/** Error codes of a run that ended on something other than the agent or the task. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'MINICODE_E_NETWORK',
  'MINICODE_E_STREAM_BROKEN',
  'MINICODE_E_STREAM_TRUNCATED',
  'MINICODE_E_WORKER',
]);

/** Longest wait between two tries of one run. */
export const MAX_RETRY_WAIT_MS = 60_000;

/** Whether a record is a transient failure (see the header). */
export function isTransient(record: BatchRecord): boolean {
  if (record.kind !== 'error' || record.reason === 'aborted') return false;
  const { category, code, httpStatus, recoverability, limit } = record.error;
  if (category === 'NETWORK_ERROR' || TRANSIENT_CODES.has(code)) return true;
  if (category !== 'PROVIDER_ERROR' || httpStatus === undefined) return false;
  // The provider layer's word on whether waiting clears it; a record written before it was kept
  // falls back on the classification's limit.
  if (recoverability === 'ACTION_REQUIRED' || recoverability === 'FATAL') return false;
  if (recoverability === undefined && limit === 'usage-quota') return false;
  return httpStatus === 408 || httpStatus === 409 || httpStatus === 429 || httpStatus >= 500;
}

/** Whether a run that ended in `record`, tried `triesSoFar` times before, goes back for another try. */
export function retryDue(
  record: BatchRecord,
  triesSoFar: number,
  retries: number,
  signal: AbortSignal | undefined,
): record is BatchRecord & { kind: 'error' } {
  return record.kind === 'error' && isTransient(record) && triesSoFar < retries && !signal?.aborted;
}

/** The wait before retry number `n` (1-based): `baseMs`, doubled for each further retry, at most {@link MAX_RETRY_WAIT_MS}. */
export function retryWaitMs(n: number, baseMs: number): number {
  return Math.min(MAX_RETRY_WAIT_MS, baseMs * 2 ** (n - 1));
}

/** What a retried failure keeps of its record. */
export function retriedFailure(record: BatchRecord & { kind: 'error' }, waitedMs: number): RetriedFailure {
  const out: RetriedFailure = { error: record.error, waitedMs };
  if (record.sessionId !== undefined) out.sessionId = record.sessionId;
  if (record.durationMs !== undefined) out.durationMs = record.durationMs;
  if (record.costUsd !== undefined) out.costUsd = record.costUsd;
  return out;
}
