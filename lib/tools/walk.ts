import fs from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { dropExpected } from '../debug.js';

/** Directories never searched: VCS metadata, dependencies, build output. */
export const ALWAYS_SKIPPED = new Set([
  '.git',
  'node_modules',
  '.hg',
  '.svn',
  'dist',
  'build',
  'coverage',
  '.next',
  '.cache',
  '__pycache__',
  '.venv',
  'target',
]);

/** The rules of one `.gitignore`, with its directory relative to the top of the walk's ignore scope. */
interface IgnoreLevel {
  /** `/`-separated path of the `.gitignore`'s directory from the ignore root, '' for the root itself. */
  dir: string;
  rules: Ignore;
}

/**
 * The rules of `dir/.gitignore`, or undefined when there is none. Lines are added one by one
 * so that a line the `ignore` package cannot read costs only that line.
 */
async function readIgnore(dir: string): Promise<Ignore | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, '.gitignore'), 'utf8');
  } catch (error) {
    dropExpected('.gitignore', error, 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES');
    return undefined;
  }
  const rules = ignore();
  for (const line of text.split(/\r?\n/)) {
    try {
      rules.add(line);
    } catch {
      // An unreadable pattern is skipped, as git skips it.
    }
  }
  return rules;
}

/**
 * Whether `full` (a path from the ignore root; directories end in `/`) is ignored, git's way:
 * each `.gitignore` from the outermost down judges the path relative to its own directory, and
 * the deepest one with an opinion (a match, or a `!` negation) wins.
 */
function isIgnored(levels: readonly IgnoreLevel[], full: string): boolean {
  let ignored = false;
  for (const level of levels) {
    let local = full;
    if (level.dir !== '') {
      if (!full.startsWith(`${level.dir}/`)) continue;
      local = full.slice(level.dir.length + 1);
    }
    const verdict = level.rules.test(local);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

/** Options of {@link walkFiles}. */
export interface WalkOptions {
  /** Most files yielded; default 50 000. */
  maxFiles?: number;
  signal?: AbortSignal;
  /**
   * The top directory whose `.gitignore` files count (the workspace): those between it and
   * `root` apply too, as git applies a parent's. Default `root`.
   */
  ignoreRoot?: string;
}

/** The `.gitignore` levels from `top` down to `root`'s parent, and `root`'s path from `top` ('' when they are one). */
async function levelsAbove(root: string, top: string): Promise<{ levels: IgnoreLevel[]; rootDir: string }> {
  const rel = path.relative(top, root);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { levels: [], rootDir: '' };
  const parts = rel.split(path.sep);
  const levels: IgnoreLevel[] = [];
  for (let i = 0; i < parts.length; i++) {
    const rules = await readIgnore(path.join(top, ...parts.slice(0, i)));
    if (rules) levels.push({ dir: parts.slice(0, i).join('/'), rules });
  }
  return { levels, rootDir: parts.join('/') };
}

/**
 * Walk files under `root` depth-first in name order (deterministic), skipping the usual
 * generated directories and whatever the `.gitignore` files say (nested ones, negation,
 * directory and anchored patterns, through the `ignore` package). Stops after `maxFiles`
 * files. Yields paths relative to `root` with `/`.
 */
export async function* walkFiles(root: string, options: WalkOptions = {}): AsyncGenerator<string> {
  const maxFiles = options.maxFiles ?? 50_000;
  let seen = 0;
  const rootRules = await readIgnore(root);
  const { levels: above, rootDir } = await levelsAbove(root, options.ignoreRoot ?? root);
  // Paths as the ignore levels see them: from the ignore root, not from the walk root.
  const fromTop = (rel: string): string => (rootDir === '' ? rel : `${rootDir}/${rel}`);
  const stack: { rel: string; levels: IgnoreLevel[] }[] = [
    { rel: '', levels: rootRules ? [...above, { dir: rootDir, rules: rootRules }] : above },
  ];
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    const { rel, levels: parentLevels } = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    } catch (error) {
      // Gone or unreadable since it was listed: searched as far as it can be.
      dropExpected('walk: readdir', error, 'ENOENT', 'ENOTDIR', 'EACCES', 'EPERM');
      continue;
    }
    let levels = parentLevels;
    if (rel !== '') {
      const rules = entries.some((e) => e.name === '.gitignore') ? await readIgnore(path.join(root, rel)) : undefined;
      if (rules) levels = [...parentLevels, { dir: fromTop(rel), rules }];
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const dirs: string[] = [];
    for (const entry of entries) {
      if (ALWAYS_SKIPPED.has(entry.name)) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!isIgnored(levels, `${fromTop(child)}/`)) dirs.push(child);
      } else if (entry.isFile() && !isIgnored(levels, fromTop(child))) {
        yield child;
        if (++seen >= maxFiles) return;
      }
    }
    for (let i = dirs.length - 1; i >= 0; i--) stack.push({ rel: dirs[i]!, levels });
  }
}

/** A compiled glob, or why it cannot be one. */
export type CompiledGlob = { ok: true; test: (file: string) => boolean } | { ok: false; message: string };

/**
 * Compile a glob (picomatch syntax: `*`, `**`, `?`, `{a,b}`, `[abc]`, `!(x)`) for `/` paths
 * relative to the searched directory. A pattern without `/` matches the base name at any
 * depth, as most users expect from `*.ts`; `*` also matches names starting with a dot. A
 * pattern picomatch cannot turn into a regular expression (`[z-a].ts`, `src/{a,b`) is
 * `{ok: false}` with the reason, for the tool to report.
 */
export function compileGlob(pattern: string): CompiledGlob {
  const normalized = pattern.replace(/^\.\//, '');
  try {
    // `debug` makes picomatch throw on a pattern it cannot compile instead of matching nothing.
    const test = picomatch(normalized, { dot: true, basename: !normalized.includes('/'), debug: true });
    return { ok: true, test };
  } catch (error) {
    return { ok: false, message: `invalid glob ${JSON.stringify(pattern)}: ${(error as Error).message}` };
  }
}
