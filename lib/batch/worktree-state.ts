/**
 * What a pooled worktree holds after a line, found without git where that is cheaper than a
 * git process: the paths the starting tree does not have (a readdir walk, no stat of tracked
 * files) and whether the worktree's index still lists exactly the starting tree's paths (read
 * in-process, lib/checkpoints/index-file.ts). The pool uses both to choose the line's patch
 * command (worktree-pool.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { nameAt, viewIndex, type IndexView } from '../checkpoints/index-file.js';
import { git } from './workspace-git.js';

/** The paths of a starting tree. */
export interface Tracked {
  files: Set<string>;
  dirs: Set<string>;
  /** Whether the tree has submodules (their worktree diff differs from the staged one). */
  gitlinks: boolean;
  /** Each file's mode and object id. */
  blobs: Map<string, { mode: number; oid: string }>;
  /** Whether the tree has a `.gitattributes` (checkout may convert what it writes). */
  attributes: boolean;
  /** The files' names as byte strings (latin1), as the index holds them; made on first use. */
  fileBytes?: Set<string>;
}

// Per thread, a few trees' path sets (a batch mostly has one start per repository).
const trackedCache = new Map<string, Tracked>();
const TRACKED_CACHE_SIZE = 4;

/** The files and folders of `tree` (git once per tree and thread). */
export async function trackedPaths(root: string, tree: string): Promise<Tracked> {
  const hit = trackedCache.get(tree);
  if (hit) return hit;
  const tracked: Tracked = { files: new Set(), dirs: new Set(), gitlinks: false, blobs: new Map(), attributes: false };
  // `<mode> <type> <object>\t<path>`; a submodule (type commit) is a leaf like a file.
  for (const entry of (await git(['ls-tree', '-r', '-t', '-z', '--full-tree', tree], root)).split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type, oid = ''] = entry.slice(0, tab).split(' ');
    const name = entry.slice(tab + 1);
    if (type === 'tree') {
      tracked.dirs.add(name);
      continue;
    }
    tracked.files.add(name);
    if (type === 'commit') tracked.gitlinks = true;
    else tracked.blobs.set(name, { mode: parseInt(mode, 8), oid });
    if (name === '.gitattributes' || name.endsWith('/.gitattributes')) tracked.attributes = true;
  }
  if (trackedCache.size >= TRACKED_CACHE_SIZE) trackedCache.delete(trackedCache.keys().next().value!);
  trackedCache.set(tree, tracked);
  return tracked;
}

/**
 * The top-most paths under `root` that are not a file or folder of the starting tree (new
 * files, ignored or not, new folders, a folder where a file was and the reverse); readdir
 * only: no stat of tracked files.
 */
export async function untrackedPaths(root: string, tracked: Tracked, rel = ''): Promise<string[]> {
  const entries = await fs.promises.readdir(rel ? path.join(root, rel) : root, { withFileTypes: true });
  const found: string[] = [];
  // Promises only for the folders to walk (not one per tracked file).
  const deeper: Promise<string[]>[] = [];
  for (const entry of entries) {
    if (rel === '' && entry.name === '.git') continue;
    const name = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (tracked.dirs.has(name)) deeper.push(untrackedPaths(root, tracked, name));
      else found.push(name); // new, or where a tracked file was
    } else if (!tracked.files.has(name)) found.push(name);
  }
  for (const more of await Promise.all(deeper)) found.push(...more);
  return found;
}

/** The worktree's own git directory (`.git` in a worktree is a file naming it). */
export function gitDirOf(root: string): string {
  const line = fs.readFileSync(path.join(root, '.git'), 'utf8').trim();
  if (!line.startsWith('gitdir: ')) throw new Error(`${root}/.git is not a worktree's`);
  return path.resolve(root, line.slice('gitdir: '.length));
}

const ASSUME_VALID = 0x8000;

/**
 * The worktree's index when it lists the starting tree's files and nothing else, as plain
 * entries (the objects and stat data may differ: a line that staged an edit and then changed
 * the file again). Then the worktree's own diff against the tree is the staged patch: the
 * index adds no path and hides none. Undefined for any index this cannot read (another version,
 * split or sparse, conflicts, assume-unchanged or skip-worktree entries).
 */
export function indexListsTree(root: string, tracked: Tracked): IndexView | undefined {
  let data: Buffer;
  try {
    data = fs.readFileSync(path.join(gitDirOf(root), 'index'));
  } catch {
    return undefined;
  }
  const view = viewIndex(data);
  if (!view || view.count !== tracked.files.size) return undefined;
  // Names compared as bytes: no decoding per entry, and a name that is not UTF-8 matches only itself.
  tracked.fileBytes ??= new Set([...tracked.files].map((name) => Buffer.from(name, 'utf8').toString('latin1')));
  for (let i = 0; i < view.count; i++) {
    if (data.readUInt16BE(view.offsets[i]! + 60) & ASSUME_VALID || !tracked.fileBytes.has(nameAt(view, i))) return undefined;
  }
  return view;
}
