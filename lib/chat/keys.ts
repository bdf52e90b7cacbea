/**
 * The key decoder: what one key press means to the interactive mode. Input comes from
 * `readline.emitKeypressEvents` on raw-mode stdin (which splits escape sequences into named
 * keys); this module only maps those to actions, so it is pure and tested without a terminal.
 */
import type { EditKey } from './line-editor.js';

/** A key as `readline` reports it on `keypress`. */
export interface KeyPress {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** What a key press asks for. */
export type KeyAction =
  | { kind: 'edit'; key: EditKey }
  | { kind: 'submit' }
  /** Esc: abort the running turn (ignored at the prompt). */
  | { kind: 'abort' }
  /** Ctrl+C: abort the turn, or exit at the prompt / on the second press. */
  | { kind: 'interrupt' }
  /** Ctrl+D on an empty prompt: exit. */
  | { kind: 'eof' }
  /** Ctrl+O: fold or unfold reasoning. */
  | { kind: 'toggle-reasoning' }
  /** Ctrl+L: redraw. */
  | { kind: 'redraw' }
  /** Tab: complete the `@path` at the cursor (two spaces elsewhere). */
  | { kind: 'complete' }
  /** Ctrl+R: search the prompt history backwards. */
  | { kind: 'history-search' }
  | { kind: 'ignore' };

const EDIT_NAMES: Record<string, EditKey['kind']> = {
  backspace: 'backspace',
  delete: 'delete',
  left: 'left',
  right: 'right',
  up: 'up',
  down: 'down',
  home: 'home',
  end: 'end',
};

/** Printable text of a key press (`undefined` for control keys). */
function printable(str: string | undefined, key: KeyPress): string | undefined {
  if (key.ctrl || key.meta) return undefined;
  const s = str ?? key.sequence;
  if (s === undefined || s === '') return undefined;
  // Anything holding a C0/C1 control or ESC is a key we do not know, not text.
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(s)) return undefined;
  return s;
}

/** Map one `keypress` to an action. */
export function decodeKey(str: string | undefined, key: KeyPress | undefined): KeyAction {
  const k: KeyPress = key ?? {};
  if (k.ctrl) {
    switch (k.name) {
      case 'c':
        return { kind: 'interrupt' };
      case 'd':
        return { kind: 'eof' };
      case 'o':
        return { kind: 'toggle-reasoning' };
      case 'l':
        return { kind: 'redraw' };
      case 'r':
        return { kind: 'history-search' };
      case 'g':
        // Ctrl+G leaves a history search, as in readline.
        return { kind: 'abort' };
      case 'a':
        return { kind: 'edit', key: { kind: 'home' } };
      case 'e':
        return { kind: 'edit', key: { kind: 'end' } };
      case 'u':
        return { kind: 'edit', key: { kind: 'kill-line' } };
      case 'w':
        return { kind: 'edit', key: { kind: 'kill-word' } };
      case 'j':
        return { kind: 'edit', key: { kind: 'newline' } };
      default:
        return { kind: 'ignore' };
    }
  }
  if (k.name === 'return' || k.name === 'enter') {
    // Alt+Enter (ESC CR) and Shift+Enter where the terminal reports it: a new line.
    return k.meta || k.shift ? { kind: 'edit', key: { kind: 'newline' } } : { kind: 'submit' };
  }
  if (k.name === 'escape') return { kind: 'abort' };
  if (k.name === 'tab') return { kind: 'complete' };
  const edit = k.name !== undefined ? EDIT_NAMES[k.name] : undefined;
  if (edit) return { kind: 'edit', key: { kind: edit } as EditKey };
  const text = printable(str, k);
  return text !== undefined ? { kind: 'edit', key: { kind: 'insert', text } } : { kind: 'ignore' };
}
