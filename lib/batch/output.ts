/**
 * The batch output directory: `results.jsonl`, `errors.jsonl`, `superseded.jsonl` (error
 * records replaced by `--retry-errors`) and `summary.json`.
 *
 * Crash safety, the rule the resume relies on: records are whole lines appended with `write(2)`
 * on a file opened with O_APPEND. A process killed (even SIGKILL) after a `write` returned has
 * its lines in the page cache, which the kernel writes out; a record whose write had not
 * happened yet is simply not there, and its id runs again on resume. The writes are made on
 * the thread pool (`fs.write`), one at a time per file, each carrying every record queued since
 * the previous one: a `write` to a busy disk can sleep for tens of ms (dirty-page throttling
 * while worktrees are written and deleted), which the coordinator's event loop must not wait
 * for. `append` returns once the record is queued; `flushed` and `close` wait for the writes.
 * Files are fsync'ed every `syncEvery` records and at close (periodic syncs asynchronously,
 * the last one synchronously), which bounds what a power loss (not a process crash) can take.
 * A torn last line (a power loss mid-write, or another tool) is cut off on open, so the next
 * append starts on a fresh line; the id of a torn record is simply not finished and runs again.
 *
 * Every line and the summary go through the artefact layer (lib/artefacts.ts): a secret in a
 * line's prompt, metadata or final text is masked before it reaches the file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { MinicodeError } from '../errors.js';
import path from 'node:path';
import { PRIVATE_FILE_MODE, artefactLine, writeJsonArtefact } from '../artefacts.js';
import { makePrivateDir } from '../private-files.js';
import type { BatchRecord, ErrorRecord } from './records.js';
import { runKey } from './attempts.js';

/** Options of {@link openOutputDir}. */
export interface OutputOptions {
  /** fsync after this many appended records; default 64. */
  syncEvery?: number;
}

/** What reading an existing output found. */
export interface ResumeState {
  /** Runs with a record (by {@link runKey}: the id, and the attempt after the first), and in which file. */
  finished: Map<string, 'result' | 'error'>;
  /** Torn last lines cut off (one per file at most). */
  repaired: number;
  /** Whole lines that were not a readable record (kept in place, reported). */
  unreadable: number;
}

/** An open output directory. */
export interface OutputDir {
  readonly dir: string;
  /** This output's batch id (`batch-id`, made on the first open): links its records in the store (record-links.ts). */
  readonly batchId: string;
  readonly resume: ResumeState;
  /** Error records currently in errors.jsonl. */
  errorRecords(): ErrorRecord[];
  /** The first record of every finished run, as read on open. */
  existingRecords(): BatchRecord[];
  /** Queue a record for appending; false (nothing written) when its run already has one (at-least-once delivery). Throws an earlier append's write error. */
  append(record: BatchRecord): boolean;
  /** Resolves when every queued record is written (rejects with a write error). */
  flushed(): Promise<void>;
  /** Move the error records of these runs ({@link runKey}) to superseded.jsonl so they run again. */
  supersede(ids: ReadonlySet<string>): number;
  writeSummary(summary: unknown): void;
  /** fsync both record files. */
  sync(): void;
  /** Write what is queued, fsync and close. */
  close(): Promise<void>;
}

const FILES = { result: 'results.jsonl', error: 'errors.jsonl' } as const;
/** The file holding the output directory's batch id. */
export const BATCH_ID_FILE = 'batch-id';

/** Read a JSONL file, cutting off a torn last line. */
function readRecords(file: string, state: ResumeState): { records: BatchRecord[]; lines: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], lines: [] };
    throw error;
  }
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    // A line without its newline was never acknowledged: drop it so appends stay line-aligned.
    fs.truncateSync(file, Buffer.byteLength(text.slice(0, end)));
    text = text.slice(0, end);
    state.repaired++;
  }
  const records: BatchRecord[] = [];
  const lines: string[] = [];
  for (const row of text.split('\n')) {
    if (row === '') continue;
    try {
      const r = JSON.parse(row) as BatchRecord;
      if (typeof r.id !== 'string') throw new Error('no id');
      records.push(r);
      lines.push(row);
    } catch {
      // Not JSON, or no id: counted, the summary says how many.
      state.unreadable++;
    }
  }
  return { records, lines };
}

