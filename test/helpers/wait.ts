/**
 * Waiting for a condition, never for a time: `waitFor` polls `condition` until it holds. The
 * deadline only turns a hang into a failure that names what never happened; it is not a timing
 * assumption (a loaded machine makes the wait longer, never the test wrong).
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of {@link waitFor}: what is awaited (for the failure message), poll interval 5 ms, deadline 30 s. */
export interface WaitOptions {
  what: string;
  intervalMs?: number;
  timeoutMs?: number;
}

/** Resolve with the first truthy value of `condition`; reject naming `what` after the deadline. */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${options.what}`);
    await sleep(options.intervalMs ?? 5);
  }
}
