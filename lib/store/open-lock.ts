/**
 * The store's open lock: no process opens the LMDB environment while another process has a
 * commit in flight.
 *
 * Why: the LMDB inside lmdb-js (3.5.6, and its newest source) still carries upstream LMDB's
 * ITS#9496, fixed upstream in 0.9.29. Opening an environment reads the newest meta page and
 * later copies its txnid into the shared lock file (`mdb_env_open2`), for every opener, not
 * only the first. When another process commits in between, the shared txnid goes back one
 * transaction, and that process's next write transaction starts from the older snapshot with
 * the same txnid: it overwrites the meta page of the transaction just acknowledged. The
 * acknowledged events are gone (or the writer fails with MDB_BAD_TXN). A `replay` or
 * `sessions` opening the store while `exec` writes it, or a second writer starting, is enough.
 *
 * The lock is a file, `open.lock` in the store directory, created exclusively and holding the
 * holder's pid. An opener holds it for the duration of the open; a writer holds it from the
 * first put of a write until no commit of its is in flight, and does not start a new write
 * while an opener waits (`open.want`), so a writer that never pauses cannot starve openers. A
 * holder killed with SIGKILL leaves the file: a pid that no longer runs holds nothing. Within
 * one process lmdb-js shares one environment between all opens of a path and never reads the
 * meta page again, so a process never waits for itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MinicodeError } from '../errors.js';

/** How long an opener waits for writers' commits to finish before it reports the store busy. */
export const OPEN_LOCK_TIMEOUT_MS = 60_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Block this thread for `ms` (an opener waits synchronously: opening a store is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** The pid recorded in a lock file, or undefined when it is gone or unreadable. */
function holderOf(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'latin1'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A file of this protocol without a pid: its creator was killed between creating and filling it
 * in (a matter of microseconds), unless it is that young.
 */
const EMPTY_STALE_MS = 1000;

/** Whether the file's holder no longer runs (or it was left empty by a killed creator). */
function isStale(file: string, pid: number | undefined): boolean {
  if (pid !== undefined) return !isRunning(pid);
  try {
    return Date.now() - fs.statSync(file).mtimeMs > EMPTY_STALE_MS;
  } catch {
    return false;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Attempt = 'held' | 'ours' | 'busy';

/** One exclusive create of the lock file; clears a lock left by a process that no longer runs. */
function tryCreate(file: string): Attempt {
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = fs.openSync(file, 'wx');
      try {
        fs.writeSync(fd, String(process.pid));
      } finally {
        fs.closeSync(fd);
      }
      return 'held';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A directory this user cannot write (a read-only copy): no other writer can commit in it either.
      if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return 'ours';
      if (code !== 'EEXIST') throw error;
    }
    const pid = holderOf(file);
    if (pid === process.pid) return 'ours';
    if (!isStale(file, pid)) return 'busy';
    try {
      fs.unlinkSync(file);
    } catch {
      // Another process cleared it first.
    }
  }
  return 'busy';
}

/** Hold the open lock of `dir` while `open` runs (see the module comment); returns what it returns. */
export function withOpenLock<T>(dir: string, open: () => T, timeoutMs = OPEN_LOCK_TIMEOUT_MS): T {
  const file = path.join(dir, 'open.lock');
  const want = path.join(dir, 'open.want');
  const deadline = Date.now() + timeoutMs;
  let attempt = tryCreate(file);
  if (attempt === 'busy') {
    try {
      fs.writeFileSync(want, String(process.pid));
    } catch {
      // Without the request a busy writer still pauses between its commits now and then.
    }
    let wait = 1;
    while ((attempt = tryCreate(file)) === 'busy') {
      if (Date.now() > deadline) {
        throw new MinicodeError('MINICODE_E_STORE', `the store at ${dir} stayed busy for ${Math.round(timeoutMs / 1000)} s: process ${holderOf(file) ?? '?'} holds ${file}`, {
          action: 'wait for that process to finish, or remove the file if that process is not a minicode writer',
        });
      }
      sleepSync(wait);
      wait = Math.min(wait * 2, 4);
    }
  }
  try {
    return open();
  } finally {
    if (attempt === 'held') release(file);
    try {
      fs.unlinkSync(want);
    } catch {
      // Not requested, or another opener removed it.
    }
  }
}

function release(file: string): void {
  // Only our own file: a lock cleared as stale and taken by another process stays theirs.
  if (holderOf(file) !== process.pid) return;
  try {
    fs.unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/** Whether another running process asked for the lock (`open.want`); clears a request left by a dead one. */
function openerWaits(want: string): boolean {
  if (!fs.existsSync(want)) return false;
  const pid = holderOf(want);
  if (pid === process.pid) return false;
  if (!isStale(want, pid)) return true;
  try {
    fs.unlinkSync(want);
  } catch {
    // Another process cleared it first.
  }
  return false;
}

/** A writer's side of the open lock: held while any of its commits is in flight. */
export interface WriterLock {
  /** Take the lock for a new write; false when an opener holds or requested it (try again soon). */
  acquire(): boolean;
  /** One commit started under the lock has finished (committed or failed). */
  done(): void;
  /** Release the lock now (the store is closing, no commit is in flight). */
  close(): void;
}

/**
 * How long a writer keeps the lock after its last commit finished, so that back-to-back turns do
 * not create and remove the file each time; an opener that asks meanwhile gets it at the next turn.
 */
export const WRITER_LINGER_MS = 5;

/** The writer's side of the open lock of `dir`. */
export function writerLock(dir: string): WriterLock {
  const file = path.join(dir, 'open.lock');
  const want = path.join(dir, 'open.want');
  let inFlight = 0;
  let state: Attempt | undefined;
  let linger: NodeJS.Timeout | undefined;
  const releaseNow = (): void => {
    linger = undefined;
    if (inFlight > 0) return;
    if (state === 'held') release(file);
    state = undefined;
  };
  return {
    acquire() {
      if (state !== undefined) {
        // Already held: go on unless an opener is waiting, then let the commits drain first.
        if (state === 'held' && openerWaits(want)) {
          if (inFlight === 0) releaseNow();
          return false;
        }
        if (linger) {
          clearTimeout(linger);
          linger = undefined;
        }
        inFlight++;
        return true;
      }
      // An opener waits: let it take the lock first.
      if (openerWaits(want)) return false;
      const attempt = tryCreate(file);
      if (attempt === 'busy') return false;
      state = attempt;
      inFlight = 1;
      return true;
    },
    done() {
      if (inFlight === 0) return;
      if (--inFlight === 0 && !linger) {
        linger = setTimeout(releaseNow, WRITER_LINGER_MS);
        // A process that has nothing else to do exits; the file it leaves is cleared as stale.
        linger.unref();
      }
    },
    close() {
      if (linger) clearTimeout(linger);
      inFlight = 0;
      releaseNow();
    },
  };
}
