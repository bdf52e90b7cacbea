/**
 * A snapshot taken in-process from the store's index, spawning git only to ask which new paths
 * are ignored. Every tracked entry's stat data is compared with the file (git's rules: mode,
 * size, mtime, ctime, inode, owner; an entry whose mtime is not older than the index file, or
 * that was smudged to size 0, is hashed again), the remembered folders' mtimes tell whether any
 * new file can exist (work-dirs.ts), changed files are hashed and written as loose blobs, the
 * trees of changed folders are rebuilt from the cache tree, and the new index is written with
 * racily clean entries smudged, as git writes it. The diff against the previous snapshot falls
 * out of the same pass, so no `diff-tree` runs either.
 *
 * It declines (undefined: the caller runs git) whenever the index or the work tree holds what
 * only git handles exactly: another index format, submodules, `.gitattributes` (conversions),
 * paths that are not UTF-8, unreadable files, or more new folders and files than it walks.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit, splitNul } from './git.js';
import { invalidatePath, parseIndex, serializeIndex, type IndexEntry, type IndexFile } from './index-file.js';
import type { RawChange } from './journal.js';
import { notedTree, oversizedUntrackedDirs, replaceSharedIndex, sharedIndexOf, skippedBuildDirs, SnapshotTooLargeError, type SkippedPath } from './snapshot.js';
import type { WorkspaceStore } from './store.js';
import { EMPTY_BLOB, writeObject, writeTrees } from './trees.js';
import { bindingOf, changedDirs, MAX_CANDIDATES, readWorkDirs, scanDirs, writeWorkDirs, type Scan, type WorkDirs } from './work-dirs.js';

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

/** True when `st` is the file `e` recorded and the record is not racy. */
function statMatches(e: IndexEntry, st: fs.BigIntStats, indexMtimeNs: bigint): boolean {
  if (e.size === 0 && e.oid !== EMPTY_BLOB) return false;
  if (modeOf(st) !== e.mode || u32(st.size) !== e.size) return false;
  if (u32(st.mtimeNs / NS) !== e.mtimeS || Number(st.mtimeNs % NS) !== e.mtimeNs) return false;
  if (u32(st.ctimeNs / NS) !== e.ctimeS || Number(st.ctimeNs % NS) !== e.ctimeNs) return false;
  if (u32(st.ino) !== e.ino || u32(st.uid) !== e.uid || u32(st.gid) !== e.gid) return false;
  return BigInt(e.mtimeS) * NS + BigInt(e.mtimeNs) < indexMtimeNs;
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
const baseName = (name: string): string => name.slice(name.lastIndexOf('/') + 1);
const parentOf = (name: string): string => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');

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

/** minicode's own data folders inside the work tree (never walked). */
function ownDataPaths(store: WorkspaceStore): Set<string> {
  const paths = new Set<string>();
  const home = path.dirname(store.gitDir);
  for (const dir of [home, path.dirname(home)]) {
    const rel = path.relative(store.workTree, dir);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) paths.add(rel.split(path.sep).join('/'));
  }
  return paths;
}

/** Read the store's index (content and stat of one file, even if it is replaced meanwhile). */
function readShared(store: WorkspaceStore): { index: IndexFile; stat: fs.Stats; mtimeNs: bigint } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(sharedIndexOf(store), 'r');
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    const big = fs.fstatSync(fd, { bigint: true });
    const index = parseIndex(fs.readFileSync(fd));
    return index ? { index, stat, mtimeNs: big.mtimeNs } : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Write `index` to `file`; entries not older than the file come out smudged (size 0), as git writes them. */
function writeIndexFile(file: string, index: IndexFile): void {
  fs.writeFileSync(file, serializeIndex(index));
  const written = fs.statSync(file, { bigint: true }).mtimeNs;
  let smudged = false;
  for (const e of index.entries) {
    if (e.size !== 0 && BigInt(e.mtimeS) * NS + BigInt(e.mtimeNs) >= written) {
      e.size = 0;
      smudged = true;
    }
  }
  if (smudged) fs.writeFileSync(file, serializeIndex(index));
}

