/**
 * Blobs of a repository read through one long-lived `git cat-file --batch` per repository and
 * thread: the pooled worktree's reset writes a line's few changed files back from their blobs
 * without starting a git process each time (starting one costs more than the writing). The
 * process ends after a short idle time, and never keeps its thread alive.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GIT_ENV } from './workspace-git.js';

const IDLE_MS = 10_000;

interface Pending {
  resolve: (content: Buffer) => void;
  reject: (error: Error) => void;
}

interface Reader {
  child: ChildProcessWithoutNullStreams;
  pending: Pending[];
  buffered: Buffer;
  /** Chunks not yet joined to `buffered`: an answer's bytes are joined once they are all there. */
  parts: Buffer[];
  partsLength: number;
  /** Bytes the answer at the front of `buffered` needs in all (0 while its header is incomplete). */
  need: number;
  idle?: NodeJS.Timeout;
}

const readers = new Map<string, Reader>();

function fail(common: string, reader: Reader, error: Error): void {
  if (readers.get(common) === reader) readers.delete(common);
  clearTimeout(reader.idle);
  for (const p of reader.pending.splice(0)) p.reject(error);
  reader.child.kill();
}

/** Take whole answers (`<oid> blob <size>\n<content>\n`, or `<name> missing\n`) off the front of the buffer. */
function drain(common: string, reader: Reader): void {
  for (;;) {
    const newline = reader.buffered.indexOf(10);
    if (newline < 0) return;
    const header = reader.buffered.toString('latin1', 0, newline).split(' ');
    if (header.length !== 3 || header[1] !== 'blob') {
      fail(common, reader, new Error(`git cat-file: ${header.join(' ')}`));
      return;
    }
    const size = Number(header[2]);
    const end = newline + 1 + size;
    if (reader.buffered.length < end + 1) {
      reader.need = end + 1;
      return;
    }
    reader.need = 0;
    const content = Buffer.from(reader.buffered.subarray(newline + 1, end));
    reader.buffered = reader.buffered.subarray(end + 1);
    reader.pending.shift()?.resolve(content);
  }
}

/** Held while answers are awaited; idle between resets, nothing here keeps the thread (or the process) running. */
function hold(reader: Reader, held: boolean): void {
  if (held) reader.child.ref();
  else reader.child.unref();
  for (const stream of [reader.child.stdin, reader.child.stdout, reader.child.stderr]) {
    const handle = stream as unknown as { ref?: () => void; unref?: () => void };
    if (held) handle.ref?.();
    else handle.unref?.();
  }
}

function open(common: string): Reader {
  const child = spawn('git', ['--git-dir', common, 'cat-file', '--batch'], { cwd: common, env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  const reader: Reader = { child, pending: [], buffered: Buffer.alloc(0), parts: [], partsLength: 0, need: 0 };
  child.stdout.on('data', (chunk: Buffer) => {
    // A large blob arrives in many chunks: join them once it is whole, not at every chunk.
    reader.parts.push(chunk);
    reader.partsLength += chunk.length;
    if (reader.buffered.length + reader.partsLength < reader.need) return;
    reader.buffered = Buffer.concat(reader.buffered.length ? [reader.buffered, ...reader.parts] : reader.parts);
    reader.parts = [];
    reader.partsLength = 0;
    drain(common, reader);
  });
  child.stderr.resume();
  child.on('error', (error) => fail(common, reader, error));
  child.on('close', () => fail(common, reader, new Error('git cat-file ended')));
  child.stdin.on('error', (error) => fail(common, reader, error));
  readers.set(common, reader);
  return reader;
}

/** The contents of the blobs `oids` of the repository whose common git directory is `common`. */
export async function readBlobs(common: string, oids: readonly string[]): Promise<Buffer[]> {
  const reader = readers.get(common) ?? open(common);
  clearTimeout(reader.idle);
  hold(reader, true);
  const answers = oids.map((oid) => new Promise<Buffer>((resolve, reject) => reader.pending.push({ resolve, reject })));
  reader.child.stdin.write(oids.map((oid) => `${oid}\n`).join(''));
  try {
    return await Promise.all(answers);
  } finally {
    if (readers.get(common) === reader && reader.pending.length === 0) {
      hold(reader, false);
      reader.idle = setTimeout(() => closeBlobReader(common), IDLE_MS);
      reader.idle.unref();
    }
  }
}

/** End the repository's reader, if this thread has one. */
function closeBlobReader(common: string): void {
  const reader = readers.get(common);
  if (!reader) return;
  readers.delete(common);
  clearTimeout(reader.idle);
  reader.child.stdin.end();
}
