/**
 * `OUT/retries.jsonl`: every transient failure a local batch retries, written when the retry is
 * decided, so that a batch killed while a run waits for its retry keeps the earlier tries. On
 * resume the run starts with them: its record lists them in `retries`, and they count against
 * `--retries` (a run is not retried more often because its batch crashed). A finished run's
 * entries stay (its record holds them too); `--retry-errors` drops the entries of the runs it
 * supersedes, whose superseded records keep them. Lines are whole, appended under O_APPEND and
 * scrubbed like records (output.ts's crash rule); a torn or unreadable line is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PRIVATE_FILE_MODE, artefactLine } from '../artefacts.js';
import { runKey } from './attempts.js';
import type { RetriedFailure } from './records.js';

/** The journal's file name in the output directory. */
export const RETRY_JOURNAL_FILE = 'retries.jsonl';

/** One line of the journal. */
interface JournalLine {
  id: string;
  attempt?: number;
  failure: RetriedFailure;
}

/** An open retry journal. */
export interface RetryJournal {
  /** The earlier tries of a run ({@link runKey}), oldest first. */
  tries(key: string): RetriedFailure[];
  /** Keep one more try of a run (written before this returns). */
  add(run: { id: string; attempt?: number | undefined }, failure: RetriedFailure): void;
  /** Drop the tries of these runs (`--retry-errors`: their next run starts afresh). */
  forget(keys: ReadonlySet<string>): void;
}

/** Open (or start) the journal of an output directory. */
export function openRetryJournal(dir: string): RetryJournal {
  const file = path.join(dir, RETRY_JOURNAL_FILE);
  const byKey = new Map<string, RetriedFailure[]>();
  const lines: { key: string; text: string }[] = [];
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let entry: JournalLine;
    try {
      entry = JSON.parse(raw) as JournalLine;
    } catch {
      // A torn last line (a kill mid-write): that try was not kept, the run simply has one fewer.
      continue;
    }
    if (typeof entry?.id !== 'string' || typeof entry.failure !== 'object' || entry.failure === null) continue;
    const key = runKey(entry);
    byKey.set(key, [...(byKey.get(key) ?? []), entry.failure]);
    lines.push({ key, text: raw });
  }
  return {
    tries: (key) => [...(byKey.get(key) ?? [])],
    add(run, failure) {
      const entry: JournalLine = { id: run.id, failure };
      if (run.attempt !== undefined && run.attempt > 1) entry.attempt = run.attempt;
      const line = artefactLine(entry);
      // Whole line in one write on an O_APPEND descriptor: the unit of crash safety.
      const fd = fs.openSync(file, 'a', PRIVATE_FILE_MODE);
      try {
        fs.writeSync(fd, line);
      } finally {
        fs.closeSync(fd);
      }
      const key = runKey(run);
      byKey.set(key, [...(byKey.get(key) ?? []), failure]);
      lines.push({ key, text: line.trimEnd() });
    },
    forget(keys) {
      if (![...keys].some((k) => byKey.has(k))) return;
      const keep = lines.filter((l) => !keys.has(l.key));
      // Written aside and renamed over: a crash leaves the old journal or the new one.
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, keep.map((l) => `${l.text}\n`).join(''), { mode: PRIVATE_FILE_MODE });
      fs.renameSync(tmp, file);
      lines.splice(0, lines.length, ...keep);
      for (const key of keys) byKey.delete(key);
    },
  };
}
