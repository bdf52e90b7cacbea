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
import { runGit, splitNul } from './git.js';
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
function sharedIndexOf(store: WorkspaceStore): string {
  return path.join(store.gitDir, 'minicode-index');
}

/**
 * Copy the shared index to a temporary one with the shared one's mtime: git trusts an entry's
 * cached stat data only when the file's mtime is older than the index file's own mtime (the
 * "racy git" rule), so a copy stamped with the current time would make a file changed within
 * the same second as the last snapshot look unchanged. False when there is no shared index yet.
 */
function seedIndex(shared: string, indexFile: string): boolean {
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

/**
 * Re-read `paths` into the shared index after minicode itself rewrote them (a restore): their
 * cached stat data described the old contents, and a rewrite within the same second, of the
 * same size and on a reused inode would otherwise pass for unchanged at the next snapshot.
 */
export async function refreshSharedIndex(store: WorkspaceStore, paths: readonly string[]): Promise<void> {
  const shared = sharedIndexOf(store);
  if (paths.length === 0) return;
  const indexFile = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    if (!seedIndex(shared, indexFile)) return;
    await runGit(['update-index', '-z', '--add', '--remove', '--stdin'], { gitDir: store.gitDir, workTree: store.workTree, indexFile, input: paths.join('\0') + '\0' });
    fs.renameSync(indexFile, shared);
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}

/** Folders among the user-untracked entries that hold more new files than the limit. */
async function oversizedUntrackedDirs(store: WorkspaceStore, newFiles: readonly string[]): Promise<string[]> {
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
async function skippedBuildDirs(store: WorkspaceStore, place: { gitDir: string; workTree: string; indexFile: string }): Promise<string[]> {
  const patterns = path.join(store.gitDir, 'minicode-skip-dirs');
  fs.writeFileSync(patterns, store.limits.skipDirs.map((d) => `${d}/`).join('\n') + '\n');
  const { stdout } = await runGit(['ls-files', '-z', '--others', '--ignored', '--directory', `--exclude-from=${patterns}`], place);
  return splitNul(stdout).map((d) => d.replace(/\/$/, ''));
}

/** Take a snapshot of the store's work tree as a commit in the store. */
export async function takeSnapshot(store: WorkspaceStore, options: SnapshotOptions): Promise<Snapshot> {
  const shared = sharedIndexOf(store);
  const indexFile = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const place = { gitDir: store.gitDir, workTree: store.workTree, indexFile };
  try {
    // Without a shared index (the first snapshot) git starts from an empty one.
    seedIndex(shared, indexFile);
    // One walk of the work tree: files changed or deleted since the store's index, and new ones.
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
    if (options.reportSkippedDirs !== false && newFiles.length > 0) for (const d of await skippedBuildDirs(store, place)) skipped.push({ path: d, reason: 'build-or-dependency-dir' });
    if (touched.size > 0) {
      try {
        await runGit(['update-index', '-z', '--add', '--remove', '--stdin'], { ...place, input: [...touched].join('\0') + '\0' });
      } catch {
        // A file that cannot be read (permissions) fails update-index as a whole; add -A skips
        // such files and adds the rest, with the skipped paths excluded.
        const specs = ['.', ...skipped.map((p) => `:(exclude,literal)${p.path}`)];
        await runGit(['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], { ...place, input: specs.join('\0') + '\0', okCodes: ADD_OK });
      }
    }
    const tree = (await runGit(['write-tree'], place)).stdout.trim();
    const args = ['commit-tree', tree, ...(options.parent ? ['-p', options.parent] : []), '-F', '-'];
    const commit = (await runGit(args, { ...place, input: options.message + '\n' })).stdout.trim();
    fs.renameSync(indexFile, shared);
    return { commit, tree, skipped };
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}
