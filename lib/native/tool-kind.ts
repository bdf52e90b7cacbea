import type { z } from 'zod';
import type { ToolKind } from '../events/index.js';

type Kind = z.infer<typeof ToolKind>;

// Tool names as the agents spell them (Claude Code, Gemini CLI, opencode, Codex item types).
const KINDS: ReadonlyArray<readonly [RegExp, Kind]> = [
  [/^(bash|shell|run_shell_command|command_execution|local_shell|exec|execute|powershell)$/i, 'execute'],
  [/^(read|read_file|read_many_files|view|notebookread)$/i, 'read'],
  [/^(write|edit|multiedit|write_file|replace|apply_patch|patch|file_change|notebookedit|edit_file)$/i, 'edit'],
  [/^(delete|rm|delete_file)$/i, 'delete'],
  [/^(move|mv|rename)$/i, 'move'],
  [
    /^(grep|glob|search|search_file_content|list_directory|ls|list|web_search|websearch|google_web_search|toolsearch|codesearch)$/i,
    'search',
  ],
  [/^(webfetch|web_fetch|fetch)$/i, 'fetch'],
  [/^(todowrite|todo_list|todoread|think|plan|exitplanmode|enterplanmode)$/i, 'think'],
];

/**
 * Kinds of the names seen lately: a stream names the same few tools over and over, and a map
 * lookup costs far less than the eight patterns. Bounded: cleared when full (names come from
 * the stream, so there may be any number of them).
 */
const seen = new Map<string, Kind>();
const MAX_SEEN = 256;

/** The ACP-style kind of a native tool, from its name; `other` when unknown. */
export function toolKindFor(name: string): Kind {
  let kind = seen.get(name);
  if (kind === undefined) {
    kind = kindOf(name);
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.set(name, kind);
  }
  return kind;
}

function kindOf(name: string): Kind {
  for (const [pattern, kind] of KINDS) if (pattern.test(name)) return kind;
  return 'other';
}

/** A one-line title for a tool call from its input (command, path, query, ...). */
export function toolTitleFor(name: string, input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const fields = input as Record<string, unknown>;
    for (const key of [
      'command',
      'cmd',
      'file_path',
      'filePath',
      'path',
      'absolute_path',
      'pattern',
      'query',
      'url',
      'description',
      'prompt',
    ]) {
      const value = fields[key];
      if (typeof value === 'string' && value.length > 0) return oneLineTitle(value);
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return oneLineTitle(value.join(' '));
    }
  }
  return name;
}

function oneLineTitle(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
