/**
 * Completion at the prompt, pure. `@path`: find the `@word` the cursor ends, match it against the
 * workspace's files (a prefix of the path first, else a part of it anywhere, ignoring case) and
 * complete it as far as every match agrees (the file list comes from `workspace-files.ts`).
 * `/name`: a line that is only a slash and a name completes among the slash commands, built-in
 * and custom; while such a line is typed, the matching commands are listed under the prompt
 * with what each does (the popup).
 */
import type { Editor } from './line-editor.js';

/** Most candidates listed under the prompt when a Tab leaves several; default 8. */
export const MAX_CANDIDATES_SHOWN = 8;

/** The `@word` ending at the cursor: its text after `@` and where it starts in the line. */
export function atWordAtCursor(editor: Editor): { partial: string; start: number } | undefined {
  const line = editor.lines[editor.row] ?? '';
  const before = line.slice(0, editor.col);
  const m = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return undefined;
  return { partial: m[1]!, start: editor.col - m[1]!.length - 1 };
}

function commonPrefix(values: readonly string[]): string {
  if (values.length === 0) return '';
  let prefix = values[0]!;
  for (const v of values) {
    let i = 0;
    while (i < prefix.length && i < v.length && prefix[i] === v[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

/** What a Tab does to `@partial`: the text to put after `@` (with a space when it is one whole file) and the matches. */
export function completePath(partial: string, files: readonly string[]): { text: string; matches: string[] } {
  let matches = files.filter((f) => f.startsWith(partial));
  if (matches.length === 0 && partial !== '') {
    const lower = partial.toLowerCase();
    matches = files.filter((f) => f.toLowerCase().includes(lower));
  }
  if (matches.length === 0) return { text: partial, matches };
  if (matches.length === 1) return { text: `${matches[0]!} `, matches };
  const prefix = commonPrefix(matches);
  return { text: prefix.length > partial.length && prefix.startsWith(partial) ? prefix : partial, matches };
}

/** Apply a completion to the editor: the `@word` at the cursor becomes `@text`. */
export function applyCompletion(editor: Editor, at: { partial: string; start: number }, text: string): Editor {
  const line = editor.lines[editor.row] ?? '';
  const next = `${line.slice(0, at.start)}@${text}${line.slice(editor.col)}`;
  const lines = [...editor.lines];
  lines[editor.row] = next;
  return { ...editor, lines, col: at.start + 1 + text.length };
}

/** The `/name` being typed: the whole line so far is `/` and a name, the cursor at its end. */
export function slashWordAtCursor(editor: Editor): string | undefined {
  if (editor.row !== 0 || editor.lines.length !== 1) return undefined;
  const line = editor.lines[0] ?? '';
  if (editor.col !== line.length) return undefined;
  const m = /^\/([^\s/]*)$/.exec(line);
  return m ? m[1]! : undefined;
}

/** What a Tab does to `/partial` among command names (without their slash): the text after `/` and the matches. */
export function completeCommand(partial: string, names: readonly string[]): { text: string; matches: string[] } {
  const matches = names.filter((n) => n.startsWith(partial));
  if (matches.length === 0) return { text: partial, matches };
  if (matches.length === 1) return { text: `${matches[0]!} `, matches };
  const prefix = commonPrefix(matches);
  return { text: prefix.length > partial.length ? prefix : partial, matches };
}

/** A slash command as completion and the popup list it. */
export interface CommandEntry {
  /** Without the slash. */
  name: string;
  /** Its arguments, e.g. `[name]`. */
  hint?: string | undefined;
  /** What it does, one line. */
  description?: string | undefined;
}

/**
 * The popup under a line that is only `/partial`: the commands whose name starts with it, one a
 * line (`  /name hint  description`), at most {@link MAX_CANDIDATES_SHOWN} and a line counting the
 * rest; nothing once the name is typed whole and nothing else matches (the list would only repeat it).
 */
export function commandSuggestions(partial: string, commands: readonly CommandEntry[]): string[] {
  const matches = commands.filter((c) => c.name.startsWith(partial));
  if (matches.length === 0 || (matches.length === 1 && matches[0]!.name === partial)) return [];
  const width = Math.max(...matches.map((c) => `/${c.name}${c.hint ? ` ${c.hint}` : ''}`.length));
  const lines = matches.slice(0, MAX_CANDIDATES_SHOWN).map((c) => {
    const head = `/${c.name}${c.hint ? ` ${c.hint}` : ''}`;
    return `  ${c.description ? `${head.padEnd(width)}  ${c.description}` : head}`;
  });
  if (matches.length > MAX_CANDIDATES_SHOWN)
    lines.push(`  … ${matches.length - MAX_CANDIDATES_SHOWN} more (Tab completes)`);
  return lines;
}
