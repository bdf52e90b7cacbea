/**
 * The Markdown files of an extension folder (slash commands, skills): found by name, read as
 * front matter and body. A folder that does not exist is empty; a file that cannot be read is a
 * problem reported by name, never a throw (one bad file must not stop a run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseFrontMatter, type FrontMatterFile } from '../front-matter.js';

/** The `.md` files under `dir` (nested folders too, at most `depth` deep), relative, sorted; none when it does not exist. */
export function markdownFilesUnder(dir: string, problems: string[], depth = 3): string[] {
  const out: string[] = [];
  const walk = (sub: string, level: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, sub), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        problems.push(`${path.join(dir, sub)}: ${code ?? (error as Error).message}`);
      return;
    }
    for (const e of entries) {
      const rel = sub === '' ? e.name : path.join(sub, e.name);
      if (e.isDirectory() && level < depth) walk(rel, level + 1);
      else if (e.isFile() && e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('', 1);
  return out.sort();
}

/** One Markdown file read and parsed; undefined (with a problem) when it cannot be read. */
export function readMarkdown(file: string, problems: string[]): FrontMatterFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return undefined;
  }
  const parsed = parseFrontMatter(text);
  for (const p of parsed.problems) problems.push(`${file}: ${p}`);
  return parsed;
}

/** A front matter field as one string (a list is joined with ", "); undefined when absent or empty. */
export function stringField(fields: FrontMatterFile['fields'], key: string): string | undefined {
  const v = fields[key];
  const text = Array.isArray(v) ? v.join(', ') : v;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
