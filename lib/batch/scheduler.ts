/**
 * The batch scheduler: starts runs in input order while the concurrency controller allows,
 * wakes when a run finishes or a rate-limit pause ends, and stops starting new runs when told
 * to (quota exhausted with --fail-fast, batch budget spent, SIGINT). Runs already started
 * always finish and are recorded; ids never started stay unfinished, so a resume runs them.
 */
import type { ConcurrencyController } from './concurrency.js';

/** Options of {@link createScheduler}. */
export interface SchedulerOptions<T> {
  items: readonly T[];
  controller: ConcurrencyController;
  /** Run one item; must not reject (a failed run is a record, not a throw). */
  run: (item: T) => Promise<void>;
  /** Checked before each start: a reason to stop scheduling, or undefined. */
  shouldStop?: () => string | undefined;
  /** Default `Date.now`. */
  clock?: () => number;
}

/** A running scheduler. */
export interface Scheduler {
  /** Resolves when every started run finished and nothing more will start. */
  done: Promise<{ started: number; stoppedBy?: string }>;
  /** Stop starting runs (in-flight ones finish). */
  stop(reason: string): void;
  /** Wake the scheduler (after the controller changed). */
  wake(): void;
  readonly running: number;
}

/** Start scheduling at once. */
export function createScheduler<T>(options: SchedulerOptions<T>): Scheduler {
  const clock = options.clock ?? Date.now;
  const { items, controller } = options;
  let running = 0;
  let next = 0;
  let stoppedBy: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let resolve!: (value: { started: number; stoppedBy?: string }) => void;
  const done = new Promise<{ started: number; stoppedBy?: string }>((r) => (resolve = r));
  let settled = false;

  const finishIfIdle = (): void => {
    if (settled || running > 0) return;
    if (stoppedBy === undefined && next < items.length) return;
    settled = true;
    if (timer) clearTimeout(timer);
    resolve(stoppedBy === undefined ? { started: next } : { started: next, stoppedBy });
  };

  const pump = (): void => {
    if (settled) return;
    while (stoppedBy === undefined && next < items.length) {
      const reason = options.shouldStop?.();
      if (reason !== undefined) {
        stoppedBy = reason;
        break;
      }
      const now = clock();
      if (controller.available(running, now) <= 0) {
        // Paused by a Retry-After: come back when it ends (finishing runs also wake us).
        const until = controller.snapshot().pausedUntil;
        if (until > now && !timer) {
          timer = setTimeout(() => {
            timer = undefined;
            pump();
          }, until - now);
        }
        break;
      }
      const item = items[next++]!;
      running++;
      void options.run(item).finally(() => {
        running--;
        pump();
      });
    }
    finishIfIdle();
  };

  queueMicrotask(pump);
  return {
    done,
    stop(reason) {
      stoppedBy ??= reason;
      finishIfIdle();
    },
    wake: pump,
    get running() {
      return running;
    },
  };
}