/** Open (creating) an output directory and read what an earlier run left. */
export function openOutputDir(dir: string, options: OutputOptions = {}): OutputDir {
  try {
    return openOutput(dir, options);
  } catch (error) {
    throw outputWriteError(dir, error);
  }
}

/**
 * A failure to write the output directory (a full disk, a read-only or failing one) as
 * MINICODE_E_BATCH_OUTPUT with what to do, so the batch stops with one line, not a stack trace.
 * Records written before it are whole lines (a torn last one is cut off on resume), so a
 * re-run resumes from them. Anything else (a broken invariant) is returned as it is.
 */
export function outputWriteError(dir: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof MinicodeError || typeof code !== 'string' || !/^E[A-Z]+$/.test(code))
    return error instanceof Error ? error : new Error(String(error));
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  return new MinicodeError(
    'MINICODE_E_BATCH_OUTPUT',
    `cannot write the batch output in ${dir}: ${code}${full ? ' (the disk is full)' : ''}`,
    {
      action: `${full ? 'free space on the disk holding it' : 'check that folder (permissions, disk)'} or pass --out DIR elsewhere, then run the batch again: the lines with a record are not run again`,
      cause: error,
    },
  );
}

/**
 * The batch id of `dir`: read from `batch-id`, or made and written there (whole, under a
 * temporary name linked into place, so two openers agree on one id and a reader never sees half
 * of it).
 */
