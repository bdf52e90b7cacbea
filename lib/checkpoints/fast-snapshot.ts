/**
 * A later snapshot with at most one git process instead of four: git walks the work tree
 * (`ls-files --modified --deleted --others`: its stat checks run on threads and it applies
 * every ignore rule) unless the tree is small and its ignore rules plain (worktree-walk.ts
 * then lists in-process), and everything after the walk happens here, on a copy of the store's
 * index read in-process (index-file.ts): the listed files are hashed and written as loose
 * blobs, the trees of the changed folders are rebuilt from the cache tree (trees.ts), the new
 * index is written with racily clean entries smudged as git writes them, and the diff against
 * the previous snapshot falls out of the same pass (no `update-index`, `write-tree` nor
 * `diff-tree`).
 *
 * It declines (undefined: the caller runs the git path) whenever the index or the work tree
 * holds what only git handles exactly: another index format, submodules, `.gitattributes`
 * (content conversions), paths that are not UTF-8, unreadable files.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit, splitNul } from './git.js';
import { editIndex, findEntry, indexBytes, invalidatePath, modeAt, nameAt, oidAt, sizeAt, smudgeRacy, viewIndex, type IndexEntry, type IndexView } from './index-file.js';
import type { RawChange } from './journal.js';
import { notedTree, oversizedUntrackedDirs, replaceSharedIndex, seedIndex, sharedIndexOf, skippedBuildDirs, SnapshotTooLargeError, type SkippedPath } from './snapshot.js';
import type { WorkspaceStore } from './store.js';
import { EMPTY_BLOB, writeObject, writeTrees } from './trees.js';
import { listWorkTree, lstatOf } from './worktree-walk.js';

/** What an in-process snapshot found. */
export interface FastSnapshot {
  tree: string;
  skipped: SkippedPath[];
  /** The changes from the tree the store's index held before (when that tree was known). */
  diff?: { from: string; changes: RawChange[] };
}

/** A case only git handles exactly: the caller takes the snapshot with git. */
class Decline extends Error {}

const GITLINK = 0o160000;
const SYMLINK = 0o120000;
const NO_OBJECT = '0'.repeat(40);
const NS = 1_000_000_000n;
const u32 = (n: bigint): number => Number(n & 0xffffffffn);

/** The index mode of what `st` describes, or undefined when git keeps no such thing. */
function modeOf(st: fs.BigIntStats): number | undefined {
  if (st.isSymbolicLink()) return SYMLINK;
  if (st.isFile()) return st.mode & 0o100n ? 0o100755 : 0o100644;
  return undefined;
}

function entryOf(name: string, st: fs.BigIntStats, oid: string, mode: number): IndexEntry {
  return {
    name,
    ctimeS: u32(st.ctimeNs / NS),
    ctimeNs: Number(st.ctimeNs % NS),
    mtimeS: u32(st.mtimeNs / NS),
    mtimeNs: Number(st.mtimeNs % NS),
    dev: u32(st.dev),
    ino: u32(st.ino),
    mode,
    uid: u32(st.uid),
    gid: u32(st.gid),
    size: u32(st.size),
    oid,
    flags: 0,
  };
}

const fromBytes = (name: string): string => Buffer.from(name, 'latin1').toString('utf8');
const toBytes = (name: string): string => Buffer.from(name, 'utf8').toString('latin1');

const NON_ASCII = /[\x80-\xff]/;
const baseName = (name: string): string => name.slice(name.lastIndexOf('/') + 1);

