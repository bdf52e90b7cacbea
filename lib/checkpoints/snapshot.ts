/**
 * A "ghost commit" of the workspace: a temporary index seeded from the store's last one, one
 * walk of the work tree (`ls-files` of what changed, was deleted or is new since then), those
 * paths alone hashed into the index (`update-index`), `write-tree` (which reuses the index's
 * cached subtrees), `commit-tree`. Nothing here runs in the user's repository: the store has its own GIT_DIR and
 * every command gets the temporary index through GIT_INDEX_FILE.
 *
 * What is left out, and said so: files and folders the work tree's .gitignore files (nested
 * ones too) or the user's info/exclude ignore, the well-known build and dependency folders,
 * new files over `maxFileBytes`, and folders the user's git does not track holding more than
 * `maxUntrackedDirFiles` new files.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PayloadOf } from '../events/payloads.js';
import { fastSnapshot } from './fast-snapshot.js';
import { runGit, splitNul } from './git.js';
import type { RawChange } from './journal.js';
import { isPlainIndex, writeCommit, type CommitFields } from './objects.js';
import type { WorkspaceStore } from './store.js';

/** Why a path was left out of a checkpoint (the event model's list). */
export type SkipReason = NonNullable<PayloadOf<'checkpoint.created'>['skipped']>[number]['reason'];

/** A path a checkpoint left out. */
export interface SkippedPath {
  path: string;
  reason: SkipReason;
}

/** A snapshot: the commit, its tree and what it left out. */
export interface Snapshot {
  commit: string;
  tree: string;
  skipped: SkippedPath[];
  /** The changes from the tree the store's index held before, when the snapshot saw them itself. */
  diff?: { from: string; changes: RawChange[] };
}

/** The snapshot could not be taken without breaking a limit (too many new files). */
export class SnapshotTooLargeError extends Error {
  constructor(
    readonly newFiles: number,
    readonly maxFiles: number,
  ) {
    super(`the workspace has ${newFiles} files not yet checkpointed, more than the limit of ${maxFiles}`);
    this.name = 'SnapshotTooLargeError';
  }
}

/** Options of {@link takeSnapshot}. */
export interface SnapshotOptions {
  /** The commit's message (the checkpoint's metadata line). */
  message: string;
  parent?: string;
  /** Look for build and dependency folders to report as skipped (an extra walk); default true. */
  reportSkippedDirs?: boolean;
  /** Commit time, ms since the epoch; default now. */
  at?: number;
}

/** `add --ignore-errors` exits 1 when some file could not be read; the others are added. */
const ADD_OK = [0, 1] as const;

/** The store's persistent index: seed of every temporary one, replaced after each snapshot. */
export function sharedIndexOf(store: WorkspaceStore): string {
  return path.join(store.gitDir, 'minicode-index');
}

/**
 * Copy the shared index to a temporary one with the shared one's mtime: git trusts an entry's
 * cached stat data only when the file's mtime is older than the index file's own mtime (the
 * "racy git" rule), so a copy stamped with the current time would make a file changed within
 * the same second as the last snapshot look unchanged. False when there is no shared index yet.
 */
export function seedIndex(shared: string, indexFile: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.statSync(shared);
  } catch {
    return false;
  }
  fs.copyFileSync(shared, indexFile);
  fs.utimesSync(indexFile, st.atime, st.mtime);
  return true;
}

