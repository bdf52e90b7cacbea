/**
 * The prompt history of one user, across sessions and workspaces: `history.jsonl` beside the
 * store (`$MINICODE_HOME/history.jsonl` when MINICODE_HOME is set), one JSON string a line,
 * newest last, written 0600. Prompts are scrubbed before they are written (a key pasted into a
 * prompt must not land in a file) and the file is bounded: past twice {@link MAX_HISTORY}
 * entries it is rewritten with the newest {@link MAX_HISTORY}. A missing or damaged file is an
 * empty history (a damaged line is skipped), never an error.
 */
import fs from 'node:fs';
import { replaceFile } from '../private-files.js';
import path from 'node:path';
import { appendArtefactLine } from '../artefacts.js';
import { resolveStoreDir } from '../store/location.js';
import { MAX_HISTORY } from './line-editor.js';
import { dropExpected, reportDropped } from '../debug.js';

/** Where the history of the user of `env` lives. */
export function historyPath(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(resolveStoreDir({ env })), 'history.jsonl');
}

/** The persisted prompts, oldest first (at most {@link MAX_HISTORY}). */
export function loadHistory(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    // No history yet (or none readable): the session starts without it.
    dropExpected('reading the prompt history', error, 'ENOENT', 'ENOTDIR');
    return [];
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'string') out.push(v);
    } catch {
      // A torn last line (a crash mid-write) or a damaged one: skipped.
    }
  }
  return out.slice(-MAX_HISTORY);
}

/** Append one prompt (scrubbed); best effort, a failure to write is not the person's problem. */
export function appendHistory(file: string, prompt: string, env: NodeJS.ProcessEnv): void {
  if (prompt.trim() === '') return;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    appendArtefactLine(file, prompt, { env });
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (lines.length > 2 * MAX_HISTORY) {
      replaceFile(file, `${lines.slice(-MAX_HISTORY).join('\n')}\n`);
    }
  } catch (error) {
    // Read-only home, full disk: the session goes on without persisted history.
    reportDropped('writing the prompt history', error);
  }
}
