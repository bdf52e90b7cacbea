import { definedOnly } from '../defined-only.js';
/**
 * The prompt's line editor as a pure value: `(editor, key) -> editor`. Multi-line: a trailing
 * `\` before Enter, or Alt+Enter, starts a new line; Enter alone submits. Up/Down move between
 * lines and, on the first/last line, through the prompt history (the unsent draft is kept and
 * comes back below the newest entry). No terminal here: `screen.ts` draws it.
 */

/** Editor state. Lines never contain `\n`; `col` counts UTF-16 units within `lines[row]`. */
export interface Editor {
  readonly lines: readonly string[];
  readonly row: number;
  readonly col: number;
  /** Earlier prompts, oldest first. */
  readonly history: readonly string[];
  /** Position in history while browsing; `history.length` means the draft. */
  readonly historyAt: number;
  /** The unsent text kept while browsing history. */
  readonly draft?: string;
}

/** What an editing key does. */
export type EditKey =
  | { kind: 'insert'; text: string }
  | { kind: 'newline' }
  | { kind: 'enter' }
  | { kind: 'backspace' }
  | { kind: 'delete' }
  | { kind: 'left' }
  | { kind: 'right' }
  | { kind: 'up' }
  | { kind: 'down' }
  | { kind: 'home' }
  | { kind: 'end' }
  | { kind: 'kill-line' }
  | { kind: 'kill-word' };

/** Most prompts kept in history; default 500. */
export const MAX_HISTORY = 500;

/** An empty editor over `history`. */
export function createEditor(history: readonly string[] = []): Editor {
  const kept = history.slice(-MAX_HISTORY);
  return { lines: [''], row: 0, col: 0, history: kept, historyAt: kept.length };
}

/** The editor's text. */
export function textOf(editor: Editor): string {
  return editor.lines.join('\n');
}

function withText(editor: Editor, text: string, at: 'end' | 'start' = 'end'): Editor {
  const lines = text.split('\n');
  const row = at === 'end' ? lines.length - 1 : 0;
  return { ...editor, lines, row, col: at === 'end' ? (lines[row] ?? '').length : (lines[0] ?? '').length };
}

function setLine(editor: Editor, line: string, col: number): Editor {
  const lines = [...editor.lines];
  lines[editor.row] = line;
  return { ...editor, lines, col };
}

/** Apply one key. `enter` returns the editor unchanged: the caller submits (see {@link submit}). */
export function applyKey(editor: Editor, key: EditKey): Editor {
  const line = editor.lines[editor.row] ?? '';
  const { row, col } = editor;
  switch (key.kind) {
    case 'insert': {
      // Pasted text may hold newlines: split it into lines at the cursor.
      const text = key.text.replace(/\r\n?/g, '\n').replace(/\t/g, '  ');
      const before = line.slice(0, col);
      const after = line.slice(col);
      const parts = text.split('\n');
      const lines = [...editor.lines];
      const last = parts.length - 1;
      parts[0] = before + parts[0];
      const endCol = (parts[last] ?? '').length;
      parts[last] = (parts[last] ?? '') + after;
      lines.splice(row, 1, ...parts);
      return { ...editor, lines, row: row + last, col: endCol };
    }
    case 'newline': {
      const lines = [...editor.lines];
      lines.splice(row, 1, line.slice(0, col), line.slice(col));
      return { ...editor, lines, row: row + 1, col: 0 };
    }
    case 'enter':
      return editor;
    case 'backspace': {
      if (col > 0) return setLine(editor, line.slice(0, col - 1) + line.slice(col), col - 1);
      if (row === 0) return editor;
      const lines = [...editor.lines];
      const prev = lines[row - 1] ?? '';
      lines.splice(row - 1, 2, prev + line);
      return { ...editor, lines, row: row - 1, col: prev.length };
    }
    case 'delete': {
      if (col < line.length) return setLine(editor, line.slice(0, col) + line.slice(col + 1), col);
      if (row >= editor.lines.length - 1) return editor;
      const lines = [...editor.lines];
      lines.splice(row, 2, line + (lines[row + 1] ?? ''));
      return { ...editor, lines };
    }
    case 'left':
      if (col > 0) return { ...editor, col: col - 1 };
      return row > 0 ? { ...editor, row: row - 1, col: (editor.lines[row - 1] ?? '').length } : editor;
    case 'right':
      if (col < line.length) return { ...editor, col: col + 1 };
      return row < editor.lines.length - 1 ? { ...editor, row: row + 1, col: 0 } : editor;
    case 'home':
      return { ...editor, col: 0 };
    case 'end':
      return { ...editor, col: line.length };
    case 'kill-line':
      return setLine(editor, line.slice(col), 0);
    case 'kill-word': {
      const head = line.slice(0, col).replace(/\S+\s*$/, '');
      return setLine(editor, head + line.slice(col), head.length);
    }
    case 'up': {
      if (row > 0) return { ...editor, row: row - 1, col: Math.min(col, (editor.lines[row - 1] ?? '').length) };
      if (editor.historyAt === 0) return editor;
      const draft = editor.historyAt === editor.history.length ? textOf(editor) : editor.draft;
      const at = editor.historyAt - 1;
      return withText(definedOnly({ ...editor, historyAt: at, draft }), editor.history[at] ?? '');
    }
    case 'down': {
      if (row < editor.lines.length - 1)
        return { ...editor, row: row + 1, col: Math.min(col, (editor.lines[row + 1] ?? '').length) };
      if (editor.historyAt >= editor.history.length) return editor;
      const at = editor.historyAt + 1;
      const text = at === editor.history.length ? (editor.draft ?? '') : (editor.history[at] ?? '');
      return withText({ ...editor, historyAt: at }, text, 'start');
    }
  }
}

/**
 * Enter pressed: a line ending in `\` continues (the backslash is dropped, a new line starts);
 * otherwise the text is submitted and the editor empties, with the text added to history.
 */
export function submit(editor: Editor): { editor: Editor; text?: string } {
  const line = editor.lines[editor.row] ?? '';
  if (editor.row === editor.lines.length - 1 && line.endsWith('\\') && editor.col === line.length) {
    return { editor: applyKey(setLine(editor, line.slice(0, -1), line.length - 1), { kind: 'newline' }) };
  }
  const text = textOf(editor);
  const history =
    text.trim() === '' || editor.history[editor.history.length - 1] === text
      ? editor.history
      : [...editor.history, text].slice(-MAX_HISTORY);
  return { editor: createEditor(history), text };
}
