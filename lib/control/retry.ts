/**
 * Provider retry policy (control-plane §5): a 300 s deadline per request, at most 3 retries
 * after the first attempt, a backoff with full jitter when the provider gives no Retry-After
 * (a uniform draw from [0, 1 s], [0, 2 s], [0, 4 s]), a Retry-After (seconds, HTTP date, or
 * `retry-after-ms`) capped at 30 s, and every wait cancelled by the run's signal.
 *
 * Why jitter: many runs that share a rate limit (a batch of 64) all get their 429 at once. A
 * fixed backoff sends them back at the same instant, to be refused together again; a random
 * wait over the whole window spreads them out. A Retry-After is the provider's own schedule
 * and is honoured as given. A router may switch to an alternative provider before
 * waiting, unless the model is pinned. Context-length errors are not retried here: they go to
 * the recovery compaction path, which has its own once-per-turn flag.
 */
import { joinSignals } from './termination.js';
import { realTimers, sleep, type Timers } from './timers.js';

/** The policy's numbers; each has the contract's default. */
export interface RetryPolicy {
  /** Deadline of one request in ms; default 300 000. */
  requestTimeoutMs: number;
  /** Retries after the first attempt; default 3. */
  maxRetries: number;
  /**
   * Upper bound of the wait before each retry when there is no Retry-After (the wait is drawn
   * from [0, bound]); later retries use the last entry. Default [1000, 2000, 4000].
   */
  backoffMs: number[];
  /** Upper bound of a Retry-After wait; default 30 000. */
  retryAfterCapMs: number;
}

/** The contract's policy. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  requestTimeoutMs: 300_000,
  maxRetries: 3,
  backoffMs: [1000, 2000, 4000],
  retryAfterCapMs: 30_000,
});

/**
 * Milliseconds a provider asked us to wait, from response headers (lower-cased names):
 * `retry-after-ms`, then `retry-after` as seconds or as an HTTP date. Undefined when absent or
 * unreadable (a bad header is ignored, not thrown).
 */
export function parseRetryAfter(headers: Record<string, string | undefined>, nowMs: number): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headers['retry-after'];
  if (ra === undefined || ra.trim() === '') return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(ra);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * The wait before retry number `retry` (0-based): Retry-After capped, else a full-jitter draw
 * from [0, bound] where bound is the policy's backoff entry for this retry (the last entry
 * caps later ones). `random` returns a number in [0, 1); default `Math.random`.
 */
export function retryDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.retryAfterCapMs);
  const table = policy.backoffMs;
  const bound = table[Math.min(retry, table.length - 1)] ?? 0;
  return Math.round(random() * bound);
}

/** How the caller sees a failed attempt. */
export interface FailureClass {
  retryable: boolean;
  retryAfterMs?: number;
}

/** One attempt's context. */
export interface Attempt {
  /** 0 for the first attempt. */
  attempt: number;
  provider: string;
  /** Aborts on the run's signal or this request's deadline (reason kind `timeout`). */
  signal: AbortSignal;
}

/** Options of {@link withRetry}. */
export interface WithRetryOptions<T> {
  call: (attempt: Attempt) => Promise<T>;
  /** Decide whether an error is retryable and whether the provider gave a wait. */
  classify: (error: unknown) => FailureClass;
  provider: string;
  /** Providers to try instead of waiting, in order (used only when `pinned` is false). */
  alternatives?: string[];
  pinned?: boolean;
  signal?: AbortSignal;
  policy?: RetryPolicy;
  timers?: Timers | undefined;
  /** Source of the backoff jitter, uniform in [0, 1); default `Math.random`. */
  random?: (() => number) | undefined;
  /** Told about each retry before it happens (for `recovery.started` events). */
  onRetry?: (info: { retry: number; provider: string; waitMs: number; error: unknown }) => void;
}

/**
 * Call with retries. Rejects with the last error once retries are exhausted or the error is
 * not retryable, and with the run signal's reason when the run is aborted (a wait included).
 */
export async function withRetry<T>(options: WithRetryOptions<T>): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const timers = options.timers ?? realTimers;
  const alternatives = options.pinned ? [] : [...(options.alternatives ?? [])];
  let provider = options.provider;
  for (let attempt = 0; ; attempt++) {
    options.signal?.throwIfAborted();
    const deadline = new AbortController();
    const handle = timers.setTimeout(
      // No `kind`: a request deadline is a provider failure (retried, then a `provider` stop),
      // not the run's `timeout`, which only the run deadline requests.
      () =>
        deadline.abort({
          code: 'MINICODE_E_TIMEOUT',
          message: `request deadline of ${policy.requestTimeoutMs} ms passed`,
          requestDeadline: true,
        }),
      policy.requestTimeoutMs,
    );
    const joined = joinSignals(options.signal, deadline.signal);
    try {
      return await options.call({ attempt, provider, signal: joined.signal });
    } catch (error) {
      // The run was stopped: not a provider failure, never retried.
      if (options.signal?.aborted) throw options.signal.reason;
      const expired = deadline.signal.aborted;
      const cls: FailureClass = expired ? { retryable: true } : options.classify(error);
      if (!cls.retryable || attempt >= policy.maxRetries) throw expired ? deadline.signal.reason : error;
      const next = alternatives.shift();
      if (next !== undefined) {
        // Another provider may answer now: try it before waiting.
        options.onRetry?.({ retry: attempt, provider: next, waitMs: 0, error });
        provider = next;
        continue;
      }
      const waitMs = retryDelayMs(attempt, cls.retryAfterMs, policy, options.random);
      options.onRetry?.({ retry: attempt, provider, waitMs, error });
      await sleep(waitMs, options.signal, timers);
    } finally {
      timers.clearTimeout(handle);
      joined.dispose();
    }
  }
}
