/**
 * Reading a batch output directory for a report, read-only: unlike the batch's own open
 * (lib/batch/output.ts), nothing is repaired or truncated, since a report may run while the
 * batch is still writing. A whole line that is not a record (edited, damaged) is skipped and
 * counted; a last line without its newline is one still being written, and is left out.
 * The prompts come from the input named in `summary.json` when it is still readable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { scrubArtefact } from '../../artefacts.js';
import { MinicodeError } from '../../errors.js';
import type { BatchSummary } from '../batch.js';
import type { BatchRecord } from '../records.js';
import { dropExpected } from '../../debug.js';
import { runKey } from '../attempts.js';
import { patchFileOf } from './escape.js';

/** Longest prompt kept per line (the report shows a head, not the whole prompt). */
export const PROMPT_CHARS = 4000;
/** Longest patch embedded per line; default 64,000 characters, a marker says what was cut. */
export const PATCH_CHARS = 64_000;

/** What a report needs from one output directory. */
export interface LoadedBatch {
  dir: string;
  /** `summary.json`, when present and readable. */
  summary?: Partial<BatchSummary>;
  /** The first record of each run (an id's attempt), results before errors. */
  records: BatchRecord[];
  /** Lines of results.jsonl/errors.jsonl that were not a record. */
  unreadable: number;
  /** Prompt of each id, from the input file named in the summary (absent when it is gone). */
  prompts: Map<string, string>;
  /** Each record's patch text by its `patch` path (`patches/<file>.diff`), scrubbed and bounded, to embed in the page. */
  patches: Map<string, string>;
}

/**
 * The patches the records name, read from `dir` when the path has the shape the batch writes
 * (see {@link patchFileOf}); a missing or unreadable file is left out (the page says so).
 */
function readPatches(dir: string, records: readonly BatchRecord[]): Map<string, string> {
  const patches = new Map<string, string>();
  for (const r of records) {
    const file = patchFileOf(r.patch);
    if (file === undefined || patches.has(r.patch as string)) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, 'patches', file), 'utf8');
    } catch (error) {
      dropExpected('batch report: reading a patch', error, 'ENOENT');
      continue;
    }
    // Scrubbed whole before it is cut, as the prompts are.
    const clean = scrubArtefact(text);
    patches.set(
      r.patch as string,
      clean.length > PATCH_CHARS
        ? `${clean.slice(0, PATCH_CHARS)}\n[… ${clean.length - PATCH_CHARS} more characters in ${r.patch as string}]`
        : clean,
    );
  }
  return patches;
}

function readJsonl(file: string, into: Map<string, BatchRecord>): number {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new MinicodeError(
      'MINICODE_E_INPUT_UNREADABLE',
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let unreadable = 0;
  // A last line without its newline is a record still being written: not a record yet, not an error.
  const rows = text.split('\n');
  rows.pop();
  for (const row of rows) {
    if (row.trim() === '') continue;
    try {
      const r = JSON.parse(row) as BatchRecord;
      if (!r || typeof r !== 'object' || typeof r.id !== 'string' || (r.kind !== 'result' && r.kind !== 'error'))
        throw new Error('not a record');
      if (!into.has(runKey(r))) into.set(runKey(r), r);
    } catch {
      // Not JSON, or not a record: counted, the report says how many.
      unreadable++;
    }
  }
  return unreadable;
}

function readSummary(dir: string): Partial<BatchSummary> | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as unknown;
    return s && typeof s === 'object' && !Array.isArray(s) ? (s as Partial<BatchSummary>) : undefined;
  } catch (error) {
    // Absent or damaged: the report goes on without it.
    dropExpected('batch report: reading summary.json', error, 'ENOENT', 'SyntaxError');
    return undefined;
  }
}

function readPrompts(input: unknown): Map<string, string> {
  const prompts = new Map<string, string>();
  if (typeof input !== 'string' || input === '') return prompts;
  let text: string;
  try {
    text = fs.readFileSync(input, 'utf8');
  } catch (error) {
    dropExpected('batch report: reading the input prompts', error, 'ENOENT');
    return prompts;
  }
  for (const row of text.split('\n')) {
    if (row.trim() === '') continue;
    try {
      const line = JSON.parse(row) as { id?: unknown; prompt?: unknown };
      // Scrubbed whole before the head is cut: a token cut in two is no longer recognised as one.
      if (typeof line.id === 'string' && typeof line.prompt === 'string' && !prompts.has(line.id))
        prompts.set(line.id, scrubArtefact(line.prompt).slice(0, PROMPT_CHARS));
    } catch {
      // An invalid input line has no record either.
    }
  }
  return prompts;
}

/** Load `dir`; a folder with none of summary.json, results.jsonl, errors.jsonl is MINICODE_E_BATCH_REPORT. */
export function loadBatchOutput(dir: string): LoadedBatch {
  const files = ['summary.json', 'results.jsonl', 'errors.jsonl'];
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory() || !files.some((f) => fs.existsSync(path.join(dir, f)))) {
    throw new MinicodeError(
      'MINICODE_E_BATCH_REPORT',
      `${dir} is not a batch output directory (no summary.json, results.jsonl or errors.jsonl)`,
      {
        action: 'pass the --out folder of a batch: minicode batch report minicode-batch-prompts',
      },
    );
  }
  const byId = new Map<string, BatchRecord>();
  const unreadable = readJsonl(path.join(dir, 'results.jsonl'), byId) + readJsonl(path.join(dir, 'errors.jsonl'), byId);
  const summary = readSummary(dir);
  const records = [...byId.values()];
  const loaded: LoadedBatch = {
    dir,
    records,
    unreadable,
    prompts: readPrompts(summary?.input),
    patches: readPatches(dir, records),
  };
  if (summary) loaded.summary = summary;
  return loaded;
}
