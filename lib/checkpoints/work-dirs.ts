/**
 * What the store remembers of the work tree's folders between snapshots, so that a snapshot can
 * tell "no new file anywhere" without walking the tree: each folder's modification time (a
 * file created, removed or renamed in a folder changes that folder's mtime), the untracked
 * paths already known to be ignored, and what the last walk left out. The record belongs to
 * one store index (named by its size and mtime, like the tree note): a record written beside
 * another index is never trusted.
 *
 * A folder's mtime is read before the folder is listed, so a file that appears while the
 * snapshot runs either is listed or leaves a newer mtime behind for the next snapshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SkippedPath } from './snapshot.js';

/** Most folders remembered; a larger tree is walked by git on every snapshot. */
export const MAX_REMEMBERED_DIRS = 20_000;
/** Most untracked paths handled in-process per snapshot; more and git walks the tree instead. */
export const MAX_CANDIDATES = 5_000;

/** The remembered state of the work tree's folders. */
export interface WorkDirs {
  /** Folder (relative, `''` for the top) to its mtime in ns, as text. */
  dirs: Map<string, string>;
  /** Untracked paths (files, or folders with a trailing `/`) git said are ignored. */
  ignored: Set<string>;
  /** What the last walk left out (reported again while nothing changes). */
  skipped: SkippedPath[];
}

/** Where the record is kept. */
export function workDirsFileOf(gitDir: string): string {
  return path.join(gitDir, 'minicode-index.dirs');
}

/** The key binding a record to one index file and exclude file. */
export function bindingOf(indexStat: fs.Stats, gitDir: string): string {
  let exclude = '';
  try {
    exclude = String(fs.statSync(path.join(gitDir, 'info', 'exclude')).mtimeMs);
  } catch {
    exclude = 'none';
  }
  return `${indexStat.size} ${indexStat.mtimeMs} ${exclude}`;
}

/** The record bound to `binding`, or undefined. */
export function readWorkDirs(gitDir: string, binding: string): WorkDirs | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(workDirsFileOf(gitDir), 'utf8')) as { binding: string; dirs: [string, string][]; ignored: string[]; skipped: SkippedPath[] };
    if (data.binding !== binding) return undefined;
    return { dirs: new Map(data.dirs), ignored: new Set(data.ignored), skipped: data.skipped };
  } catch {
    return undefined;
  }
}

/** Write the record for the index named by `binding` (atomically: a reader sees an old or a new one). */
export function writeWorkDirs(gitDir: string, binding: string, state: WorkDirs): void {
  const file = workDirsFileOf(gitDir);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify({ binding, dirs: [...state.dirs], ignored: [...state.ignored], skipped: state.skipped }));
  fs.renameSync(temp, file);
}

/** Drop the record (its index is being replaced by someone who does not write one). */
export function forgetWorkDirs(gitDir: string): void {
  fs.rmSync(workDirsFileOf(gitDir), { force: true });
}

/** Folders whose mtime differs from the record (or that are gone). */
export function changedDirs(root: string, state: WorkDirs): string[] {
  const changed: string[] = [];
  for (const [dir, mtime] of state.dirs) {
    const st = fs.lstatSync(path.join(root, dir), { bigint: true, throwIfNoEntry: false });
    if (!st || !st.isDirectory() || String(st.mtimeNs) !== mtime) changed.push(dir);
  }
  return changed;
}

/** What scanning some folders found. */
export interface Scan {
  /** Folders scanned, with the mtime read before listing them. */
  dirs: Map<string, string>;
  /** Files and symlinks not in the index (candidates for new files). */
  files: string[];
  /** Folders not seen before (candidates; scanned already, dropped if git calls them ignored). */
  newDirs: string[];
  /** Over a bound: the caller lets git walk instead. */
  overflow: boolean;
}

/** Options of {@link scanDirs}. */
export interface ScanOptions {
  root: string;
  /** Is this path (relative, utf8) in the index? */
  tracked: (name: string) => boolean;
  /** Folder names never entered (the skip list), and relative folders never entered (minicode's own data). */
  skipNames: ReadonlySet<string>;
  skipPaths: ReadonlySet<string>;
  /** Folders already remembered (entered only when in `dirty`). */
  known: ReadonlySet<string>;
  /** Already known ignored (skipped without asking git again). */
  ignored: ReadonlySet<string>;
}

/** List the `dirty` folders (and every new folder below them) for untracked files. */
export function scanDirs(dirty: readonly string[], options: ScanOptions): Scan {
  const scan: Scan = { dirs: new Map(), files: [], newDirs: [], overflow: false };
  const queue = [...dirty];
  while (queue.length > 0) {
    const dir = queue.pop()!;
    const abs = path.join(options.root, dir);
    const st = fs.lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!st || !st.isDirectory()) continue;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    // A folder holding `.git` (other than the top) is a nested repository: git leaves it out.
    if (dir !== '' && entries.some((e) => e.name === '.git')) continue;
    scan.dirs.set(dir, String(st.mtimeNs));
    for (const entry of entries) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile() || entry.isSymbolicLink();
      if (!isDir && !isFile && !entry.isFIFO() && !entry.isSocket() && !entry.isBlockDevice() && !entry.isCharacterDevice()) {
        const s = fs.lstatSync(path.join(abs, entry.name), { throwIfNoEntry: false });
        isDir = s?.isDirectory() ?? false;
        isFile = (s?.isFile() || s?.isSymbolicLink()) ?? false;
      }
      if (isDir) {
        if (entry.name === '.git' || options.skipNames.has(entry.name) || options.skipPaths.has(rel)) continue;
        if (options.known.has(rel) || options.ignored.has(`${rel}/`)) continue;
        scan.newDirs.push(rel);
        queue.push(rel);
      } else if (isFile && !options.tracked(rel) && !options.ignored.has(rel)) scan.files.push(rel);
    }
    if (scan.dirs.size > MAX_REMEMBERED_DIRS || scan.files.length + scan.newDirs.length > MAX_CANDIDATES) {
      scan.overflow = true;
      return scan;
    }
  }
  return scan;
}
