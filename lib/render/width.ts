/**
 * Terminal column widths, so the TTY renderer can count how many screen rows its live region
 * occupies at the CURRENT width (a line longer than the terminal wraps onto several rows; if
 * the count is wrong, cursor-up lands in the settled text and corrupts it), and the prompt
 * knows where its cursor is.
 *
 * Widths come from `string-width` (East Asian Width from the Unicode data, RGI emoji, emoji
 * presentation selectors), measured per grapheme cluster (`Intl.Segmenter`), so a ZWJ family,
 * a flag, a keycap or an emoji with a skin tone is one unit of two columns and is never cut in
 * the middle by a wrap. Input is display text (no escapes); printable ASCII takes a fast path.
 */
import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Printable ASCII only: one column per character, no segmentation needed. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Columns one grapheme cluster takes: 0, 1 or 2. A tab counts as one (the renderer expands tabs first). */
export function graphemeWidth(grapheme: string): number {
  if (grapheme === '\t') return 1;
  return stringWidth(grapheme);
}

/** The grapheme clusters of `text`, each with its width. */
function* clusters(text: string): Generator<{ text: string; width: number }> {
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
