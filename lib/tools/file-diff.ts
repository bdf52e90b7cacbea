/**
 * The bounded unified diff an edit tool reports (`file.changed`) or asks approval with
 * (`user.approval.requested`). jsdiff computes the hunks; this module bounds them for an event:
 * at most {@link FILE_DIFF_MAX_LINES} lines of at most {@link FILE_DIFF_MAX_LINE_CHARS}
 * characters, the rest counted. Loaded lazily: only a run that edits a file pays for jsdiff.
 *
 * Hazards handled: a binary file (a NUL byte) gets no diff; a large file costs a scan, not a
 * diff of the whole file (see {@link makeFileDiff}); a rewrite too different to diff cheaply is
 * shown as a replacement rather than stalling the loop; a CRLF file does not show every line as
 * changed nor keep `\r` in its lines.
 */
import type { FileDiff } from '../events/payloads.js';
import { FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES } from '../events/file-diff-bounds.js';

/** Options of {@link makeFileDiff}. */
export interface FileDiffOptions {
  /** Unchanged lines around each change; default 3. */
  context?: number;
  /** Most changed lines (both sides) diffed line by line; past it the change shows as a replacement; default 5,000. */
  maxEditLength?: number;
}

function cut(line: string): string {
  const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (clean.length <= FILE_DIFF_MAX_LINE_CHARS) return clean;
  return `${clean.slice(0, FILE_DIFF_MAX_LINE_CHARS - 1)}…`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Keep the first lines up to the bound; count the rest. */
function bounded(all: Iterable<string>, added: number, removed: number): FileDiff {
  const lines: string[] = [];
  let omitted = 0;
  for (const line of all) {
    if (lines.length < FILE_DIFF_MAX_LINES) lines.push(cut(line));
    else omitted++;
  }
  return { lines, added, removed, omitted };
}

/** Lines of one side, and the tuple of both sides' lines the diff works on. */
interface Sides {
  a: string[];
  b: string[];
}

/** How many leading and trailing lines the two sides share (never overlapping). */
function commonEnds({ a, b }: Sides): { prefix: number; suffix: number } {
  const max = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < max && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}

/**
 * The diff from `before` (undefined: the file is new) to `after`; undefined when there is
 * nothing to show (binary content or no change).
 *
 * Only the changed middle is diffed: the lines both sides share at the start and the end are
 * cut first (all but the context), so a one-line edit of a 5 MB file costs a line comparison,
 * not a Myers diff of the whole file. A middle too large to diff cheaply (over `maxEditLength`
 * lines) is shown as a whole replacement, still a valid unified diff.
 */
export async function makeFileDiff(
  before: string | undefined,
  after: string,
  options: FileDiffOptions = {},
): Promise<FileDiff | undefined> {
  if (after.includes('\u0000') || before?.includes('\u0000')) return undefined;
  if (before === undefined || before === '') {
    const lines = splitLines(after);
    if (lines.length === 0) return undefined;
    return bounded(
      (function* () {
        yield `@@ -0,0 +1,${lines.length} @@`;
        for (const l of lines) yield `+${l}`;
      })(),
      lines.length,
      0,
    );
  }
  if (before === after) return undefined;
  const context = options.context ?? 3;
  const maxEditLength = options.maxEditLength ?? 5_000;
  // Split on \n keeping the last (possibly empty) piece: joining a slice that reaches the end
  // gives back the text's own ending, newline or not.
  const sides: Sides = { a: before.split('\n'), b: after.split('\n') };
  const { prefix, suffix } = commonEnds(sides);
  const start = Math.max(0, prefix - context);
  const keep = Math.max(0, suffix - context);
  const a = sides.a.slice(start, sides.a.length - keep);
  const b = sides.b.slice(start, sides.b.length - keep);
  const changedA = sides.a.length - suffix - prefix;
  const changedB = sides.b.length - suffix - prefix;
  if (changedA + changedB > maxEditLength) return replacement(sides, prefix, suffix, context);
  // A slice that stops before the end is given a final newline on both sides, so jsdiff does
  // not report a missing one that the file does not lack.
  const tail = keep > 0 ? '\n' : '';
  const { structuredPatch } = await import('diff');
  const patch = structuredPatch('a', 'b', a.join('\n') + tail, b.join('\n') + tail, undefined, undefined, {
    context,
    stripTrailingCr: true,
    maxEditLength,
    timeout: 2_000,
  });
  if (patch === undefined) return replacement(sides, prefix, suffix, context);
  if (patch.hunks.length === 0) return undefined;
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return bounded(
    (function* () {
      for (const hunk of patch.hunks) {
        yield `@@ -${hunk.oldStart + start},${hunk.oldLines} +${hunk.newStart + start},${hunk.newLines} @@`;
        yield* hunk.lines;
      }
    })(),
    added,
    removed,
  );
}

/** The changed middle as one hunk: every old line removed, every new line added, with context. */
function replacement({ a, b }: Sides, prefix: number, suffix: number, context: number): FileDiff {
  // The empty piece after a final newline is not a line.
  const lenA = a[a.length - 1] === '' ? a.length - 1 : a.length;
  const lenB = b[b.length - 1] === '' ? b.length - 1 : b.length;
  const from = Math.max(0, prefix - context);
  const oldEnd = Math.min(a.length - suffix, lenA);
  const newEnd = Math.min(b.length - suffix, lenB);
  const after = Math.max(0, Math.min(context, lenA - oldEnd));
  const removed = oldEnd - prefix;
  const added = newEnd - prefix;
  return bounded(
    (function* () {
      yield `@@ -${from + 1},${oldEnd + after - from} +${from + 1},${newEnd + after - from} @@`;
      for (let i = from; i < prefix; i++) yield ` ${a[i]}`;
      for (let i = prefix; i < oldEnd; i++) yield `-${a[i]}`;
      for (let i = prefix; i < newEnd; i++) yield `+${b[i]}`;
      for (let i = oldEnd; i < oldEnd + after; i++) yield ` ${a[i]}`;
    })(),
    added,
    removed,
  );
}
