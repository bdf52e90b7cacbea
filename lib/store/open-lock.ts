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
 * Files in the store directory carry the lock:
 * - `open.w.<pid>.<holder>`: one per writer (a store opened for writing, one per thread or more),
 *   present from the first put of a write until none of that writer's commits is in flight.
 *   One file per writer, not one per process: writers on several threads of one process commit
 *   independently, and a shared file would be removed by the first to finish while another
 *   thread's commit is still in flight.
 * - `open.want`: an opener's, created exclusively (so openers take turns), holding its pid. The
 *   opener then waits until no writer file of another running process is left, and opens.
 *   A writer starts no new write while another process's request exists, so a writer that never
 *   pauses cannot starve openers.
 * A writer creates its file and only then looks for a request; an opener creates its request and
 * only then looks for writer files. So either the writer sees the request and withdraws, or the
 * opener sees the writer's file and waits: never neither.
 *
 * A process killed with SIGKILL leaves its files: a pid that no longer runs holds nothing (a
 * request left empty by a creator killed before writing its pid is stale after a second).
 * Within one process lmdb-js shares one environment between all opens of a path, threads
 * included, and never reads the meta page again; a thread whose environment is not open yet is
 * not committing. So an opener ignores the writer files of its own process, and a writer the
 * requests of its own process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { MinicodeError } from '../errors.js';
import { pidAlive } from '../pid-alive.js';
import { dropExpected } from '../debug.js';

/** How long an opener waits for writers' commits to finish before it reports the store busy. */
export const OPEN_LOCK_TIMEOUT_MS = 60_000;

/** Prefix of a writer's holder file; the pid and the writer's id follow. */
const WRITER_PREFIX = 'open.w.';
const WANT = 'open.want';

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Block this thread for `ms` (an opener waits synchronously: opening a store is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** The pid recorded in a request file (first word), or undefined when it is gone or unreadable. */
function holderOf(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'latin1').split(' ')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    dropExpected('store open lock: reading a request file', error, 'ENOENT');
    return undefined;
  }
}

/**
 * A request file without a pid: its creator was killed between creating and filling it in (a
 * matter of microseconds), unless it is that young.
 */
const EMPTY_STALE_MS = 1000;

/** Whether the file's holder no longer runs (or it was left empty by a killed creator). */
function isStale(file: string, pid: number | undefined): boolean {
  if (pid !== undefined) return !pidAlive(pid);
  try {
    return Date.now() - fs.statSync(file).mtimeMs > EMPTY_STALE_MS;
  } catch (error) {
    dropExpected('store open lock: the age of a request file', error, 'ENOENT');
    return false;
  }
}

/** A directory this user cannot write (a read-only copy): no other writer can commit in it either. */
function isReadOnly(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EROFS' || code === 'EPERM';
}

function unlinkQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    // Already gone (its owner or another process removed it).
    dropExpected('store lock: removing a lock file', error, 'ENOENT');
  }
}

/** Holder files of this thread, removed if the thread or process exits without closing its stores. */
const heldFiles = new Set<string>();
let exitHookSet = false;
function track(file: string): void {
  heldFiles.add(file);
  if (exitHookSet) return;
  exitHookSet = true;
  process.once('exit', () => {
    for (const held of heldFiles) unlinkQuietly(held);
  });
}

/** The holder file of a running process other than this one, if any; clears those of dead processes. */
function otherWriter(dir: string): string | undefined {
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(WRITER_PREFIX)) continue;
    const pid = Number(name.slice(WRITER_PREFIX.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    if (pidAlive(pid)) return name;
    unlinkQuietly(path.join(dir, name));
  }
  return undefined;
}

function busy(dir: string, timeoutMs: number, holder: string): MinicodeError {
  return new MinicodeError(
    'MINICODE_E_STORE',
    `the store at ${dir} stayed busy for ${Math.round(timeoutMs / 1000)} s: ${holder}`,
    {
      action: 'wait for that process to finish, or remove the file if that process is not a minicode writer',
    },
  );
}

/** Back-off between polls: 1, 2, 4, 4 ... ms (no busy spin). */
function backoff(wait: number): number {
  sleepSync(wait);
  return Math.min(wait * 2, 4);
}

/**
 * Take `open.want` exclusively: the token written in it when taken (empty on a full disk),
 * undefined in a read-only directory (nothing to exclude). Waits for the opener holding it; clears a request of a process that no longer runs.
 */
