/**
 * A "ghost commit" of the workspace, through git alone. The store keeps a persistent index of
 * its own (`minicode-index`), the last snapshot's files with their stat data: a snapshot works on
 * a copy of it, so git's stat cache tells what changed since and only those files are read and
 * hashed. One walk of the work tree (`ls-files` of what changed, was deleted or is new), those
 * paths alone hashed into the copy (`update-index`), `write-tree` (which reuses the index's
 * cached subtrees), `commit-tree`; the copy then replaces the store's index. The first snapshot
 * of a store starts from the tree of the user's HEAD (`read-tree`, `update-index --refresh`).
 * Nothing here writes to the user's repository: the store has its own GIT_DIR and every command
 * gets the index through GIT_INDEX_FILE.
 *
 * What is left out, and said so: folders whose whole content the work tree's .gitignore files
 * (nested ones too) or the user's info/exclude ignore, ignored files over `maxIgnoredFileBytes`
 * (or past `maxIgnoredBytes` together), the well-known build and dependency folders, new files
 * over `maxFileBytes`, and folders the user's git does not track holding more than
 * `maxUntrackedDirFiles` new files. Small ignored files (a `.env`) are kept: a run that deletes
 * or rewrites one through `bash` can be undone. Permission bits git does not keep are recorded
 * beside the tree (modes.ts).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PayloadOf } from '../events/payloads.js';
import { GitError, runGit, splitNul, type GitPlace } from './git.js';
import { modesLine, modesOfIndex, readModeMap, updateModes, writeModeMap } from './modes.js';
import type { WorkspaceStore } from './store.js';
import { dropExpected, reportDropped } from '../debug.js';

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
  } catch (error) {
    dropExpected('checkpoint snapshot: the shared index', error, 'ENOENT');
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
    const { stdout } = await runGit(
      ['ls-files', '-z', '--others', '--exclude-standard', '--directory', '--no-empty-directory'],
      { cwd: store.workTree },
    );
    entries = splitNul(stdout).filter((e) => e.endsWith('/'));
  } catch (error) {
    reportDropped('checkpoint snapshot: listing untracked folders', error);
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
export async function skippedBuildDirs(
  store: WorkspaceStore,
  place: { gitDir: string; workTree: string; indexFile: string },
): Promise<string[]> {
  const patterns = path.join(store.gitDir, 'minicode-skip-dirs');
  fs.writeFileSync(patterns, store.limits.skipDirs.map((d) => `${d}/`).join('\n') + '\n', { mode: 0o600 });
  const { stdout } = await runGit(
    ['ls-files', '-z', '--others', '--ignored', '--directory', `--exclude-from=${patterns}`],
    place,
  );
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
  } catch (error) {
    dropExpected('checkpoint snapshot: reading the tree note', error, 'ENOENT');
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
 * Seed the store's first index with the tree the user's HEAD holds at the workspace, then let
 * git refresh it: every tracked file is hashed once and its stat data recorded, so the next
 * snapshots rehash only what changes. Tracked files thus stay in the checkpoints even inside a
 * skipped folder name or over the size limit. False when there is no such tree (no repository,
 * no commit yet): the walk then finds every file new.
 */
async function seedFromUserHead(store: WorkspaceStore, place: GitPlace): Promise<boolean> {
  if (store.userPrefix === undefined) return false;
  let tree: string;
  try {
    // Read-only in the user's repository.
    // `HEAD:<path>` names the folder's tree (a workspace is a folder); the top is HEAD's own.
    const spec = store.userPrefix === '' ? 'HEAD^{tree}' : `HEAD:${store.userPrefix.replace(/\/$/, '')}`;
    tree = (await runGit(['rev-parse', '--verify', '--quiet', spec], { cwd: store.workTree })).stdout.trim();
  } catch (error) {
    if (error instanceof GitError) return false; // no commit yet, or the folder is not in it
    throw error;
  }
  await runGit(['read-tree', tree], place);
  // Exit 1: some files differ from HEAD (the walk lists them next).
  await runGit(['update-index', '-q', '--refresh'], { ...place, okCodes: [0, 1] });
  return true;
}

/** Take a snapshot of the store's work tree as a commit in the store. */
export function takeSnapshot(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  return serialInStore(store, () => snapshotNow(store, options));
}

/**
 * The snapshot: a copy of the store's index (the first one seeded from the user's HEAD), one
 * walk listing what changed since it, those paths hashed into it, `write-tree`, `commit-tree`.
 */
