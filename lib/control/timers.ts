/**
 * Injected time (STYLE habit 6): every delay in the control plane (retry backoff, request
 * deadlines, the compaction summary limit, run timeouts) goes through a {@link Timers}, so
 * tests drive time with {@link createManualTimers} instead of sleeping.
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

/** Let every pending promise chain run: a macrotask turn comes after all microtasks. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** Timers driven by hand: `advance(ms)` fires what falls due, in order. */
export interface ManualTimers extends Timers {
  advance(ms: number): Promise<void>;
  /** Delays requested so far, in order (what a test asserts on). */
  readonly requested: number[];
  /** Timers still pending. */
  readonly pending: number;
}

/** Create manual timers starting at `start` ms. */
export function createManualTimers(start = 0): ManualTimers {
  let now = start;
  let nextId = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  const requested: number[] = [];
  return {
    setTimeout(fn, ms) {
      const id = nextId++;
      requested.push(ms);
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
    now: () => now,
    async advance(ms) {
      await settle();
      const target = now + ms;
      for (;;) {
        let first: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of due) if (entry[1].at <= target && (!first || entry[1].at < first[1].at)) first = entry;
        if (!first) break;
        due.delete(first[0]);
        now = first[1].at;
        first[1].fn();
        // Let promise chains waiting on this timer run (and arm their next timer) first.
        await settle();
      }
      now = target;
      await settle();
    },
    get requested() {
      return requested;
    },
    get pending() {
      return due.size;
    },
  };
}