/** Folders among the user-untracked entries that hold more new files than the limit. */
export async function oversizedUntrackedDirs(store: WorkspaceStore, newFiles: readonly string[]): Promise<string[]> {
  if (!store.userGitDir || newFiles.length <= store.limits.maxUntrackedDirFiles) return [];
  let entries: string[];
  try {
    // Read-only in the user's repo: ls-files never writes the index (GIT_OPTIONAL_LOCKS=0 too).
    const { stdout } = await runGit(['ls-files', '-z', '--others', '--exclude-standard', '--directory', '--no-empty-directory'], { cwd: store.workTree });
    entries = splitNul(stdout).filter((e) => e.endsWith('/'));
  } catch {
    return [];
  }
  if (entries.length === 0) return [];
  const counts = new Map(entries.map((d) => [d, 0]));
  const sorted = [...entries].sort();
  for (const file of newFiles) {
    // The longest listed folder that is a prefix of this file (entries never nest).
    let lo = 0;
    let hi = sorted.length - 1;
    let found: string | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const dir = sorted[mid]!;
      if (dir <= file) {
        if (file.startsWith(dir)) found = dir;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found) counts.set(found, (counts.get(found) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > store.limits.maxUntrackedDirFiles).map(([d]) => d.slice(0, -1));
}

/** Skip-list folders present in the work tree (reported, never snapshotted). */
export async function skippedBuildDirs(store: WorkspaceStore, place: { gitDir: string; workTree: string; indexFile: string }): Promise<string[]> {
  const patterns = path.join(store.gitDir, 'minicode-skip-dirs');
  fs.writeFileSync(patterns, store.limits.skipDirs.map((d) => `${d}/`).join('\n') + '\n', { mode: 0o600 });
  const { stdout } = await runGit(['ls-files', '-z', '--others', '--ignored', '--directory', `--exclude-from=${patterns}`], place);
  return splitNul(stdout).map((d) => d.replace(/\/$/, ''));
}

/** Where the tree of the shared index is noted, with the index's size and mtime to tell it is still that index's. */
function treeNoteOf(store: WorkspaceStore): string {
  return path.join(store.gitDir, 'minicode-index.tree');
}

/** The tree the shared index holds, when noted for the index now in place. */
export function notedTree(store: WorkspaceStore): string | undefined {
  try {
    const [tree, size, mtime] = fs.readFileSync(treeNoteOf(store), 'utf8').trim().split(' ');
    const st = fs.statSync(sharedIndexOf(store));
    return tree && String(st.size) === size && String(st.mtimeMs) === mtime ? tree : undefined;
  } catch {
    return undefined;
  }
}

/** Make `indexFile` the shared index, noting its tree (a later snapshot with nothing changed skips write-tree). */
export function replaceSharedIndex(store: WorkspaceStore, indexFile: string, tree: string | undefined): void {
  // The note names the index by its own size and mtime (a rename keeps both), taken before the
  // rename: a note written late by a concurrent snapshot then fails to match the index in place.
  const st = fs.statSync(indexFile);
  fs.rmSync(treeNoteOf(store), { force: true });
  fs.renameSync(indexFile, sharedIndexOf(store));
  if (tree) fs.writeFileSync(treeNoteOf(store), `${tree} ${st.size} ${st.mtimeMs}\n`, { mode: 0o600 });
}

/** Work on a store's index one at a time within this process (batch lines and parallel tool calls share it). */
const STORE_QUEUES = new Map<string, Promise<unknown>>();

/** Run `work` after every earlier {@link serialInStore} call of the same store has settled. */
export function serialInStore<T>(store: WorkspaceStore, work: () => Promise<T>): Promise<T> {
  const before = STORE_QUEUES.get(store.gitDir) ?? Promise.resolve();
  const next = before.then(work, work);
  const tail = next.catch(() => undefined);
  STORE_QUEUES.set(store.gitDir, tail);
  void tail.then(() => {
    if (STORE_QUEUES.get(store.gitDir) === tail) STORE_QUEUES.delete(store.gitDir);
  });
  return next;
}

/**
 * Seed the store's first index from the user's own (when the workspace is the top level of a
 * repository whose index is a plain version-2 file): its entries already hold the hashes and
 * stat data of every tracked file, so only what differs from it is read and hashed. Read through
 * one descriptor, so content and mtime come from the same file even if git replaces it meanwhile.
 */
function seedFromUserIndex(store: WorkspaceStore, indexFile: string): boolean {
  if (!store.userIndex) return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync(store.userIndex, 'r');
    const st = fs.fstatSync(fd);
    const data = fs.readFileSync(fd);
    if (!isPlainIndex(data)) return false;
    fs.writeFileSync(indexFile, data, { mode: 0o600 });
    fs.utimesSync(indexFile, st.atime, st.mtime);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The commit of a snapshot: written directly as a loose object, or by git when the store is not SHA-1. */
async function commitOf(store: WorkspaceStore, fields: CommitFields): Promise<string> {
  try {
    return writeCommit(store.gitDir, fields);
  } catch {
    const args = ['commit-tree', fields.tree, ...(fields.parent ? ['-p', fields.parent] : []), '-F', '-'];
    return (await runGit(args, { gitDir: store.gitDir, cwd: store.gitDir, input: fields.message + '\n' })).stdout.trim();
  }
}

/** Take a snapshot of the store's work tree as a commit in the store. */
export function takeSnapshot(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  return serialInStore(store, () => snapshotNow(store, options));
}

async function snapshotNow(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  const fast = await fastSnapshot(store, { reportSkippedDirs: options.reportSkippedDirs !== false });
  if (fast) {
    const commit = await commitOf(store, { tree: fast.tree, message: options.message, at: options.at ?? Date.now(), ...(options.parent ? { parent: options.parent } : {}) });
    return { commit, ...fast };
  }
  return snapshotWithGit(store, options);
}

/** The snapshot by git: the first of a store (seeded from the user's index), and whatever the in-process one declines. */
async function snapshotWithGit(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  const shared = sharedIndexOf(store);
  const indexFile = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const place = { gitDir: store.gitDir, workTree: store.workTree, indexFile };
  try {
    // Without a shared index (the first snapshot) start from the user's index, else from an empty one.
    const fromShared = seedIndex(shared, indexFile);
    if (!fromShared) seedFromUserIndex(store, indexFile);
    const known = fromShared ? notedTree(store) : undefined;
    // One walk of the work tree: files changed or deleted since the seed index, and new ones.
    const listing = await runGit(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard'], place);
    const newFiles: string[] = [];
    const touched = new Set<string>();
    for (const entry of splitNul(listing.stdout)) {
      const name = entry.slice(2);
      // A folder entry is a nested repository: it has no content of its own to keep.
      if (name.endsWith('/')) continue;
      if (entry.startsWith('?')) newFiles.push(name);
      else touched.add(name);
    }
    if (newFiles.length > store.limits.maxFiles) throw new SnapshotTooLargeError(newFiles.length, store.limits.maxFiles);
    const skipped: SkippedPath[] = [];
    const bigDirs = await oversizedUntrackedDirs(store, newFiles);
    for (const d of bigDirs) skipped.push({ path: d, reason: 'untracked-dir-too-large' });
    for (const file of newFiles) {
      if (bigDirs.some((d) => file.startsWith(d + '/'))) continue;
      let tooLarge = false;
      try {
        const st = fs.lstatSync(path.join(store.workTree, file));
        tooLarge = st.isFile() && st.size > store.limits.maxFileBytes;
      } catch {
        // Gone since the listing: update-index --remove copes.
      }
      if (tooLarge) skipped.push({ path: file, reason: 'file-too-large' });
      else touched.add(file);
    }
    // The build-folder walk only reports; it runs beside the hashing.
    const buildDirs = options.reportSkippedDirs !== false && newFiles.length > 0 ? skippedBuildDirs(store, place) : Promise.resolve([]);
    const hashed = touched.size > 0 ? hashInto(place, touched, skipped) : Promise.resolve();
    const [dirs] = await Promise.all([buildDirs, hashed]);
    for (const d of dirs) skipped.push({ path: d, reason: 'build-or-dependency-dir' });
    const unchanged = touched.size === 0 && known !== undefined;
    const tree = unchanged ? known : (await runGit(['write-tree'], place)).stdout.trim();
    const commit = await commitOf(store, { tree, message: options.message, at: options.at ?? Date.now(), ...(options.parent ? { parent: options.parent } : {}) });
    if (!unchanged) replaceSharedIndex(store, indexFile, tree);
    return { commit, tree, skipped };
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}

/** Hash `touched` into the index (added, updated or removed). */
async function hashInto(place: { gitDir: string; workTree: string; indexFile: string }, touched: ReadonlySet<string>, skipped: readonly SkippedPath[]): Promise<void> {
  try {
    await runGit(['update-index', '-z', '--add', '--remove', '--stdin'], { ...place, input: [...touched].join('\0') + '\0' });
  } catch {
    // A file that cannot be read (permissions) fails update-index as a whole; add -A skips
    // such files and adds the rest, with the skipped paths excluded.
    const specs = ['.', ...skipped.map((p) => `:(exclude,literal)${p.path}`)];
    await runGit(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], { ...place, input: specs.join('\0') + '\0', okCodes: ADD_OK });
  }
}
