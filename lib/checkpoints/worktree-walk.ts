/**
 * The listing a later snapshot needs (what `git ls-files --modified --deleted --others
 * --exclude-standard` gives from the store's index), found in-process for small work trees
 * whose ignore rules are plain: one git process fewer per snapshot, two per turn that changes
 * the workspace.
 *
 * The tracked side lists every entry whose stat data differs from the index, or that is racily
 * clean (not older than the index), or gone: a superset of git's `--modified --deleted`, which
 * compares content where stat data differs; the caller hashes what is listed and keeps only
 * real changes, as it does for git's listing. The untracked side must be git's exactly. With
 * `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_NOSYSTEM` pinned and no HOME (lib/checkpoints/git.ts),
 * git's rules are the store's `info/exclude` and the work tree's `.gitignore` files. Patterns
 * of literal characters and `*`, optionally anchored (`/` at the start or inside) or for
 * folders only (`/` at the end), are matched here as git matches them; anything else (`!`,
 * `?`, `[`, `**`, `\`, carriage returns, non-ASCII), a non-ASCII path, a nested repository, a
 * symlinked `.gitignore`, an unreadable folder, a tracked path that became a folder, an
 * assume-unchanged entry, a store that matches without case (`core.ignorecase`), or more than
 * {@link WALK_LIMIT} paths: undefined, and git lists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { modeAt, nameAt, sizeAt, type IndexView } from './index-file.js';

/** What changed since the index: positions of entries to look at, and new files (work-tree paths). */
export interface WorkTreeListing {
  touched: number[];
  newFiles: string[];
}

/** Most index entries plus work-tree paths looked at in-process (git's threaded walk wins beyond). */
export const WALK_LIMIT = 4000;

/** One ignore pattern, as git reads it. */
interface Rule {
  /** The folder of the file it comes from, '' for the root (or `info/exclude`), else `dir/`. */
  base: string;
  /** Matched against the base name (no `/` in the pattern) or against the path below `base`. */
  anchored: boolean;
  dirOnly: boolean;
  test: RegExp;
}

/** Not a rule this module matches exactly. */
class Unsupported extends Error {}

const PLAIN = /^[\x20-\x7e]*$/;
const SYMLINK = 0o120000;
const NS = 1_000_000_000n;
const ASSUME_VALID = 0x8000;

/** The rules of one ignore file's text. */
function parseRules(text: string, base: string): Rule[] {
  if (!PLAIN.test(text.replace(/\n/g, ''))) throw new Unsupported('ignore file with other than printable ASCII');
  const rules: Rule[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '' || raw.startsWith('#')) continue;
    // Trailing spaces are dropped (an escaped one would keep it: backslashes are declined below).
    let line = raw.replace(/ +$/, '');
    if (line === '') continue;
    if (/[!?[\\]/.test(line) || line.includes('**')) throw new Unsupported(`ignore pattern ${line}`);
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.slice(0, -1);
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    if (line === '') continue;
    const source = line
      .split('*')
      .map((part) => part.replace(/[.+^${}()|]/g, '\\$&'))
      .join('[^/]*');
    rules.push({ base, anchored, dirOnly, test: new RegExp(`^${source}$`) });
  }
  return rules;
}

/** Whether `rel` (a work-tree path; a folder when `isDir`) is ignored by `rules`. */
function ignored(rules: readonly Rule[], rel: string, isDir: boolean): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (rule.anchored ? rule.test.test(rel.slice(rule.base.length)) : rule.test.test(name)) return true;
  }
  return false;
}

