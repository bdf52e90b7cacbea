/**
 * A failed LMDB commit (a full disk, an I/O error) as the store reports it, and the promises of
 * that commit no caller holds.
 *
 * When a commit fails, lmdb rejects the promise of every put in it with "Commit failed" (its
 * `commitError` a second promise rejected with the errno). Two of those promises are lmdb's own:
 * the batch-start instruction of an event-loop turn gets a promise nobody is given, and
 * `commitError` is only reachable through the errors. Unhandled, either ends the process with
 * a stack trace, although the store already reports the failure through the puts it tracks
 * (`flushed()` rejects with MINICODE_E_STORE). So the store marks each commit failure it
 * received ({@link noteCommitFailure}) and a process-wide handler drops the rejections of
 * exactly those commits; any other unhandled rejection still ends the process as Node's
 * default does (raised as an uncaught exception).
 */
import fs from 'node:fs';
import { MinicodeError } from '../errors.js';

/** `commitError` promises of commits whose failure a store received. */
const reported = new WeakSet<object>();
let handlerSet = false;

function commitErrorOf(reason: unknown): object | undefined {
  if (!(reason instanceof Error)) return undefined;
  const commitError = (reason as Error & { commitError?: unknown }).commitError;
  return typeof commitError === 'object' && commitError !== null ? commitError : undefined;
}

function onUnhandledRejection(reason: unknown, promise: Promise<unknown>): void {
  const commitError = commitErrorOf(reason);
  if (commitError !== undefined && reported.has(commitError)) return;
  // lmdb's `commitError` promise itself, of a commit a store reported.
  if (reported.has(promise)) return;
  throw reason;
}

/**
 * Record a write error the store received: when it is lmdb's commit failure, its `commitError`
 * is handled here and the other rejections of the same commit are dropped when unhandled.
 */
export function noteCommitFailure(error: unknown): void {
  const commitError = commitErrorOf(error);
  if (commitError === undefined) return;
  reported.add(commitError);
  (commitError as Promise<unknown>).then?.(undefined, () => undefined);
  if (handlerSet) return;
  handlerSet = true;
  process.on('unhandledRejection', onUnhandledRejection);
}

/** Bytes free for this user on the file system holding `dir`, or undefined when unknown. */
function freeBytes(dir: string): number | undefined {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch (error) {
    // The folder is gone or unreadable: the message then says nothing about space.
    if (typeof (error as NodeJS.ErrnoException).code === 'string') return undefined;
    throw error;
  }
}

/**
 * Less than this many bytes free means the disk is full for the store: a commit writes whole
 * pages, several of them, plus the data file's growth.
 */
const FULL_BELOW_BYTES = 1024 * 1024;

/** The MINICODE_E_STORE error of a failed write to the store at `dir`, saying what to do. */
export function storeWriteError(dir: string, error: unknown): MinicodeError {
  // lmdb's own wording points at a property a user cannot see.
  const detail =
    commitErrorOf(error) !== undefined
      ? 'the transaction could not be committed'
      : ((error as Error)?.message ?? String(error));
  const free = freeBytes(dir);
  const errno = (error as NodeJS.ErrnoException)?.code;
  if (errno === 'ENOSPC' || (free !== undefined && free < FULL_BELOW_BYTES)) {
    return new MinicodeError(
      'MINICODE_E_STORE',
      `store write failed: the disk holding ${dir} is full (${free ?? 0} bytes free): ${detail}`,
      {
        action: `free space on the disk holding ${dir} (or pass --store DIR on another disk), then run again`,
        cause: error,
      },
    );
  }
  return new MinicodeError('MINICODE_E_STORE', `store write failed at ${dir}: ${detail}`, {
    action: `check the disk holding ${dir} (space, permissions, I/O errors), or pass --store DIR`,
    cause: error,
  });
}
