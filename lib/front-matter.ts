/**
 * Markdown files with a front matter block, the shape Claude Code and opencode use for agent
 * definitions (and skills, slash commands): a first line `---`, `key: value` lines, a closing
 * `---`, then the body. Only the subset those files use is read: scalar values (quotes
 * optional), inline lists `[a, b]`, and block lists of `- item` lines under a key. Anything
 * else is a problem reported by line, never a throw: one bad file must not stop a run.
 */

/** A value of the front matter: a string or a list of strings. */
export type FrontMatterValue = string | string[];

/** What {@link parseFrontMatter} read. */
export interface FrontMatterFile {
  /** The keys in the block; empty when the file has none. */
  fields: Record<string, FrontMatterValue>;
  /** The text after the block (the whole text when there is no block), trimmed. */
  body: string;
  /** Lines the parser could not read, as `line N: why`. */
  problems: string[];
}

/** `"x"` or `'x'` without its quotes; anything else trimmed. */
function unquote(raw: string): string {
  const text = raw.trim();
  if (
    text.length >= 2 &&
    ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))
  )
    return text.slice(1, -1);
  return text;
}

/** Parse a Markdown file's front matter and body. */
export function parseFrontMatter(text: string): FrontMatterFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return { fields: {}, body: text.trim(), problems: [] };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === '---');
  if (end < 0)
    return {
      fields: {},
      body: text.trim(),
      problems: ['line 1: the front matter block is not closed by a line "---"'],
    };
  const fields: Record<string, FrontMatterValue> = Object.create(null) as Record<string, FrontMatterValue>;
  const problems: string[] = [];
  let listKey: string | undefined;
  for (let i = 1; i < end; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== undefined) {
      (fields[listKey] as string[]).push(unquote(item[1]!));
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) {
      problems.push(`line ${i + 1}: not a "key: value" line`);
      continue;
    }
    const key = pair[1]!;
    const value = pair[2]!.trim();
    listKey = undefined;
    if (value === '') {
      fields[key] = [];
      listKey = key;
    } else if (value.startsWith('[') && value.endsWith(']')) {
      fields[key] = value
        .slice(1, -1)
        .split(',')
        .map(unquote)
        .filter((v) => v !== '');
    } else fields[key] = unquote(value);
  }
  return {
    fields,
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
    problems,
  };
}