/** Hash the file at `rel` into the store; undefined when it is gone. */
function hashFile(store: WorkspaceStore, rel: string, st: fs.BigIntStats): string | undefined {
  const abs = path.join(store.workTree, rel);
  try {
    const content = st.isSymbolicLink() ? fs.readlinkSync(abs, { encoding: 'buffer' }) : fs.readFileSync(abs);
    return writeObject(store.gitDir, 'blob', content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Decline(`cannot read ${rel}`);
  }
}

/**
 * Write `view` to `file` the way git does about racily clean entries: an entry not older than
 * the index it was read from (git compared its content this time, not its stat) or than the
 * new file is smudged to size 0, so every later check compares its content again.
 */
function writeIndexFile(file: string, view: IndexView, readFrom: bigint): void {
  smudgeRacy(view, readFrom);
  fs.writeFileSync(file, indexBytes(view));
  if (smudgeRacy(view, fs.statSync(file, { bigint: true }).mtimeNs)) fs.writeFileSync(file, indexBytes(view));
}

/** Take a snapshot in-process; undefined when git must take it. */
export async function fastSnapshot(store: WorkspaceStore, options: { reportSkippedDirs: boolean }): Promise<FastSnapshot | undefined> {
  const copy = `${sharedIndexOf(store)}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    return await snapshotInProcess(store, options, copy);
  } catch (error) {
    if (error instanceof SnapshotTooLargeError) throw error;
    return undefined;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

/** git's listing of what changed, was deleted or is new since the index (`?` marks new files). */
async function gitListing(place: { gitDir: string; workTree: string; indexFile: string }): Promise<string[]> {
  const listing = await runGit(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard'], place);
  return splitNul(listing.stdout);
}

async function snapshotInProcess(store: WorkspaceStore, options: { reportSkippedDirs: boolean }, copy: string): Promise<FastSnapshot | undefined> {
  // git lists from a copy (with the shared index's mtime, for its racy-git rule), and this reads the same copy.
  if (!seedIndex(sharedIndexOf(store), copy)) return undefined;
  const known = notedTree(store);
  const data = fs.readFileSync(copy);
  const readFrom = fs.statSync(copy, { bigint: true }).mtimeNs;
  // Submodules and .gitattributes (conversions on hashing) are git's to handle.
  if (data.includes('.gitattributes')) return undefined;
  const view = viewIndex(data);
  if (!view) return undefined;
  for (let i = 0; i < view.count; i++) if (modeAt(view, i) === GITLINK) return undefined;
  const root = store.workTree;
  // One walk (git's: stat data checked with its threads, ignore rules applied): what changed,
  // was deleted or is new since the index.
  const place = { gitDir: store.gitDir, workTree: root, indexFile: copy };
  // A small work tree with plain ignore rules is listed in-process (worktree-walk.ts), else by git.
  const walked = listWorkTree(root, view, readFrom, store.gitDir);
  const touched = new Set<number>(walked?.touched);
  const newFiles: string[] = walked ? walked.newFiles : [];
  if (walked) {
    if (newFiles.some((name) => baseName(name) === '.gitattributes')) return undefined;
  } else
    for (const entry of await gitListing(place)) {
      const name = entry.slice(2);
      if (name.endsWith('/')) continue;
      if (entry.startsWith('?')) {
        if (baseName(name) === '.gitattributes') return undefined;
        newFiles.push(name);
      } else {
        // A name git printed that is not found as bytes (not UTF-8) is git's to handle.
        const i = findEntry(view, toBytes(name));
        if (i < 0) return undefined;
        touched.add(i);
      }
    }
  // Smudged entries git found unchanged get their stat data back, so that they stop costing a read.
  for (let i = 0; i < view.count; i++) if (sizeAt(view, i) === 0 && oidAt(view, i) !== EMPTY_BLOB) touched.add(i);

  // The limits, as the git path applies them.
  if (newFiles.length > store.limits.maxFiles) throw new SnapshotTooLargeError(newFiles.length, store.limits.maxFiles);
  const skipped: SkippedPath[] = [];
  const bigDirs = await oversizedUntrackedDirs(store, newFiles);
  for (const d of bigDirs) skipped.push({ path: d, reason: 'untracked-dir-too-large' });
  const adding: { name: string; st: fs.BigIntStats }[] = [];
  for (const file of newFiles) {
    if (bigDirs.some((d) => file.startsWith(d + '/'))) continue;
    const st = lstatOf(path.join(root, file));
    if (!st || modeOf(st) === undefined) continue;
    if (st.isFile() && st.size > BigInt(store.limits.maxFileBytes)) skipped.push({ path: file, reason: 'file-too-large' });
    else adding.push({ name: file, st });
  }
  const buildDirs = options.reportSkippedDirs && newFiles.length > 0 ? skippedBuildDirs(store, place) : Promise.resolve([]);

  // Hash what changed, and note the changes.
  const changes: RawChange[] = [];
  const invalid: string[] = [];
  const replaced = new Map<number, IndexEntry | null>();
  for (const i of touched) {
    const byteName = nameAt(view, i);
    const name = NON_ASCII.test(byteName) ? fromBytes(byteName) : byteName;
    // The stat is taken before the read: a file changed meanwhile shows a newer stat next time.
    const st = lstatOf(path.join(root, name));
    const oid = st && modeOf(st) !== undefined ? hashFile(store, name, st) : undefined;
    if (oid === undefined) {
      replaced.set(i, null);
      changes.push({ path: name, kind: 'delete', mode: '000000', object: NO_OBJECT });
      invalid.push(byteName);
      continue;
    }
    const mode = modeOf(st!)!;
    if (oid !== oidAt(view, i) || mode !== modeAt(view, i)) {
      changes.push({ path: name, kind: 'modify', mode: mode.toString(8).padStart(6, '0'), object: oid });
      invalid.push(byteName);
    }
    replaced.set(i, entryOf(byteName, st!, oid, mode));
  }
  const added: IndexEntry[] = [];
  for (const { name, st } of adding) {
    const oid = hashFile(store, name, st);
    if (oid === undefined) continue;
    const mode = modeOf(st)!;
    added.push(entryOf(toBytes(name), st, oid, mode));
    changes.push({ path: name, kind: 'create', mode: mode.toString(8).padStart(6, '0'), object: oid });
    invalid.push(toBytes(name));
  }
  for (const d of await buildDirs) skipped.push({ path: d, reason: 'build-or-dependency-dir' });
  const edited = replaced.size > 0 || added.length > 0 ? editIndex(view, replaced, added) : view;
  if (edited.tree) for (const name of invalid) invalidatePath(edited.tree, name);
  let tree = changes.length === 0 ? known : undefined;
  if (tree === undefined || !edited.tree) {
    const written = writeTrees(store.gitDir, edited, edited.tree);
    tree = written.tree;
    edited.tree = written.cache;
  }
  if (edited !== view || !known) {
    writeIndexFile(copy, edited === view ? editIndex(view, new Map(), []) : edited, readFrom);
    replaceSharedIndex(store, copy, tree);
  }
  changes.sort((a, b) => (toBytes(a.path) < toBytes(b.path) ? -1 : toBytes(a.path) > toBytes(b.path) ? 1 : 0));
  return { tree, skipped, ...(known ? { diff: { from: known, changes } } : {}) };
}
