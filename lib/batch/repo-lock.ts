/**
 * One `git worktree add|remove|prune` at a time per repository, across the coordinator, the
 * pool threads and other processes (a resumed batch, queue workers). Git itself does not
 * serialise these: concurrent ones race on `.git/worktrees/` and the repository's lock files.
 *
 * The lock is a file in the repository's common git directory, created with O_EXCL; it names
 * its holder (pid, thread, a nonce). A waiter polls with a short growing backoff. A holder that
 * is gone leaves a stale lock, which the next waiter breaks: a holder process that no longer
 * exists (SIGKILL), or, within one live process, a lock older than {@link STALE_MS} (a pool
 * thread terminated mid-hold; the git commands it guards take seconds at most). Inside one
 * thread, callers queue in memory first, so a thread never polls against itself.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { pidAlive } from '../pid-alive.js';
import { dropExpected } from '../debug.js';

/** The lock file's name inside the common git directory. */
export const LOCK_NAME = 'minicode-worktree.lock';
/** A lock of a live process older than this is a dead thread's. */
export const STALE_MS = 120_000;
const FIRST_WAIT_MS = 2;
const MAX_WAIT_MS = 50;

interface Holder {
  pid: number;
  thread: number;
  nonce: string;
}

function readHolder(file: string): { holder: Holder | undefined; mtimeMs: number } | undefined {
  try {
    const mtimeMs = fs.statSync(file).mtimeMs;
    let holder: Holder | undefined;
    try {
      holder = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
    } catch (error) {
      // Being written, or torn by a kill: judged by its age.
      dropExpected('batch repo lock: reading the holder', error, 'SyntaxError', 'ENOENT');
      holder = undefined;
    }
    return { holder, mtimeMs };
  } catch (error) {
    // Gone: try again.
    dropExpected('batch repo lock: reading the lock', error, 'ENOENT');
    return undefined;
  }
}

function isStale(found: { holder: Holder | undefined; mtimeMs: number }): boolean {
  if (found.holder && found.holder.pid !== process.pid) return !pidAlive(found.holder.pid);
  return Date.now() - found.mtimeMs > STALE_MS;
}

/**
 * Break a stale lock: move it aside, and only if what was moved is still the lock judged stale,
 * drop it (otherwise a new holder took it meanwhile: put it back unless yet another took its place).
 */
function breakStale(file: string, judged: Holder | undefined): void {
  const aside = `${file}.${randomBytes(6).toString('hex')}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    dropExpected('batch repo lock: breaking a stale lock', error, 'ENOENT');
    return;
  }
  const moved = readHolder(aside)?.holder;
  if (judged && moved && moved.nonce !== judged.nonce) {
    try {
      fs.linkSync(aside, file);
    } catch (error) {
      // Another holder's lock is in place already.
      dropExpected('batch repo lock: putting a lock back', error, 'EEXIST');
    }
  }
  fs.rmSync(aside, { force: true });
}

async function acquire(file: string): Promise<Holder> {
  const me: Holder = { pid: process.pid, thread: threadId, nonce: randomBytes(8).toString('hex') };
  let wait = FIRST_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      return me;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const found = readHolder(file);
    if (found && isStale(found)) {
      breakStale(file, found.holder);
      continue;
    }
    await sleep(wait + Math.random() * wait);
    wait = Math.min(MAX_WAIT_MS, wait * 2);
  }
}

function release(file: string, me: Holder): void {
  // Only our own lock (a stale-lock breaker may have replaced it after a very long hold).
  if (readHolder(file)?.holder?.nonce === me.nonce) fs.rmSync(file, { force: true });
}

// This thread's callers, queued per lock file before they touch it.
const queues = new Map<string, Promise<unknown>>();

/** Run `task` holding the worktree lock of the repository whose common git directory is `gitCommonDir`. */
export function withRepoLock<T>(gitCommonDir: string, task: () => Promise<T>): Promise<T> {
  const file = path.join(gitCommonDir, LOCK_NAME);
  const locked = async (): Promise<T> => {
    const me = await acquire(file);
    try {
      return await task();
    } finally {
      release(file, me);
    }
  };
  const prev = queues.get(file) ?? Promise.resolve();
  const next = prev.then(locked, locked);
  const tail = next.catch(() => undefined);
  queues.set(file, tail);
  void tail.then(() => {
    if (queues.get(file) === tail) queues.delete(file);
  });
  return next;
}
