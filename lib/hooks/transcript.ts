/**
 * The transcript a hook reads at `transcript_path`: the session's stored events, one
 * `minicode.output.v1` envelope a line (what `minicode replay SESSION --json` prints), in
 * `<store>/transcripts/<session>.jsonl` (`$MINICODE_HOME/store/transcripts/` by default), the
 * file 0600 in a 0700 folder. It is written from the store, never from what a producer emits:
 * each sync waits until the pipeline has settled everything emitted so far and the store has
 * committed it, then adds the events stored since the last sync. What reaches the file has passed
 * the scrub stage (secrets masked, terminal sequences neutralised), as everything in the store has.
 *
 * A process's first sync of a session writes the whole file anew (through a temporary file and a
 * rename, so a hook never reads half of it): a resumed session's earlier turns are in it, and a
 * file an older process left behind, whole or cut short, is replaced rather than trusted.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventStore } from '../store/store.js';
import { jsonLine } from '../render/json-line.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../private-files.js';

/** Bring the session's transcript file up to date; resolves with its path. */
export type HookTranscript = () => Promise<string>;

/** Options of {@link createHookTranscript}. */
export interface HookTranscriptOptions {
  store: Pick<EventStore, 'dir' | 'flushed' | 'iterateSession'>;
  sessionId: string;
  /** Resolves once everything emitted so far has passed the pipeline (and so reached the store's queue). */
  settled: () => Promise<unknown>;
}

/** The folder of the transcripts of the sessions kept in `storeDir`. */
export function transcriptDir(storeDir: string): string {
  return path.join(storeDir, 'transcripts');
}

/** The transcript of one stored session, synced on demand (syncs run one at a time, in call order). */
export function createHookTranscript(options: HookTranscriptOptions): HookTranscript {
  const { store, sessionId } = options;
  const dir = transcriptDir(store.dir);
  const file = path.join(dir, `${sessionId}.jsonl`);
  /** The last sequence number in the file; undefined before this process's first sync. */
  let lastSeq: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const sync = async (): Promise<string> => {
    await options.settled();
    await store.flushed(sessionId);
    const lines: string[] = [];
    let last = lastSeq ?? -1;
    for (const event of store.iterateSession(sessionId, last + 1)) {
      lines.push(`${jsonLine(event)}\n`);
      last = event.seq;
    }
    makePrivateDir(dir);
    if (lastSeq === undefined) {
      const temporary = `${file}.${process.pid}.tmp`;
      await fs.promises.writeFile(temporary, lines.join(''), { mode: PRIVATE_FILE_MODE });
      await fs.promises.rename(temporary, file);
    } else if (lines.length > 0) {
      await fs.promises.appendFile(file, lines.join(''), { mode: PRIVATE_FILE_MODE });
    }
    lastSeq = last;
    return file;
  };

  return () => {
    const next = queue.then(sync);
    queue = next.catch(() => undefined);
    return next;
  };
}
