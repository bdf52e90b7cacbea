/**
 * Terminal column widths, so the TTY renderer can count how many screen rows its live region
 * occupies at the CURRENT width (a line longer than the terminal wraps onto several rows; if
 * the count is wrong, cursor-up lands in the settled text and corrupts it).
 *
 * An approximation of `wcwidth`: East Asian Wide/Fullwidth and emoji take two columns,
 * combining marks and zero-width characters none. Input is display text (no escapes).
 */

function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x0300 && code <= 0x036f) || // combining diacritics
    (code >= 0x0483 && code <= 0x0489) ||
    (code >= 0x0591 && code <= 0x05bd) ||
    (code >= 0x0610 && code <= 0x061a) ||
    (code >= 0x064b && code <= 0x065f) ||
    (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x20d0 && code <= 0x20ff) ||
    (code >= 0xfe00 && code <= 0xfe0f) || // variation selectors
    (code >= 0xfe20 && code <= 0xfe2f) ||
    code === 0xfeff ||
    (code >= 0xe0100 && code <= 0xe01ef)
  );
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

/** Columns one code point takes: 0, 1 or 2. Tabs count as one (the renderer expands them first). */
export function codePointWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (isZeroWidth(code)) return 0;
  return isWide(code) ? 2 : 1;
}

/** Display width of a single line of plain text, in columns. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0)!);
  return width;
}

/** Screen rows a line of plain text takes at `columns` columns (an empty line still takes one). */
export function rowsFor(line: string, columns: number): number {
  const cols = Math.max(1, Math.floor(columns));
  const width = displayWidth(line);
  return width === 0 ? 1 : Math.ceil(width / cols);
}

/** Cut a line to at most `columns` display columns, marking the cut with `…`. */
export function fitToWidth(line: string, columns: number): string {
  const cols = Math.max(1, Math.floor(columns));
  if (displayWidth(line) <= cols) return line;
  const out: string[] = [];
  let width = 0;
  for (const ch of line) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (width + w > cols - 1) break;
    out.push(ch);
    width += w;
  }
  out.push('…');
  return out.join('');
}

/** Hard-wrap plain text to `columns`, splitting on `\n` first; returns the rows as the terminal would show them. */
export function wrapToWidth(text: string, columns: number): string[] {
  const cols = Math.max(1, Math.floor(columns));
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    let row: string[] = [];
    let width = 0;
    for (const ch of line) {
      const w = codePointWidth(ch.codePointAt(0)!);
      if (width + w > cols) {
        rows.push(row.join(''));
        row = [];
        width = 0;
      }
      row.push(ch);
      width += w;
    }
    rows.push(row.join(''));
  }
  return rows;
}
