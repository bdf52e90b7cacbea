/** Timers a test drives by hand, through the {@link Timers} seam the control plane takes. */
import type { Timers } from '../../lib/control/timers.js';

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