/** lstat, undefined when the path is gone (also when a parent turned into a file). */
export function lstatOf(file: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The index mode's file type and executable bit as the work tree has them now. */
function modeOf(st: fs.BigIntStats): number {
  if (st.isSymbolicLink()) return SYMLINK;
  if (st.isFile()) return st.mode & 0o100n ? 0o100755 : 0o100644;
  return 0;
}

/** Whether entry `i`'s stat data no longer describes `st` (any field git keeps). */
function statDiffers(view: IndexView, i: number, st: fs.BigIntStats, indexMtimeNs: bigint): boolean {
  const d = view.data;
  const o = view.offsets[i]!;
  const u32 = (n: bigint): number => Number(n & 0xffffffffn);
  const mtimeS = d.readUInt32BE(o + 8);
  const mtimeNs = d.readUInt32BE(o + 12);
  // Racily clean: changed within the index's own timestamp, so its stat data proves nothing.
  if (BigInt(mtimeS) * NS + BigInt(mtimeNs) >= indexMtimeNs) return true;
  return (
    modeOf(st) !== modeAt(view, i) ||
    u32(st.size) !== sizeAt(view, i) ||
    u32(st.mtimeNs / NS) !== mtimeS ||
    Number(st.mtimeNs % NS) !== mtimeNs ||
    u32(st.ctimeNs / NS) !== d.readUInt32BE(o) ||
    Number(st.ctimeNs % NS) !== d.readUInt32BE(o + 4) ||
    u32(st.ino) !== d.readUInt32BE(o + 20) ||
    u32(st.uid) !== d.readUInt32BE(o + 28) ||
    u32(st.gid) !== d.readUInt32BE(o + 32)
  );
}

/**
 * List what changed in `root` since `view` (an index last written at `indexMtimeNs`), with the
 * store's rules (its git directory `gitDir`); undefined when git must list.
 */
export function listWorkTree(root: string, view: IndexView, indexMtimeNs: bigint, gitDir: string): WorkTreeListing | undefined {
  if (process.platform !== 'linux' || view.count > WALK_LIMIT) return undefined;
  try {
    // A store on a case-insensitive file system matches ignore rules without case: git's.
    if (/^\s*ignorecase\s*=\s*true/im.test(fs.readFileSync(path.join(gitDir, 'config'), 'utf8'))) return undefined;
    return walk(root, view, indexMtimeNs, path.join(gitDir, 'info', 'exclude'));
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
    throw error;
  }
}

function walk(root: string, view: IndexView, indexMtimeNs: bigint, excludeFile: string): WorkTreeListing | undefined {
  const tracked = new Set<string>();
  // Folders holding tracked paths: one that is now a file or a symlink is declined (lstat would
  // follow a symlinked folder to files git sees as deleted).
  const trackedDirs = new Set<string>();
  const touched: number[] = [];
  for (let i = 0; i < view.count; i++) {
    const name = nameAt(view, i);
    // assume-unchanged entries (a first index copied from the user's) are git's to skip.
    if (!PLAIN.test(name) || view.data.readUInt16BE(view.offsets[i]! + 60) & ASSUME_VALID) return undefined;
    tracked.add(name);
    for (let slash = name.indexOf('/'); slash >= 0; slash = name.indexOf('/', slash + 1)) trackedDirs.add(name.slice(0, slash));
    const st = lstatOf(path.join(root, name));
    if (!st || statDiffers(view, i, st, indexMtimeNs)) touched.push(i);
  }
  let budget = WALK_LIMIT - view.count;
  let exclude = '';
  try {
    exclude = fs.readFileSync(excludeFile, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const newFiles: string[] = [];
  const visit = (dir: string, inherited: readonly Rule[]): boolean => {
    const abs = dir === '' ? root : path.join(root, dir);
    const entries = fs.readdirSync(abs, { withFileTypes: true });
    budget -= entries.length;
    if (budget < 0) return false;
    let rules = inherited;
    const gitignore = entries.find((e) => e.name === '.gitignore');
    if (gitignore) {
      // git reads a .gitignore that is a file, never through a symlink.
      if (gitignore.isSymbolicLink()) throw new Unsupported('symlinked .gitignore');
      if (gitignore.isFile()) rules = [...inherited, ...parseRules(fs.readFileSync(path.join(abs, '.gitignore'), 'latin1'), dir)];
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git') {
        if (dir !== '') throw new Unsupported('nested repository');
        continue;
      }
      if (!PLAIN.test(name)) throw new Unsupported('path that is not printable ASCII');
      const rel = dir + name;
      if (entry.isDirectory()) {
        if (tracked.has(rel)) throw new Unsupported('a tracked path is now a folder');
        if (ignored(rules, rel, true)) continue;
        if (!visit(`${rel}/`, rules)) return false;
      } else if (trackedDirs.has(rel)) {
        throw new Unsupported('a tracked folder is now a file or a symlink');
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (!tracked.has(rel) && !ignored(rules, rel, false)) newFiles.push(rel);
      }
    }
    return true;
  };
  if (!visit('', parseRules(exclude, ''))) return undefined;
  newFiles.sort();
  return { touched, newFiles };
}