function takeRequest(dir: string, token: string, deadline: number, timeoutMs: number): string | undefined {
  const want = path.join(dir, WANT);
  let wait = 1;
  for (;;) {
    try {
      const fd = fs.openSync(want, 'wx');
      try {
        fs.writeSync(fd, token);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // A full disk has room for the file but not its pid: the empty request still excludes
        // writers and openers for EMPTY_STALE_MS, far longer than an open takes.
        return '';
      } finally {
        fs.closeSync(fd);
      }
      return token;
    } catch (error) {
      if (isReadOnly(error)) return undefined;
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = holderOf(want);
    if (isStale(want, pid)) {
      unlinkQuietly(want);
      continue;
    }
    if (Date.now() > deadline) throw busy(dir, timeoutMs, `process ${pid ?? '?'} is opening it (${want})`);
    wait = backoff(wait);
  }
}

/** Hold the open lock of `dir` while `open` runs (see the module comment); returns what it returns. */
export function withOpenLock<T>(dir: string, open: () => T, timeoutMs = OPEN_LOCK_TIMEOUT_MS): T {
  const want = path.join(dir, WANT);
  const token = `${process.pid} ${threadId}`;
  const deadline = Date.now() + timeoutMs;
  const requested = takeRequest(dir, token, deadline, timeoutMs);
  try {
    if (requested !== undefined) {
      let wait = 1;
      for (let holder = otherWriter(dir); holder !== undefined; holder = otherWriter(dir)) {
        if (Date.now() > deadline) {
          const pid = holder.slice(WRITER_PREFIX.length).split('.')[0];
          throw busy(dir, timeoutMs, `process ${pid} holds ${path.join(dir, holder)}`);
        }
        wait = backoff(wait);
      }
    }
    return open();
  } finally {
    // Only our own request: one cleared as stale and made again by another opener stays theirs.
    if (requested !== undefined && readQuietly(want) === requested) unlinkQuietly(want);
  }
}

function readQuietly(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch (error) {
    dropExpected('store open lock: reading a file', error, 'ENOENT');
    return undefined;
  }
}

/** Whether another running process asked to open (`open.want`); clears a request left by a dead one. */
function openerWaits(want: string): boolean {
  if (!fs.existsSync(want)) return false;
  const pid = holderOf(want);
  if (pid === process.pid) return false;
  if (!isStale(want, pid)) return true;
  unlinkQuietly(want);
  return false;
}

/** A writer's side of the open lock: held while any of its commits is in flight. */
export interface WriterLock {
  /** Take the lock for a new write; false when an opener of another process asked for it (try again soon). */
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

let writers = 0;

/**
 * The writer's side of the open lock of `dir`. `holder` names this writer's file among the
 * writers of this process (default: the thread id and a serial, so two stores on one thread do
 * not share a file either).
 */
export function writerLock(dir: string, holder = `${threadId}.${writers++}`): WriterLock {
  const file = path.join(dir, `${WRITER_PREFIX}${process.pid}.${holder}`);
  const want = path.join(dir, WANT);
  let inFlight = 0;
  // 'held': our file exists; 'unlocked': a read-only directory, nothing to hold.
  let state: 'held' | 'unlocked' | undefined;
  let linger: NodeJS.Timeout | undefined;
  const releaseNow = (): void => {
    // Also when an opener's request releases the lock before the linger ran out.
    if (linger) clearTimeout(linger);
    linger = undefined;
    if (inFlight > 0) return;
    if (state === 'held') {
      heldFiles.delete(file);
      unlinkQuietly(file);
    }
    state = undefined;
  };
  const start = (): boolean => {
    if (linger) {
      clearTimeout(linger);
      linger = undefined;
    }
    inFlight++;
    return true;
  };
  return {
    acquire() {
      if (state === 'unlocked') return start();
      // Held or not, a request of another process comes first; held, our commits drain first.
      if (openerWaits(want)) {
        if (state === 'held' && inFlight === 0) releaseNow();
        return false;
      }
      if (state === 'held') return start();
      try {
        fs.closeSync(fs.openSync(file, 'w'));
      } catch (error) {
        if (!isReadOnly(error)) throw error;
        state = 'unlocked';
        return start();
      }
      // Our file first, then the request: an opener that asked meanwhile sees our file or we see its request.
      if (openerWaits(want)) {
        unlinkQuietly(file);
        return false;
      }
      state = 'held';
      track(file);
      return start();
    },
    done() {
      if (inFlight === 0) return;
      if (--inFlight === 0 && !linger) {
        linger = setTimeout(releaseNow, WRITER_LINGER_MS);
        // A thread that has nothing else to do exits; its file goes with it (the exit hook) or,
        // when the whole process dies, is cleared as stale.
        linger.unref();
      }
    },
    close() {
      inFlight = 0;
      releaseNow();
    },
  };
}
