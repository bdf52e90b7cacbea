/**
 * The bounded unified diff an edit tool reports (`file.changed`) or asks approval with
 * (`user.approval.requested`). jsdiff computes the hunks; this module bounds them for an event:
 * at most {@link FILE_DIFF_MAX_LINES} lines of at most {@link FILE_DIFF_MAX_LINE_CHARS}
 * characters, the rest counted. Loaded lazily: only a run that edits a file pays for jsdiff.
 *
 * Hazards handled: a binary file (a NUL byte) gets no diff; a rewrite too different to diff
 * cheaply (more than `maxEditLength` edits) gets none either rather than stalling the loop; a
 * CRLF file does not show every line as changed nor keep `\r` in its lines.
 */
import { FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES, type FileDiff } from '../events/index.js';

/** Options of {@link makeFileDiff}. */
export interface FileDiffOptions {
  /** Unchanged lines around each change; default 3. */
  context?: number;
  /** Most edits jsdiff explores before giving up (no diff then); default 5,000. */
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

/**
 * The diff from `before` (undefined: the file is new) to `after`; undefined when there is
 * nothing to show (binary content, no change, or too many edits to diff).
 */
export async function makeFileDiff(before: string | undefined, after: string, options: FileDiffOptions = {}): Promise<FileDiff | undefined> {
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
  const { structuredPatch } = await import('diff');
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, {
    context: options.context ?? 3,
    maxEditLength: options.maxEditLength ?? 5_000,
    stripTrailingCr: true,
  });
  if (patch === undefined || patch.hunks.length === 0) return undefined;
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
        yield `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`;
        yield* hunk.lines;
      }
    })(),
    added,
    removed,
  );
}