async function snapshotNow(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  const shared = sharedIndexOf(store);
  const indexFile = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const place = { gitDir: store.gitDir, workTree: store.workTree, indexFile };
  try {
    const fromShared = seedIndex(shared, indexFile);
    if (!fromShared) await seedFromUserHead(store, place);
    const known = fromShared ? notedTree(store) : undefined;
    // One walk of the work tree: files changed or deleted since the seed index, and new ones;
    // beside it, the walk of what the ignore rules leave out (small ignored files are kept).
    const [listing, ignored] = await Promise.all([
      runGit(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard'], place),
      store.limits.maxIgnoredFileBytes > 0
        ? runGit(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], place)
        : undefined,
    ]);
    const newFiles: string[] = [];
    const touched = new Set<string>();
    for (const entry of splitNul(listing.stdout)) {
      const name = entry.slice(2);
      // A folder entry is a nested repository: it has no content of its own to keep.
      if (name.endsWith('/')) continue;
      if (entry.startsWith('?')) newFiles.push(name);
      else touched.add(name);
    }
    if (newFiles.length > store.limits.maxFiles)
      throw new SnapshotTooLargeError(newFiles.length, store.limits.maxFiles);
    const skipped: SkippedPath[] = [];
    const bigDirs = await oversizedUntrackedDirs(store, newFiles);
    for (const d of bigDirs) skipped.push({ path: d, reason: 'untracked-dir-too-large' });
    for (const file of newFiles) {
      if (bigDirs.some((d) => file.startsWith(d + '/'))) continue;
      let tooLarge = false;
      try {
        const st = fs.lstatSync(path.join(store.workTree, file));
        tooLarge = st.isFile() && st.size > store.limits.maxFileBytes;
      } catch (error) {
        // Gone since the listing: update-index --remove copes.
        dropExpected('checkpoint snapshot: sizing a new file', error, 'ENOENT', 'ENOTDIR');
      }
      if (tooLarge) skipped.push({ path: file, reason: 'file-too-large' });
      else touched.add(file);
    }
    if (ignored) for (const file of smallIgnoredFiles(store, splitNul(ignored.stdout), skipped)) touched.add(file);
    // The build-folder walk only reports; it runs beside the hashing.
    const buildDirs =
      options.reportSkippedDirs !== false && newFiles.length > 0 ? skippedBuildDirs(store, place) : Promise.resolve([]);
    const hashed = touched.size > 0 ? hashInto(place, touched, skipped) : Promise.resolve();
    const [dirs] = await Promise.all([buildDirs, hashed]);
    for (const d of dirs) skipped.push({ path: d, reason: 'build-or-dependency-dir' });
    // The permission bits git's tree cannot hold: the store's map, updated from what was hashed
    // (read whole from the index on a store's first snapshot).
    const stored = readModeMap(store.gitDir);
    const modes = stored ?? (await modesOfIndex(place));
    if (stored) updateModes(modes, store.workTree, touched);
    const unchanged = touched.size === 0 && known !== undefined;
    const tree = unchanged ? known : (await runGit(['write-tree'], place)).stdout.trim();
    const line = modesLine(modes);
    const args = ['commit-tree', tree, ...(options.parent ? ['-p', options.parent] : []), '-F', '-'];
    const commit = (
      await runGit(args, {
        gitDir: store.gitDir,
        cwd: store.gitDir,
        input: `${options.message}\n${line ? `\n${line}\n` : ''}`,
      })
    ).stdout.trim();
    if (!unchanged) replaceSharedIndex(store, indexFile, tree);
    if (!unchanged || !stored) writeModeMap(store.gitDir, modes);
    return { commit, tree, skipped };
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}

/**
 * The ignored files a checkpoint keeps: the ones git lists on their own (`ls-files --ignored
 * --directory` lists a folder whose whole content is ignored as the folder: `node_modules/`, a
 * build output, a cache, a virtual environment; those are bulk and left out whole, as is
 * everything inside a skip-list folder name), each at most `maxIgnoredFileBytes`, together at most `maxIgnoredBytes`.
 * The others are reported as `file-too-large`. A kept one is in the store's index from then on,
 * so later snapshots see it change or go as any other file.
 */
function smallIgnoredFiles(store: WorkspaceStore, entries: readonly string[], skipped: SkippedPath[]): string[] {
  const bulk = new Set(entries.filter((e) => e.endsWith('/')));
  const skipNames = new Set(store.limits.skipDirs);
  // Inside a listed folder, or inside a skip-list folder that also holds tracked files (git then
  // lists its ignored files one by one).
  const inBulk = (file: string): boolean => {
    let start = 0;
    for (let i = file.indexOf('/'); i !== -1; i = file.indexOf('/', i + 1)) {
      if (bulk.has(file.slice(0, i + 1)) || skipNames.has(file.slice(start, i))) return true;
      start = i + 1;
    }
    return false;
  };
  const kept: string[] = [];
  let total = 0;
  for (const file of entries) {
    if (file.endsWith('/') || inBulk(file)) continue;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(path.join(store.workTree, file));
    } catch (error) {
      // Gone since the listing.
      dropExpected('checkpoint snapshot: sizing an ignored file', error, 'ENOENT', 'ENOTDIR');
      continue;
    }
    if (st.isFile() && (st.size > store.limits.maxIgnoredFileBytes || total + st.size > store.limits.maxIgnoredBytes)) {
      skipped.push({ path: file, reason: 'file-too-large' });
      continue;
    }
    total += st.size;
    kept.push(file);
  }
  return kept;
}

/** Hash `touched` into the index (added, updated or removed). */
async function hashInto(
  place: { gitDir: string; workTree: string; indexFile: string },
  touched: ReadonlySet<string>,
  skipped: readonly SkippedPath[],
): Promise<void> {
  try {
    await runGit(['update-index', '-z', '--add', '--remove', '--stdin'], {
      ...place,
      input: [...touched].join('\0') + '\0',
    });
  } catch (error) {
    // A file that cannot be read (permissions) fails update-index as a whole; add -A skips
    // such files and adds the rest, with the skipped paths excluded.
    dropExpected('checkpoint snapshot: update-index', error, 'GitError');
    const specs = ['.', ...skipped.map((p) => `:(exclude,literal)${p.path}`)];
    await runGit(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      ...place,
      input: specs.join('\0') + '\0',
      okCodes: ADD_OK,
    });
  }
}
