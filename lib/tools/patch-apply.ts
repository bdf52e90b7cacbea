/**
 * Applying the chunks of one `Update File` operation to a file's text. Pure. Chunks are found in
 * order, each after the previous one, by their old lines (context and removed lines), never by
 * line numbers: models count lines badly and copy them well. A line is matched exactly first,
 * then ignoring trailing whitespace, then ignoring surrounding whitespace, then with typographic
 * dashes, quotes and spaces read as their ASCII forms; the first pass that finds the whole
 * sequence wins, so a looser pass never overrides an exact match further down. Old lines that
 * are not found fail the whole file: nothing is guessed.
 */
import type { PatchChunk } from './patch-parse.js';

/** What {@link applyChunks} gives: the new text, or why a chunk does not apply. */
export type ChunkApply = { ok: true; text: string } | { ok: false; message: string };

const LOOSE: Record<string, string> = {};
for (const c of '\u2010\u2011\u2012\u2013\u2014\u2015\u2212') LOOSE[c] = '-';
for (const c of '\u2018\u2019\u201a\u201b') LOOSE[c] = "'";
for (const c of '\u201c\u201d\u201e\u201f') LOOSE[c] = '"';
for (const c of '\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000') LOOSE[c] = ' ';
const LOOSE_CHARS = new RegExp(`[${Object.keys(LOOSE).join('')}]`, 'g');

/** The comparisons tried in order, strictest first. */
const PASSES: ((line: string) => string)[] = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => line.trim().replace(LOOSE_CHARS, (c) => LOOSE[c]!),
];

/** Index of `pattern` in `lines` at or after `from` (from the end first when `atEnd`), or -1. */
export function seekLines(lines: readonly string[], pattern: readonly string[], from: number, atEnd: boolean): number {
  if (pattern.length === 0) return from;
  if (pattern.length > lines.length) return -1;
  const last = lines.length - pattern.length;
  const start = atEnd ? last : from;
  for (const norm of PASSES) {
    const wanted = pattern.map(norm);
    for (let i = start; i <= last; i++) {
      let ok = true;
      for (let j = 0; j < wanted.length && ok; j++) ok = norm(lines[i + j]!) === wanted[j];
      if (ok) return i;
    }
  }
  // An end-of-file chunk whose lines are not the last ones: searched like any other.
  return atEnd && start > from ? seekLines(lines, pattern, from, false) : -1;
}

/** A few lines for a message, each cut to 80 characters. */
function excerpt(lines: readonly string[]): string {
  const shown = lines.slice(0, 3).map((l) => (l.length > 80 ? `${l.slice(0, 80)}...` : l));
  return shown.join('\\n') + (lines.length > 3 ? `\\n... (${lines.length} lines)` : '');
}

/**
 * Apply `chunks` to `text` (the file `display`). The result always ends with a newline, as the
 * format's added lines do; CRLF files keep CRLF.
 */
export function applyChunks(text: string, chunks: readonly PatchChunk[], display: string): ChunkApply {
  const crlf = text.includes('\r\n');
  const lines = text.split(/\r?\n/);
  // The empty string after a final newline is not a line of the file.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const replacements: { at: number; remove: number; insert: string[] }[] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    if (chunk.context !== undefined) {
      const found = seekLines(lines, [chunk.context], cursor, false);
      if (found < 0)
        return { ok: false, message: `context '@@ ${chunk.context.slice(0, 80)}' not found in ${display}` };
      cursor = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes right after its context line, or at the end of the file without one.
      replacements.push({ at: chunk.context !== undefined ? cursor : lines.length, remove: 0, insert: chunk.newLines });
      continue;
    }
    let oldLines = chunk.oldLines;
    let newLines = chunk.newLines;
    let found = seekLines(lines, oldLines, cursor, chunk.endOfFile);
    if (found < 0 && oldLines[oldLines.length - 1] === '') {
      // A trailing empty line in the chunk stands for the file's final newline.
      oldLines = oldLines.slice(0, -1);
      if (newLines[newLines.length - 1] === '') newLines = newLines.slice(0, -1);
      found = seekLines(lines, oldLines, cursor, chunk.endOfFile);
    }
    if (found < 0)
      return {
        ok: false,
        message: `the lines to change were not found in ${display} (context mismatch): ${excerpt(oldLines)}`,
      };
    replacements.push({ at: found, remove: oldLines.length, insert: newLines });
    cursor = found + oldLines.length;
  }
  // Back to front, so earlier indexes stay valid (a stable sort keeps two insertions at one place in patch order).
  replacements.sort((a, b) => a.at - b.at);
  for (let r = replacements.length - 1; r >= 0; r--) {
    const { at, remove, insert } = replacements[r]!;
    lines.splice(at, remove, ...insert);
  }
  const eol = crlf ? '\r\n' : '\n';
  return { ok: true, text: lines.length === 0 ? '' : lines.join(eol) + eol };
}
