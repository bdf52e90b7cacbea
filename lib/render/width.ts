/**
 * Terminal column widths, so the TTY renderer can count how many screen rows its live region
 * occupies at the CURRENT width (a line longer than the terminal wraps onto several rows; if
 * the count is wrong, cursor-up lands in the settled text and corrupts it), and the prompt
 * knows where its cursor is.
 *
 * Widths follow `string-width` (East Asian Width from the Unicode data, RGI emoji, emoji
 * presentation selectors), measured per grapheme cluster, so a ZWJ family, a flag, a keycap
 * or an emoji with a skin tone is one unit of two columns and is never cut in the middle by a
 * wrap. This runs on every redraw, so the common cases stay cheap:
 * - printable ASCII: one column a character, no segmentation;
 * - text with no character that can join a cluster (marks, joiners, selectors, skin tones,
 *   regional indicators, Hangul jamo, tags) is one cluster per code point, measured by its
 *   East Asian Width (`get-east-asian-width`, the table string-width itself uses; the two
 *   agree on every single code point) without `Intl.Segmenter`;
 * - only multi-code-point clusters go to `string-width`, and their widths are cached.
 * Input is display text (no escapes).
 */
import { eastAsianWidth } from 'get-east-asian-width';
import stringWidth from 'string-width';

/** Created on first use: building a segmenter costs tens of milliseconds. */
let graphemes: Intl.Segmenter | undefined;

/** Printable ASCII only: one column per character, no segmentation needed. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Characters that can make a cluster of several code points; text without them needs no segmenter. */
const CLUSTER_JOINERS =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each joiner is matched as a single code point on purpose.
  /[\p{M}\u200d\ufe00-\ufe0f\u20e3\u1160-\u11ff\ud7b0-\ud7ff\u{1f3fb}-\u{1f3ff}\u{1f1e6}-\u{1f1ff}\u{e0020}-\u{e007f}]/u;

/** A code point that takes no column on its own: controls, format characters, marks, default-ignorables. */
const ZERO_WIDTH = /^[\p{Default_Ignorable_Code_Point}\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Cs}]$/u;

/** Widths of multi-code-point clusters already measured; cleared when it reaches its bound (default 4096). */
const clusterWidths = new Map<string, number>();
const MAX_CACHED_CLUSTERS = 4096;

/** Columns one code point takes on its own: 0, 1 or 2. */
function codePointWidth(char: string): number {
  const code = char.codePointAt(0)!;
  if (code >= 0x20 && code < 0x7f) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  return eastAsianWidth(code);
}

/** Columns one grapheme cluster takes: 0, 1 or 2. A tab counts as one (the renderer expands tabs first). */
export function graphemeWidth(grapheme: string): number {
  if (grapheme === '\t') return 1;
  const first = grapheme.codePointAt(0);
  if (first === undefined) return 0;
  if (grapheme.length === (first > 0xffff ? 2 : 1)) return codePointWidth(grapheme);
  let width = clusterWidths.get(grapheme);
  if (width === undefined) {
    width = stringWidth(grapheme);
    if (clusterWidths.size >= MAX_CACHED_CLUSTERS) clusterWidths.clear();
    clusterWidths.set(grapheme, width);
  }
  return width;
}

/** The grapheme clusters of `text`, each with its width. */
function* clusters(text: string): Generator<{ text: string; width: number }> {
  if (!CLUSTER_JOINERS.test(text)) {
    for (const char of text) yield { text: char, width: char === '\t' ? 1 : codePointWidth(char) };
    return;
  }
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) yield { text: segment, width: graphemeWidth(segment) };
}

/** Display width of a single line of plain text, in columns. */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const c of clusters(text)) width += c.width;
  return width;
}

/**
 * Screen rows a line of plain text takes at `columns` columns (an empty line still takes one).
 * Not `ceil(width / columns)`: a wide character that does not fit at the end of a row moves
 * to the next one and leaves a blank column, so a line with wide characters can take more.
 */
export function rowsFor(line: string, columns: number): number {
  const cols = Math.max(1, Math.floor(columns));
  const width = displayWidth(line);
  if (width <= cols) return 1;
  return PRINTABLE_ASCII.test(line) ? Math.ceil(width / cols) : wrapToWidth(line, cols).length;
}

/** Cut a line to at most `columns` display columns, marking the cut with `…`. */
export function fitToWidth(line: string, columns: number): string {
  const cols = Math.max(1, Math.floor(columns));
  if (displayWidth(line) <= cols) return line;
  if (PRINTABLE_ASCII.test(line)) return `${line.slice(0, cols - 1)}…`;
  const out: string[] = [];
  let width = 0;
  for (const c of clusters(line)) {
    if (width + c.width > cols - 1) break;
    out.push(c.text);
    width += c.width;
  }
  out.push('…');
  return out.join('');
}

/**
 * Hard-wrap plain text to `columns`, splitting on `\n` first; returns the rows as the terminal
 * would show them. A wide grapheme that does not fit at the end of a row starts the next one,
 * as terminals do.
 */
export function wrapToWidth(text: string, columns: number): string[] {
  const cols = Math.max(1, Math.floor(columns));
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    if (PRINTABLE_ASCII.test(line)) {
      if (line === '') rows.push('');
      for (let at = 0; at < line.length; at += cols) rows.push(line.slice(at, at + cols));
      continue;
    }
    let row: string[] = [];
    let width = 0;
    for (const c of clusters(line)) {
      if (width + c.width > cols && row.length > 0) {
        rows.push(row.join(''));
        row = [];
        width = 0;
      }
      row.push(c.text);
      width += c.width;
    }
    rows.push(row.join(''));
  }
  return rows;
}

/** Erase `rows` screen rows ending at the cursor's row, leaving the cursor at column 0 of the first. */
export function eraseRows(rows: number): string {
  if (rows <= 0) return '';
  return `\r\u001b[2K${'\u001b[1A\u001b[2K'.repeat(rows - 1)}`;
}
