/**
 * The idle prompt area: footer lines, then the editor's lines, redrawn in place. Erasing moves
 * the cursor up to the area's first row and clears to the end of the screen; rows are counted
 * at the CURRENT width, like the TTY renderer's live region, so a resize (which reflows the old
 * lines in tmux, iTerm2 and VTE) is redrawn without stale rows. Text is written plain; colour,
 * when on, only dims the footer and never carries meaning; control characters in the text are
 * drawn as visible characters, never written to the terminal.
 */
import { displayWidth, rowsFor } from '../render/width.js';
import type { Editor } from './line-editor.js';
import { terminalUnsafePattern } from '../scrub/terminal-unsafe.js';

/** Prompt prefixes: first line and continuation lines (same width, so text lines up). */
export const PROMPT = '› ';
export const CONTINUATION = '… ';

const ESC = '\u001b[';

// lib/scrub's terminal-unsafe class, and \t and \n too (the prompt draws its own lines).
const CONTROLS = terminalUnsafePattern('g', true);

/**
 * `text` with each control character shown as one visible character (C0 as its control picture,
 * `␛` for ESC, the rest as `�`): a file name, a paste or a command argument never writes an
 * escape sequence to the terminal, and the drawn text keeps one column per replaced character,
 * so the cursor arithmetic holds.
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    return code === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** The lines and the cursor position (row within the area, column) of one drawing. */
export interface AreaLayout {
  lines: string[];
  cursorRow: number;
  cursorCol: number;
  rows: number;
}

/** Lay out `header` lines above the editor at `columns` (pure; tested without a terminal). */
export function layoutArea(header: readonly string[], editor: Editor, columns: number, prompt = PROMPT): AreaLayout {
  const cols = Math.max(1, columns);
  const lines = header.map(visibleControls);
  let rows = 0;
  for (const line of lines) rows += rowsFor(line, cols);
  let cursorRow = 0;
  let cursorCol = 0;
  editor.lines.forEach((text, i) => {
    const prefix = i === 0 ? prompt : CONTINUATION;
    const line = prefix + visibleControls(text);
    if (i === editor.row) {
      const offset = displayWidth(prefix + visibleControls(text.slice(0, editor.col)));
      cursorRow = rows + Math.floor(offset / cols);
      cursorCol = offset % cols;
    }
    lines.push(line);
    rows += rowsFor(line, cols);
  });
  // A cursor right after a line that fills the width sits on the next row: the area grows by one.
  if (cursorRow >= rows) rows = cursorRow + 1;
  return { lines, cursorRow, cursorCol, rows };
}

/** A drawn prompt area that remembers where it left the cursor. */
export interface PromptArea {
  /** Erase what is drawn and draw `layout` (one write). */
  draw(header: readonly string[], editor: Editor, prompt?: string): void;
  /** Erase the area, leaving the cursor at its first row, column 0. */
  erase(): void;
  readonly drawn: boolean;
}

/** Create a prompt area writing to `out`, measuring with `columns()`. */
export function createPromptArea(
  out: (s: string) => void,
  columns: () => number,
  styleHeader: (line: string) => string = (l) => l,
): PromptArea {
  /** What is drawn, to find its cursor row at the width of the moment of erasing. */
  let last: { header: readonly string[]; editor: Editor; prompt: string | undefined } | undefined;
  const eraseSeq = (): string => {
    if (!last) return '';
    // After a resize the terminal has reflowed the drawn lines: the cursor's row within the
    // area is counted at the current width, not at the width it was drawn at.
    const cursorRow = layoutArea(last.header, last.editor, columns(), last.prompt).cursorRow;
    last = undefined;
    return `${cursorRow > 0 ? `${ESC}${cursorRow}A` : ''}\r${ESC}J`;
  };
  return {
    draw(header, editor, prompt) {
      const cols = columns();
      const layout = layoutArea(header, editor, cols, prompt);
      const styled = layout.lines.map((l, i) => (i < header.length ? styleHeader(l) : l));
      // After writing, the cursor sits on the last row; move it back to the editing point.
      const up = layout.rows - 1 - layout.cursorRow;
      const grown = layout.rows > layout.lines.reduce((n, l) => n + rowsFor(l, cols), 0) ? '\r\n' : '';
      out(
        `${eraseSeq()}${styled.join('\n')}${grown}${up > 0 ? `${ESC}${up}A` : ''}\r${layout.cursorCol > 0 ? `${ESC}${layout.cursorCol}C` : ''}`,
      );
      last = { header: [...header], editor, prompt };
    },
    erase() {
      const seq = eraseSeq();
      if (seq !== '') out(seq);
    },
    get drawn() {
      return last !== undefined;
    },
  };
}
