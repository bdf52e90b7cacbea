import fs from 'node:fs/promises';
import path from 'node:path';

/** Directories never searched: VCS metadata, dependencies, build output. */
export const ALWAYS_SKIPPED = new Set(['.git', 'node_modules', '.hg', '.svn', 'dist', 'build', 'coverage', '.next', '.cache', '__pycache__', '.venv', 'target']);

/**
 * The simple part of a `.gitignore` at the walk root: plain names and `dir/` entries (no
 * negation, no nested patterns). Enough to keep a search out of generated trees; a full
 * gitignore engine is not worth its weight here.
 */
async function rootIgnores(root: string): Promise<Set<string>> {
  try {
    const text = await fs.readFile(path.join(root, '.gitignore'), 'utf8');
    const names = new Set<string>();
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (!line || line.startsWith('#') || line.startsWith('!')) continue;
      const name = line.replace(/^\//, '').replace(/\/$/, '');
      if (name && !/[*?[\]/]/.test(name)) names.add(name);
    }
    return names;
  } catch {
    return new Set();
  }
}

/**
 * Walk files under `root` depth-first in name order (deterministic), skipping the usual
 * generated directories. Stops after `maxFiles` files. Yields paths relative to `root` with `/`.
 */
export async function* walkFiles(root: string, options: { maxFiles?: number; signal?: AbortSignal } = {}): AsyncGenerator<string> {
  const ignored = await rootIgnores(root);
  const maxFiles = options.maxFiles ?? 50_000;
  let seen = 0;
  const stack: string[] = [''];
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    const rel = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const dirs: string[] = [];
    for (const entry of entries) {
      if (ALWAYS_SKIPPED.has(entry.name) || ignored.has(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) dirs.push(child);
      else if (entry.isFile()) {
        yield child;
        if (++seen >= maxFiles) return;
      }
    }
    for (let i = dirs.length - 1; i >= 0; i--) stack.push(dirs[i]!);
  }
}

/**
 * Compile a glob (`*`, `**`, `?`, `{a,b}`, `[abc]`) to a regular expression over `/` paths.
 * A pattern without `/` matches the base name at any depth, as most users expect from `*.ts`.
 */
export function globToRegExp(pattern: string): RegExp {
  const anchored = pattern.includes('/');
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = pattern.indexOf('}', i);
      if (end === -1) re += '\\{';
      else {
        re += `(?:${pattern.slice(i + 1, end).split(',').map((alt) => alt.replace(/[.+^$()|\\]/g, '\\$&').replace(/\*/g, '[^/]*')).join('|')})`;
        i = end;
      }
    } else if (c === '[') {
      const end = pattern.indexOf(']', i);
      if (end === -1) re += '\\[';
      else {
        re += pattern.slice(i, end + 1).replace('[!', '[^');
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(anchored ? `^${re.replace(/^\.\//, '')}$` : `(?:^|/)${re}$`);
}