function batchIdOf(dir: string): string {
  const file = path.join(dir, BATCH_ID_FILE);
  const read = (): string | undefined => {
    try {
      const id = fs.readFileSync(file, 'utf8').trim();
      return /^[0-9a-f]{32}$/.test(id) ? id : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const existing = read();
  if (existing) return existing;
  const id = randomBytes(16).toString('hex');
  const tmp = `${file}.${process.pid}.${id}.tmp`;
  fs.writeFileSync(tmp, `${id}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    fs.linkSync(tmp, file);
  } catch (error) {
    // Another opener's id got there first: that one is the batch's.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return read() ?? id;
}

function openOutput(dir: string, options: OutputOptions): OutputDir {
  makePrivateDir(dir);
  const batchId = batchIdOf(dir);
  const syncEvery = options.syncEvery ?? 64;
  const resume: ResumeState = { finished: new Map(), repaired: 0, unreadable: 0 };
  const results = readRecords(path.join(dir, FILES.result), resume);
  for (const r of results.records) if (!resume.finished.has(runKey(r))) resume.finished.set(runKey(r), 'result');
  let errors = readRecords(path.join(dir, FILES.error), resume);
  for (const r of errors.records) if (!resume.finished.has(runKey(r))) resume.finished.set(runKey(r), 'error');

  const openAppend = (name: string): number => fs.openSync(path.join(dir, name), 'a', PRIVATE_FILE_MODE);
  const fds = { result: openAppend(FILES.result), error: openAppend(FILES.error) };
  let unsynced = 0;

  // Periodic syncs run on the thread pool (an fsync on a busy disk takes tens of ms, which
  // the event loop of a thousand-run batch must not wait for); the final one at close is sync.
  let syncing = false;
  const syncSoon = (): void => {
    unsynced = 0;
    if (syncing) return;
    syncing = true;
    const { result, error } = fds;
    fs.fsync(result, () => fs.fsync(error, () => (syncing = false)));
  };
  const sync = (): void => {
    fs.fsyncSync(fds.result);
    fs.fsyncSync(fds.error);
    unsynced = 0;
  };

  // Per file: the lines queued since the write in flight (at most one, so lines stay in order).
  const lanes = { result: { pending: [] as string[], busy: false }, error: { pending: [] as string[], busy: false } };
  let failure: Error | undefined;
  let waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const settle = (): void => {
    if (lanes.result.busy || lanes.error.busy) return;
    const done = waiters;
    waiters = [];
    for (const w of done) failure ? w.reject(failure) : w.resolve();
  };
  const pump = (kind: 'result' | 'error'): void => {
    const lane = lanes[kind];
    if (lane.busy || lane.pending.length === 0) return;
    lane.busy = true;
    const bytes = Buffer.from(lane.pending.join(''));
    lane.pending = [];
    const write = (offset: number): void => {
      fs.write(fds[kind], bytes, offset, bytes.length - offset, null, (error, written) => {
        if (error) failure ??= outputWriteError(dir, error);
        else if (offset + written < bytes.length) return write(offset + written); // a short write: the rest follows at once
        lane.busy = false;
        if (!failure && lane.pending.length > 0) pump(kind);
        else settle();
      });
    };
    write(0);
  };
  const flushed = (): Promise<void> =>
    new Promise((resolve, reject) => {
      waiters.push({ resolve, reject });
      settle();
    });

  return {
    dir,
    batchId,
    resume,
    existingRecords: () => {
      const seen = new Set<string>();
      const out: BatchRecord[] = [];
      for (const r of [...results.records, ...errors.records]) {
        const key = runKey(r);
        if (seen.has(key) || !resume.finished.has(key)) continue;
        seen.add(key);
        out.push(r);
      }
      return out;
    },
    errorRecords: () =>
      errors.records.filter((r): r is ErrorRecord => r.kind === 'error' && resume.finished.get(runKey(r)) === 'error'),
    append(record) {
      const key = runKey(record);
      if (resume.finished.has(key)) return false;
      const kind = record.kind === 'result' ? 'result' : 'error';
      if (failure) throw failure;
      // Whole lines only: the unit of crash safety (see the header).
      lanes[kind].pending.push(artefactLine(record));
      pump(kind);
      resume.finished.set(key, kind);
      if (++unsynced >= syncEvery) syncSoon();
      return true;
    },
    supersede(ids) {
      // Called on open, before any append: errors.jsonl's descriptor is replaced below.
      if (lanes.error.busy) throw new Error('supersede while records are being written');
      const moving = errors.lines.filter((_, i) => ids.has(runKey(errors.records[i]!)));
      if (moving.length === 0) return 0;
      // 1. Keep the old records (fsync'ed) before they leave errors.jsonl: a crash between the
      //    steps leaves a copy in both files, never in neither.
      const superseded = fs.openSync(path.join(dir, 'superseded.jsonl'), 'a', PRIVATE_FILE_MODE);
      fs.writeSync(superseded, moving.map((l) => `${l}\n`).join(''));
      fs.fsyncSync(superseded);
      fs.closeSync(superseded);
      // 2. Replace errors.jsonl atomically (write aside, fsync, rename).
      const keep = errors.lines.filter((_, i) => !ids.has(runKey(errors.records[i]!)));
      const tmp = path.join(dir, `${FILES.error}.tmp`);
      fs.writeFileSync(tmp, keep.map((l) => `${l}\n`).join(''), { mode: PRIVATE_FILE_MODE });
      const tfd = fs.openSync(tmp, 'r');
      fs.fsyncSync(tfd);
      fs.closeSync(tfd);
      fs.closeSync(fds.error);
      fs.renameSync(tmp, path.join(dir, FILES.error));
      fds.error = openAppend(FILES.error);
      for (const id of ids) if (resume.finished.get(id) === 'error') resume.finished.delete(id);
      errors = { records: errors.records.filter((r) => !ids.has(runKey(r))), lines: keep };
      return moving.length;
    },
    writeSummary(summary) {
      try {
        writeJsonArtefact(path.join(dir, 'summary.json'), summary);
      } catch (error) {
        throw outputWriteError(dir, error);
      }
    },
    flushed,
    sync,
    async close() {
      try {
        await flushed();
        sync();
      } finally {
        fs.closeSync(fds.result);
        fs.closeSync(fds.error);
      }
    },
  };
}
