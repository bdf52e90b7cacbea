/**
 * One batch at a time per output directory. Two `minicode batch` processes on one `--out`
 * would each read the same resume state and run every pending id (the provider paid twice);
 * the second one refuses instead, with MINICODE_E_BATCH_LOCKED (exit 75, EX_TEMPFAIL: try
 * again later).
 *
 * The lock is a file, `batch.lock`, holding its owner (pid, hostname, start time, a random
 * token), created atomically: written whole to a private temporary name, then `link(2)`ed to
 * the lock name, which fails with EEXIST when a lock is there. So a lock file is never seen
 * half written. Why not flock(2): Node has no flock in core (an addon would be a native build
 * for one call), and a lock file also tells the refused user who holds the directory.
 *
 * Staleness: a holder on this host whose pid no longer exists (SIGKILL, a crash) left a stale
 * lock, which the next batch takes over. Taking over goes through a second lock
 * (`batch.lock.break`, made the same way) and removes the old lock only when it still names
 * the same owner, so two processes that find one stale lock cannot both win. A lock from
 * another host is never guessed stale (its pid means nothing here), and a reused pid makes a
 * dead holder look alive: both refuse, and the message names the file to remove by hand.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { outputWriteError } from './output.js';
import os from 'node:os';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { pidAlive } from '../pid-alive.js';
import { makePrivateDir } from '../private-files.js';
import { dropExpected } from '../debug.js';

/** The lock file's name inside the output directory. */
export const LOCK_FILE = 'batch.lock';

/** Who holds a lock (the lock file's content). */
export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  token: string;
}

/** A held lock. */
export interface OutputLock {
  readonly file: string;
  /** Remove the lock if it is still ours; idempotent. Also done at process exit. */
  release(): void;
}

/** Options of {@link lockOutputDir}; each defaults to this process's own. */
export interface LockOptions {
  /** Default `process.pid`. */
  pid?: number;
  /** Default `os.hostname()`. */
  hostname?: string;
  /** Whether a pid on this host is a live process; default `process.kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
  /** Default `Date.now`. */
  clock?: () => number;
}

/** Create `file` holding `owner` atomically; false when it already exists. */
function createExclusive(file: string, owner: LockOwner): boolean {
  const tmp = `${file}.${owner.pid}.${owner.token}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(owner)}\n`);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The owner named by a lock file; undefined when the file is gone or not a lock we wrote. */
function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.hostname === 'string' && typeof owner.token === 'string')
      return owner as LockOwner;
  } catch (error) {
    // Gone (released meanwhile) or not ours: treated as unknown below.
    dropExpected('batch output lock: reading the owner', error, 'ENOENT', 'SyntaxError');
  }
  return undefined;
}

/** Take the lock of `dir` (created when missing), or throw MINICODE_E_BATCH_LOCKED naming the holder. */
export function lockOutputDir(dir: string, options: LockOptions = {}): OutputLock {
  const isAlive = options.isAlive ?? pidAlive;
  const me: LockOwner = {
    pid: options.pid ?? process.pid,
    hostname: options.hostname ?? os.hostname(),
    startedAt: new Date((options.clock ?? Date.now)()).toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const file = path.join(dir, LOCK_FILE);
  try {
    return takeLock(dir, file, me, isAlive);
  } catch (error) {
    throw outputWriteError(dir, error);
  }
}

function takeLock(dir: string, file: string, me: LockOwner, isAlive: (pid: number) => boolean): OutputLock {
  // The output folder is created here first: it will hold prompts and answers.
  makePrivateDir(dir);
  const stale = (owner: LockOwner): boolean =>
    owner.hostname === me.hostname && owner.pid !== me.pid && !isAlive(owner.pid);
  // A few rounds: a lock released or broken between our attempt and our look is tried again.
  for (let round = 0; round < 5; round++) {
    if (createExclusive(file, me)) return heldLock(file, me);
    const holder = readOwner(file);
    if (holder === undefined) {
      if (fs.existsSync(file)) throw lockedError(dir, file, undefined);
      continue;
    }
    if (!stale(holder)) throw lockedError(dir, file, holder);
    breakStale(file, holder, me, stale);
  }
  throw lockedError(dir, file, readOwner(file));
}

/** Remove a stale lock under the breaker lock, only if it still names `holder`. */
function breakStale(file: string, holder: LockOwner, me: LockOwner, stale: (owner: LockOwner) => boolean): void {
  const breaker = `${file}.break`;
  if (!createExclusive(breaker, me)) {
    // Another process is breaking it now, or died doing so (then its breaker is stale too).
    const other = readOwner(breaker);
    if (other && stale(other)) fs.rmSync(breaker, { force: true });
    return;
  }
  try {
    if (readOwner(file)?.token === holder.token) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

function heldLock(file: string, me: LockOwner): OutputLock {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    // Only our own lock: never remove one another process holds.
    if (readOwner(file)?.token === me.token) fs.rmSync(file, { force: true });
  };
  // A second Ctrl+C exits at once (process.exit): the lock goes with the process all the same.
  process.on('exit', release);
  return { file, release };
}

function lockedError(dir: string, file: string, holder: LockOwner | undefined): MinicodeError {
  const who = holder ? `process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt})` : 'another process';
  return new MinicodeError(
    'MINICODE_E_BATCH_LOCKED',
    `${dir} is in use by ${who}: one batch at a time per output directory`,
    {
      action: `wait for it to finish, or pass another --out; if no batch is running there, remove ${file}`,
      data: holder,
    },
  );
}
