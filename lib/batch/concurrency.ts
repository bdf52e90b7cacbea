/**
 * Adaptive concurrency, the pure core (AIMD, as TCP does it): a rate-limit signal (429 or
 * 529 seen in a run's events) halves the number of runs allowed at once and pauses new starts
 * until the provider's Retry-After has passed; every run that finishes without a rate-limit
 * signal adds back `1 / limit` (so a full window of clean runs adds one slot), up to the
 * configured maximum. Signals that arrive within one pause window (a burst of 429s answering
 * requests sent together) halve only once: they report the same congestion.
 */

/** Options of {@link createConcurrencyController}. */
export interface ConcurrencyOptions {
  /** The configured (and highest) concurrency, >= 1. */
  max: number;
  /** Pause when a signal carries no Retry-After; default 1000 ms. */
  defaultPauseMs?: number;
  /** Longest pause honoured; default 30 000 ms (the retry policy's cap). */
  maxPauseMs?: number;
}

/** The controller's state, for progress and the summary. */
export interface ConcurrencySnapshot {
  /** Runs allowed at once now (whole number). */
  limit: number;
  max: number;
  /** No new start before this time (epoch ms); 0 when not paused. */
  pausedUntil: number;
  /** Rate-limit signals seen. */
  signals: number;
  /** Times the limit was halved. */
  decreases: number;
  /** Lowest limit reached. */
  lowest: number;
}

/** The controller. */
export interface ConcurrencyController {
  /** Runs that may start now, given `running` (0 while paused). */
  available(running: number, now: number): number;
  /** A rate-limit signal (429/529, `limit.reached`), with the provider's wait when it gave one. */
  onRateLimit(now: number, retryAfterMs?: number): void;
  /** A run finished; `clean` when it saw no rate-limit signal. */
  onFinished(clean: boolean): void;
  snapshot(): ConcurrencySnapshot;
}

/** Create a controller. */
export function createConcurrencyController(options: ConcurrencyOptions): ConcurrencyController {
  if (!Number.isInteger(options.max) || options.max < 1)
    throw new RangeError(`concurrency must be an integer >= 1, got ${options.max}`);
  const defaultPause = options.defaultPauseMs ?? 1000;
  const maxPause = options.maxPauseMs ?? 30_000;
  let limit = options.max;
  let pausedUntil = 0;
  let signals = 0;
  let decreases = 0;
  let lowest = options.max;
  return {
    available(running, now) {
      if (now < pausedUntil) return 0;
      return Math.max(0, Math.floor(limit) - running);
    },
    onRateLimit(now, retryAfterMs) {
      signals++;
      const wait = Math.min(maxPause, Math.max(0, retryAfterMs ?? defaultPause));
      if (now >= pausedUntil) {
        limit = Math.max(1, Math.floor(limit / 2));
        decreases++;
        lowest = Math.min(lowest, limit);
      }
      pausedUntil = Math.max(pausedUntil, now + wait);
    },
    onFinished(clean) {
      if (clean && limit < options.max) limit = Math.min(options.max, limit + 1 / Math.floor(limit));
    },
    snapshot: () => ({ limit: Math.floor(limit), max: options.max, pausedUntil, signals, decreases, lowest }),
  };
}
