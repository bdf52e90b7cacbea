/**
 * Injected time: every delay in the control plane (retry backoff, request deadlines, the
 * compaction summary limit, run timeouts) goes through a {@link Timers}, so tests drive time by
 * hand (test/helpers/manual-timers.ts) instead of sleeping.
 */

/**
 * The longest delay a Node timer takes (2^31 - 1 ms, 24.8 days): a longer one fires after 1 ms
 * (with a TimeoutOverflowWarning), so every deadline flag and config key stops there.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** The timer functions the control plane uses. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds since an arbitrary origin (wall clock for HTTP dates). */
  now(): number;
}

/** Real timers (unref'd so a pending deadline never keeps the process alive). */
export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
  now: () => Date.now(),
};

/**
 * Wait `ms`, cancelled by `signal`: rejects with the signal's reason as soon as it aborts
 * (every retry and rate-limit wait is cancellable by the run's timeout or abort).
 */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = realTimers): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    // Unlike a deadline, a wait is the work the process is doing: it must keep the process
    // alive (an unref'd retry backoff let `exec` exit mid-run with no summary).
    (handle as { ref?: () => void } | undefined)?.ref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
