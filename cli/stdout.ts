/**
 * The one owner of "the reader went away". When whoever reads our stdout closes its end of the
 * pipe (`minicode exec --json | head -1`), the next write fails with EPIPE. That is the
 * reader's choice, not a failure of the work: a run goes on to its end, is stored, and exits
 * with the code of its outcome; only the output stops.
 *
 * `guardOutput(stream)` installs, once per stream, an 'error' listener that turns EPIPE into
 * `closed = true`. From then on `write` is a no-op (a write to a destroyed stream would build
 * an ERR_STREAM_DESTROYED error per call) and every pending or later `drain()` resolves at once,
 * so a writer that waits for 'drain' to honour backpressure is never left hanging on a pipe
 * nobody reads. EIO is the same for a terminal: it was hung up (its window closed). Any other
 * write error is not ours to hide and is thrown.
 *
 * Writers should go through `write` (or check `closed`) rather than `stream.write`; a direct
 * write after the close is harmless (the listener keeps it from crashing) but not free.
 */
import fs from 'node:fs';
import { mark, timelineOn } from '../lib/timeline.js';
import { dropExpected } from '../lib/debug.js';

/** A guarded output stream (stdout or stderr). */
export interface GuardedOutput {
  /** True once a write failed because the reader closed the pipe; never goes back to false. */
  readonly closed: boolean;
  /** Write `text`; a no-op returning true once closed. False means: await `drain()` before more. */
  write(text: string): boolean;
  /** Resolves when the stream has drained, or at once when it needs no drain or is closed. */
  drain(): Promise<void>;
}

const guards = new WeakMap<NodeJS.WritableStream, GuardedOutput>();

/** The guard of `stream` (default `process.stdout`), created and installed on first use. */
export function guardOutput(
  stream: NodeJS.WritableStream & { writableNeedDrain?: boolean } = process.stdout,
): GuardedOutput {
  const existing = guards.get(stream);
  if (existing) return existing;
  let closed = false;
  let wrote = false;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const resolve of waiters) resolve();
    waiters.clear();
  };
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
    closed = true;
    wake();
  });
  stream.on('drain', wake);
  const guard: GuardedOutput = {
    get closed() {
      return closed;
    },
    write(text) {
      if (closed) return true;
      if (timelineOn && !wrote && stream === process.stdout) {
        wrote = true;
        mark('first stdout write');
      }
      return stream.write(text);
    },
    drain() {
      if (closed || stream.writableNeedDrain !== true) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.add(resolve));
    },
  };
  guards.set(stream, guard);
  return guard;
}

/** Write to stdout through its guard (the writer every command hands to its renderer). */
export function writeOut(text: string): void {
  guardOutput(process.stdout).write(text);
}

/** Write to stderr through its guard (`2>&1 | head` closes stderr's pipe too). */
export function writeErr(text: string): void {
  guardOutput(process.stderr).write(text);
}

/**
 * One stderr line after work that completed while nobody read stdout, saying where the full
 * output is; nothing when stdout stayed open. `where` is a command, e.g. `minicode replay ID`.
 */
export function noteClosedStdout(where: string): void {
  if (guardOutput(process.stdout).closed)
    writeErr(`minicode: stdout was closed before the end; the work went on to completion (full output: ${where})\n`);
}

/**
 * Call on a hang-up (SIGHUP: the terminal's window closed) to let the process exit normally
 * later. Node's exit restores the mode of every standard stream that was a terminal; on a hung-up
 * terminal that fails (EIO) and Node aborts (an assertion in `ResetStdio`: SIGABRT, a core
 * dump). Closing those descriptors in an exit hook, after the others, makes Node skip them.
 */
export function exitAfterHangUp(): void {
  process.once('exit', () => {
    // fstat works on a hung-up terminal (isatty does not); a pipe or file is left alone.
    for (const fd of [0, 1, 2]) {
      try {
        if (fs.fstatSync(fd).isCharacterDevice()) fs.closeSync(fd);
      } catch (error) {
        // Already closed.
        dropExpected('closing a hung-up terminal', error, 'EBADF', 'EIO');
      }
    }
  });
}

/**
 * Call `stop` on the first SIGHUP (the terminal's window closed), after arranging the exit of
 * {@link exitAfterHangUp}; later SIGHUPs are ignored (one closed window is one hang-up). Returns
 * the remover.
 */
export function onHangUp(stop: () => void): () => void {
  let hungUp = false;
  const listener = (): void => {
    if (hungUp) return;
    hungUp = true;
    exitAfterHangUp();
    stop();
  };
  process.on('SIGHUP', listener);
  return () => process.off('SIGHUP', listener);
}