/** Which of `paths` git ignores (the work tree's .gitignore files, the store's exclude file). */
async function ignoredAmong(store: WorkspaceStore, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const { stdout } = await runGit(['check-ignore', '--no-index', '-z', '--stdin'], { gitDir: store.gitDir, workTree: store.workTree, input: paths.join('\0') + '\0', okCodes: [0, 1] });
  return new Set(splitNul(stdout));
}

/** Take a snapshot in-process; undefined when git must take it. */
export async function fastSnapshot(store: WorkspaceStore, options: { reportSkippedDirs: boolean }): Promise<FastSnapshot | undefined> {
  try {
    return await snapshotInProcess(store, options);
  } catch (error) {
    if (error instanceof SnapshotTooLargeError) throw error;
    return undefined;
  }
}

async function snapshotInProcess(store: WorkspaceStore, options: { reportSkippedDirs: boolean }): Promise<FastSnapshot | undefined> {
  const shared = readShared(store);
  if (!shared) return undefined;
  const { index } = shared;
  const root = store.workTree;
  const names: string[] = new Array(index.entries.length);
  for (let i = 0; i < index.entries.length; i++) {
    const e = index.entries[i]!;
    if (e.mode === GITLINK || baseName(e.name) === '.gitattributes') return undefined;
    names[i] = fromBytes(e.name);
    if (toBytes(names[i]!) !== e.name) return undefined;
  }
  const tracked = new Set(names);
  const binding = bindingOf(shared.stat, store.gitDir);
  const known = notedTree(store);
  const state = readWorkDirs(store.gitDir, binding);

  // Tracked files: what differs from its entry is hashed again; what is gone is removed.
  const touched = new Map<number, fs.BigIntStats>();
  const removed = new Set<number>();
  for (let i = 0; i < names.length; i++) {
    const st = fs.lstatSync(path.join(root, names[i]!), { bigint: true, throwIfNoEntry: false });
    if (!st || modeOf(st) === undefined) removed.add(i);
    else if (!statMatches(index.entries[i]!, st, shared.mtimeNs)) touched.set(i, st);
  }
  // New files: only in folders whose mtime moved (all of them without a record, or when the
  // ignore rules may have changed).
  const ignoreRulesMoved = [...touched.keys(), ...removed].some((i) => baseName(names[i]!) === '.gitignore');
  let dirty: string[] = [];
  const discover = (full: boolean): Scan => {
    dirty = full || !state ? [''] : changedDirs(root, state);
    if (dirty.length === 0) return { dirs: new Map(), files: [], newDirs: [], overflow: false };
    return scanDirs(dirty, {
      root,
      tracked: (n) => tracked.has(n),
      skipNames: new Set(store.limits.skipDirs),
      skipPaths: ownDataPaths(store),
      known: full || !state ? new Set() : new Set(state.dirs.keys()),
      ignored: full || !state ? new Set() : state.ignored,
    });
  };
  let full = ignoreRulesMoved || !state;
  let scan = discover(full);
  if (!full && scan.files.some((f) => baseName(f) === '.gitignore')) scan = discover((full = true));
  if (scan.overflow) return undefined;
  if ([...scan.files].some((f) => baseName(f) === '.gitattributes')) return undefined;
  const ignoredNow = await ignoredAmong(store, [...scan.newDirs, ...scan.files]);
  const ignoredDirs = scan.newDirs.filter((d) => ignoredNow.has(d));
  const underIgnored = (p: string): boolean => ignoredDirs.some((d) => p.startsWith(d + '/'));
  const newFiles = scan.files.filter((f) => !ignoredNow.has(f) && !underIgnored(f)).sort();
  const next: WorkDirs = { dirs: new Map(full || !state ? [] : state.dirs), ignored: new Set(full || !state ? [] : state.ignored), skipped: [] };
  // A folder looked at again gets its new mtime below, or is gone (or became a nested repository).
  for (const d of dirty) next.dirs.delete(d);
  for (const [d, mtime] of scan.dirs) if (!ignoredNow.has(d) && !underIgnored(d)) next.dirs.set(d, mtime);
  for (const d of ignoredDirs) if (!underIgnored(d)) next.ignored.add(`${d}/`);
  for (const f of scan.files) if (ignoredNow.has(f) && !underIgnored(f)) next.ignored.add(f);
  if (next.ignored.size > MAX_CANDIDATES) next.ignored.clear();

  // The limits, as the git path applies them.
  if (newFiles.length > store.limits.maxFiles) throw new SnapshotTooLargeError(newFiles.length, store.limits.maxFiles);
  const skipped: SkippedPath[] = (state && !full ? state.skipped : []).filter((s) => !scan.dirs.has(parentOf(s.path)));
  // A folder too large to keep is left out by the git path, which lists it whole every time.
  if ((await oversizedUntrackedDirs(store, newFiles)).length > 0) return undefined;
  const adding: { name: string; st: fs.BigIntStats }[] = [];
  for (const file of newFiles) {
    const st = fs.lstatSync(path.join(root, file), { bigint: true, throwIfNoEntry: false });
    if (!st || modeOf(st) === undefined) continue;
    if (st.isFile() && st.size > BigInt(store.limits.maxFileBytes)) skipped.push({ path: file, reason: 'file-too-large' });
    else adding.push({ name: file, st });
  }
  if (options.reportSkippedDirs && newFiles.length > 0) {
    const dirs = await skippedBuildDirs(store, { gitDir: store.gitDir, workTree: root, indexFile: sharedIndexOf(store) });
    for (const d of dirs) skipped.push({ path: d, reason: 'build-or-dependency-dir' });
  }
  next.skipped = skipped;

  // Hash what changed, and note the changes.
  const changes: RawChange[] = [];
  const entries = index.entries;
  const changedName = (name: string): void => {
    if (index.tree) invalidatePath(index.tree, name);
  };
  for (const [i, st] of touched) {
    const e = entries[i]!;
    const oid = hashFile(store, names[i]!, st);
    if (oid === undefined) {
      removed.add(i);
      continue;
    }
    const mode = modeOf(st)!;
    if (oid !== e.oid || mode !== e.mode) {
      changes.push({ path: names[i]!, kind: 'modify', mode: mode.toString(8).padStart(6, '0'), object: oid });
      changedName(e.name);
    }
    entries[i] = entryOf(e.name, st, oid, mode);
  }
  for (const i of removed) {
    changes.push({ path: names[i]!, kind: 'delete', mode: '000000', object: NO_OBJECT });
    changedName(entries[i]!.name);
  }
  const added: IndexEntry[] = [];
  for (const { name, st } of adding) {
    const oid = hashFile(store, name, st);
    if (oid === undefined) continue;
    const mode = modeOf(st)!;
    added.push(entryOf(toBytes(name), st, oid, mode));
    changes.push({ path: name, kind: 'create', mode: mode.toString(8).padStart(6, '0'), object: oid });
    changedName(toBytes(name));
  }
  const indexChanged = touched.size > 0 || removed.size > 0 || added.length > 0;
  if (removed.size > 0 || added.length > 0) {
    index.entries = [...entries.filter((_, i) => !removed.has(i)), ...added].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  let tree = changes.length === 0 ? known : undefined;
  if (tree === undefined || !index.tree) {
    const written = writeTrees(store.gitDir, index.entries, index.tree);
    tree = written.tree;
    index.tree = written.cache;
  }
  if (indexChanged || !known) {
    const temp = `${sharedIndexOf(store)}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      writeIndexFile(temp, index);
      writeWorkDirs(store.gitDir, bindingOf(fs.statSync(temp), store.gitDir), next);
      replaceSharedIndex(store, temp, tree);
    } finally {
      fs.rmSync(temp, { force: true });
    }
  } else if (full || scan.dirs.size > 0) writeWorkDirs(store.gitDir, binding, next);
  changes.sort((a, b) => (toBytes(a.path) < toBytes(b.path) ? -1 : toBytes(a.path) > toBytes(b.path) ? 1 : 0));
  return { tree, skipped, ...(known ? { diff: { from: known, changes } } : {}) };
}
