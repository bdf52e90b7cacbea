/**
 * The batch scheduler: starts runs in input order while the concurrency controller allows,
 * wakes when a run finishes or a rate-limit pause ends, and stops starting new runs when told
 * to (quota exhausted with --fail-fast, batch budget spent, SIGINT). Runs already started
 * always finish and are recorded; ids never started stay unfinished, so a resume runs them.
 *
 * A run that has settled its events and only waits for the store to acknowledge them (commit
 * and sync) says so with `settled()`: its slot goes to the next item, so the disk's sync
 * overlaps the next runs' work instead of every run of a step waiting on the same commit. The
 * run still ends (and its record is written) only once acknowledged; at most
 * `maxAcknowledging` runs wait so at once.
 */
import type { ConcurrencyController } from './concurrency.js';

/**
 * Default of `SchedulerOptions.maxAcknowledging`. Settled runs normally wait a commit or two
 * (milliseconds); the bound matters when the disk lags: it caps what they hold in memory and
 * how many executed runs a crash then leaves without a record (a resume runs them again). With
 * a lower bound, short sessions on a disk whose syncs take tens of milliseconds (a shared
 * machine) wait on the bound instead of sharing commits (docs/batch.md has the figures).
 */
export const DEFAULT_MAX_ACKNOWLEDGING = 256;

/** Options of {@link createScheduler}. */
export interface SchedulerOptions<T> {
  items: readonly T[];
  controller: ConcurrencyController;
  /**
   * Run one item; must not reject (a failed run is a record, not a throw). `settled()` (at most
   * once, or never) hands the run's slot on while the returned promise still waits.
   */
  run: (item: T, settled: () => void) => Promise<void>;
  /** Most settled runs waiting for their acknowledgement at once; default {@link DEFAULT_MAX_ACKNOWLEDGING}. */
  maxAcknowledging?: number;
  /** Checked before each start: a reason to stop scheduling, or undefined. */
  shouldStop?: () => string | undefined;
  /** Default `Date.now`. */
  clock?: () => number;
}

/** A running scheduler. */
export interface Scheduler<T = unknown> {
  /** Resolves when every started run finished (acknowledged) and nothing more will start. */
  done: Promise<{ started: number; stoppedBy?: string }>;
  /** Stop starting runs (in-flight ones finish). */
  stop(reason: string): void;
  /** Wake the scheduler (after the controller changed). */
  wake(): void;
  /**
   * Start `item` again, not before `notBeforeMs` (a transient failure's retry, lib/batch/retries.ts):
   * it takes a slot like any item, ahead of the items not yet started. Dropped when the scheduler
   * stops first (its id has no record, so a resume runs it).
   */
  requeue(item: T, notBeforeMs: number): void;
  /** Runs executing (started and not yet settled). */
  readonly running: number;
}

/** Start scheduling at once. */
export function createScheduler<T>(options: SchedulerOptions<T>): Scheduler<T> {
  const clock = options.clock ?? Date.now;
  const { items, controller } = options;
  const maxAcknowledging = options.maxAcknowledging ?? DEFAULT_MAX_ACKNOWLEDGING;
  let running = 0;
  let acknowledging = 0;
  let next = 0;
  let stoppedBy: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Items to start again, each not before its time (earliest first), and the timer for the first.
  const again: { item: T; at: number }[] = [];
  let againTimer: NodeJS.Timeout | undefined;
  let resolve!: (value: { started: number; stoppedBy?: string }) => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<{ started: number; stoppedBy?: string }>((r, j) => {
    resolve = r;
    reject = j;
  });
  let settled = false;
  // The first run that threw (its record could not be written): no new run starts, and `done`
  // rejects with it once the runs in flight have ended.
  let failure: { error: unknown } | undefined;

  const finishIfIdle = (): void => {
    if (settled || running > 0 || acknowledging > 0) return;
    if (stoppedBy === undefined && (next < items.length || again.length > 0)) return;
    settled = true;
    if (timer) clearTimeout(timer);
    if (againTimer) clearTimeout(againTimer);
    if (failure) return reject(failure.error);
    resolve(stoppedBy === undefined ? { started: next } : { started: next, stoppedBy });
  };

  const ended = (handedOn: boolean): void => {
    if (handedOn) acknowledging--;
    else running--;
    pump();
  };

  /** The next item to start: a due retry first, else the next of `items`; undefined when none is ready. */
  const take = (now: number): T | undefined => {
    if (again.length > 0 && again[0]!.at <= now) return again.shift()!.item;
    return next < items.length ? items[next++]! : undefined;
  };

  /** Come back when the earliest retry is due (finishing runs also wake us). */
  const awaitRetry = (now: number): void => {
    if (againTimer || again.length === 0 || stoppedBy !== undefined) return;
    againTimer = setTimeout(
      () => {
        againTimer = undefined;
        pump();
      },
      Math.max(0, again[0]!.at - now),
    );
  };

  const pump = (): void => {
    if (settled) return;
    while (stoppedBy === undefined && (next < items.length || (again.length > 0 && again[0]!.at <= clock()))) {
      const reason = options.shouldStop?.();
      if (reason !== undefined) {
        stoppedBy = reason;
        break;
      }
      if (acknowledging >= maxAcknowledging) break;
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
      const item = take(now);
      if (item === undefined) break;
      running++;
      let waiting = false;
      const handOn = (): void => {
        if (waiting) return;
        waiting = true;
        running--;
        acknowledging++;
        pump();
      };
      options.run(item, handOn).then(
        () => ended(waiting),
        (error: unknown) => {
          failure ??= { error };
          stoppedBy ??= 'error';
          ended(waiting);
        },
      );
    }
    awaitRetry(clock());
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
    requeue(item, notBeforeMs) {
      if (stoppedBy !== undefined) return;
      let i = again.length;
      while (i > 0 && again[i - 1]!.at > notBeforeMs) i--;
      again.splice(i, 0, { item, at: notBeforeMs });
      if (againTimer && i === 0) {
        clearTimeout(againTimer);
        againTimer = undefined;
      }
    },
    get running() {
      return running;
    },
  };
}
