/**
 * The batch's pool threads run at a lower scheduling priority (a higher nice value) than the
 * coordinator, so that on a machine the batch itself loads (16 lines, each with git, bash and a
 * verify command) the kernel wakes the coordinator first: scheduling, records and progress are
 * little work, but each waits behind every runnable process of equal weight when the machine is
 * saturated. On Linux the nice value belongs to the thread: `os.setPriority(0, n)` on a worker
 * thread renices that thread only, and every process it forks afterwards (every git, bash and
 * verify command of its lines) inherits it. Raising it needs no privilege;
 * lowering it again does, so a thread is only ever raised. Where the call fails (other
 * platforms, a sandbox), the threads run at the coordinator's priority.
 */
import os from 'node:os';
import { dropExpected, reportDropped } from '../debug.js';

/** Nice value of batch pool threads when the batch names none (`--nice`). */
export const DEFAULT_POOL_NICE = 10;

/** Highest nice value (lowest priority) the kernel accepts. */
export const MAX_NICE = 19;

/**
 * Raise the calling thread's nice value to `nice` (never lowers it). Returns the thread's nice
 * value afterwards, or undefined where it cannot be read or set.
 */
export function raiseThreadNice(nice: number): number | undefined {
  let current: number;
  try {
    current = os.getPriority(0);
  } catch (error) {
    // Not supported here: undefined, as documented.
    reportDropped('batch: reading the thread nice value', error);
    return undefined;
  }
  if (nice <= current) return current;
  try {
    os.setPriority(0, Math.min(nice, MAX_NICE));
    return os.getPriority(0);
  } catch (error) {
    // Not permitted (a raised limit): the current value stays.
    dropExpected('batch: raising the thread nice value', error, 'EACCES', 'EPERM');
    return current;
  }
}
