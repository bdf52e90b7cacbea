/**
 * The batch's pool of worktrees (`--isolate worktree` without `--keep-workspaces`): a line
 * takes a free worktree of its repository instead of making one, and gives it back reset.
 * Making a worktree writes every file of the checkout and removing it deletes them all (seconds
 * on a large repository); a reset touches only what the line changed.
 *
 * The patch, after the line: a readdir walk finds the paths the starting tree lacks (no stat
 * of tracked files). With none, and the worktree's index still listing the tree's files (read
 * in-process), the worktree's diff against the tree is the patch (one git process: git's own
 * stat pass finds the edits); otherwise `git add -A` stages everything first (new files join,
 * ignored ones stay out) and the staged diff is the patch. Both print the same bytes for the
 * same changes (test/batch/worktree-pool.test.ts compares them).
 *
 * The reset: the walk's paths are deleted (ignored files the line made, build output, empty
 * folders: a fresh worktree has none, so a reused one must not either), a moved HEAD is put
 * back, and the patch's paths are restored from the tree: edited or deleted regular files
 * are written back from their blobs in-process when nothing could convert them on checkout
 * (pool-restore.ts), anything else by `git restore --source` (index and files). No full `git status` check follows: it stats every tracked file again, which
 * costs as much as the rest of the reset (measured in bench/isolation), and the reset is
 * complete by construction. Any failure on the way deletes the worktree instead.
 *
 * The pool's state is files, so pool threads and the coordinator share it without messages:
 * in `OUT/workspaces/pool/`, `slot-<slot>.json` names each worktree (written before it is
 * made, so a killed batch's worktrees are found when it resumes), and an empty
 * `free-<repository>-<base>-<slot>` marks it free; taking it is unlinking that file, which only
 * one taker can do. A free worktree of the same repository at another commit is moved to the
 * line's start with one `git read-tree -u --reset` (only the files that differ are written).
 * The pool holds at most `size` worktrees (the batch's concurrency): a new one evicts free
 * ones of other repositories first. The whole pool is removed when the batch ends, and by the
 * resume of a killed batch.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withRepoLock } from './repo-lock.js';
import { addWorktree, git, markerDir, patchArgs, patchPaths, removeMarked, workspacesRoot, type Marker, type RepoBase } from './workspace-git.js';
import type { Workspace } from './workspace.js';
import type { IndexView } from '../checkpoints/index-file.js';
import { writeBack } from './pool-restore.js';
import { gitDirOf, indexListsTree, trackedPaths, untrackedPaths, type Tracked } from './worktree-state.js';

/** The pool's folder inside `OUT/workspaces/`. */
export const POOL_DIR = 'pool';

/** A pooled worktree's marker (`slot-<id>.json`). */
interface Slot extends Marker {
  common: string;
  commit: string;
  tree: string;
}

/** More changed paths than this are reset by a whole-index `read-tree` rather than a path list. */
const MAX_LISTED_PATHS = 2000;

function poolDir(outDir: string): string {
  return path.join(markerDir(outDir), POOL_DIR);
}

function key(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

function freeName(slot: Slot): string {
  return `free-${key(slot.common)}-${key(`${slot.commit}:${slot.tree}`)}-${slot.id}`;
}

/** Take a free slot whose name starts with `prefix`: unlinking its free file makes it ours. */
function claim(dir: string, prefix: string): string | undefined {
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    try {
      fs.unlinkSync(path.join(dir, name));
    } catch {
      continue; // taken by another line meanwhile
    }
    return name.slice(name.lastIndexOf('-') + 1);
  }
  return undefined;
}

function readSlot(dir: string, id: string): Slot {
  return JSON.parse(fs.readFileSync(path.join(dir, `slot-${id}.json`), 'utf8')) as Slot;
}

function writeSlot(dir: string, slot: Slot): void {
  fs.writeFileSync(path.join(dir, `slot-${slot.id}.json`), JSON.stringify(slot));
}

async function deleteSlot(dir: string, slot: Slot): Promise<void> {
  await removeMarked(slot, true);
  fs.rmSync(path.join(dir, `slot-${slot.id}.json`), { force: true });
}

/** A worktree from the pool at `base` (taken, moved, or made); throws what git throws. */
export async function acquirePooled(base: RepoBase, options: { outDir: string; size: number }): Promise<Workspace> {
  const dir = poolDir(options.outDir);
  fs.mkdirSync(dir, { recursive: true });
  const repo = key(base.common);
  let id = claim(dir, `free-${repo}-${key(`${base.commit}:${base.tree}`)}-`);
  if (id !== undefined) return pooledWorkspace(dir, readSlot(dir, id), base.prefix);
  id = claim(dir, `free-${repo}-`);
  if (id !== undefined) {
    const slot = readSlot(dir, id);
    try {
      // Pristine at its old start: the one-way merge rewrites only the files that differ.
      await git(['read-tree', '-u', '--reset', base.tree], slot.root);
      await git(['update-ref', '--no-deref', 'HEAD', base.commit], slot.root);
      const moved: Slot = { ...slot, commit: base.commit, tree: base.tree };
      writeSlot(dir, moved);
      return pooledWorkspace(dir, moved, base.prefix);
    } catch {
      await deleteSlot(dir, slot).catch(() => undefined);
    }
  }
  await evict(dir, options.size);
  const slotId = randomBytes(6).toString('hex');
  const slot: Slot = { id: slotId, mode: 'worktree', root: path.join(workspacesRoot(options.outDir), `pool-${slotId}`), git: base.top, common: base.common, commit: base.commit, tree: base.tree };
  writeSlot(dir, slot);
  try {
    await addWorktree(base, slot.root);
  } catch (error) {
    await deleteSlot(dir, slot).catch(() => undefined);
    throw error;
  }
  return pooledWorkspace(dir, slot, base.prefix);
}

/** Make room for one more worktree: delete free ones (of other starts) while the pool is full. */
async function evict(dir: string, size: number): Promise<void> {
  let count = fs.readdirSync(dir).filter((n) => n.startsWith('slot-')).length;
  while (count >= size) {
    const id = claim(dir, 'free-');
    if (id === undefined) return; // all busy: the batch's concurrency bounds them
    await deleteSlot(dir, readSlot(dir, id)).catch(() => undefined);
    count--;
  }
}

function pooledWorkspace(dir: string, slot: Slot, prefix: string): Workspace {
  const root = slot.root;
  let found: Changes | undefined;
  const discard = (): Promise<void> => deleteSlot(dir, slot);
  return {
    cwd: path.join(root, prefix),
    root,
    pooled: true,
    async diff() {
      const { patch, changes } = await linePatch(slot);
      found = changes;
      return patch;
    },
    async remove() {
      try {
        found ??= (await linePatch(slot)).changes;
        await resetSlot(slot, found);
        fs.writeFileSync(path.join(dir, freeName(slot)), '');
      } catch {
        await discard().catch(() => undefined);
      }
    },
    discard,
  };
}

/** What a line changed in a pooled worktree: what the reset must undo. */
interface Changes {
  /** Paths of the patch: tracked at the start or staged now. */
  paths: string[];
  /** Top-most paths the starting tree does not have (new, ignored, leftovers). */
  untracked: string[];
  /** The index as it was read when it listed the tree's paths (the patch came from the files). */
  index?: IndexView;
  tracked: Tracked;
}

/**
 * The line's patch against the slot's starting tree, and what it changed. When the line left
 * no path the tree lacks and the index still lists the tree's files, the worktree's own diff
 * against the tree is that patch, in one git process; otherwise everything is staged first
 * (`add -A`: new files join, ignored ones do not) and the staged diff is the patch.
 */
async function linePatch(slot: Slot): Promise<{ patch: string; changes: Changes }> {
  const root = slot.root;
  const tracked = await trackedPaths(root, slot.tree);
  const untracked = await untrackedPaths(root, tracked);
  const index = untracked.length === 0 && !tracked.gitlinks ? indexListsTree(root, tracked) : undefined;
  if (!index) await git(['add', '-A'], root);
  const patch = await git(patchArgs(slot.tree, index ? 'worktree' : 'staged'), root);
  const paths = patchPaths(patch) ?? (await git(['diff', ...(index ? [] : ['--cached']), '--name-only', '-z', '--no-renames', slot.tree], root)).split('\0').filter(Boolean);
  return { patch, changes: { paths, untracked, tracked, ...(index ? { index } : {}) } };
}

/** Back to the slot's start: nothing untracked left, HEAD, and the changed paths (index and files). */
async function resetSlot(slot: Slot, changes: Changes): Promise<void> {
  const root = slot.root;
  // First, so a folder where a tracked file was is gone before the file is restored.
  await Promise.all(changes.untracked.map((rel) => fs.promises.rm(path.join(root, rel), { recursive: true, force: true })));
  const head = fs.readFileSync(path.join(gitDirOf(root), 'HEAD'), 'utf8').trim();
  // A line that committed or switched branch: detach at the start again (a branch it made stays in the repository, as without the pool).
  if (head !== slot.commit) await git(['update-ref', '--no-deref', 'HEAD', slot.commit], root);
  const changed = changes.paths;
  const wholeTree = (): Promise<string> => git(['read-tree', '-u', '--reset', slot.tree], root);
  if (changed.length > MAX_LISTED_PATHS) await wholeTree();
  else if (changed.length > 0 && !(changes.index && (await writeBack(root, slot.common, changed, changes.tracked, changes.index)))) {
    const restore = ['--literal-pathspecs', 'restore', `--source=${slot.tree}`, '--staged', '--worktree', '--pathspec-from-file=-', '--pathspec-file-nul'];
    // restore refuses some lists (a staged file under a path the tree has as a file): the whole index then, which stats every file.
    await git(restore, root, changed.join('\0')).catch(wholeTree);
  }
}

/**
 * A `git worktree add` killed midway (with the batch, or when the batch died) leaves its worktree registered and locked as "initializing", and `git worktree prune`
 * keeps locked ones: unlock those of the pool's slots (matched by folder name: git names the
 * entry after the folder, adding a number on a clash) so that the prune drops them.
 */
function unlockInterruptedAdds(common: string, names: Set<string>): void {
  const admin = path.join(common, 'worktrees');
  let ids: string[];
  try {
    ids = fs.readdirSync(admin);
  } catch {
    return;
  }
  for (const id of ids) {
    if (!names.has(id.replace(/\d+$/, '')) && !names.has(id)) continue;
    const lock = path.join(admin, id, 'locked');
    try {
      if (fs.readFileSync(lock, 'utf8').trim() === 'initializing') fs.rmSync(lock, { force: true });
    } catch {
      // Not locked.
    }
  }
}

/** Remove every worktree of the pool (the batch ended, or a killed one resumes); how many there were. */
export async function removePool(outDir: string): Promise<number> {
  const dir = poolDir(outDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const slots: Slot[] = [];
  for (const name of names.filter((n) => n.startsWith('slot-') && n.endsWith('.json'))) {
    try {
      slots.push(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Slot);
    } catch {
      // Torn by a kill: it was written before its worktree, so there is none.
    }
  }
  // Deleting the folders is most of the work: all at once, then one prune per repository deregisters them.
  await Promise.all(slots.map((slot) => fs.promises.rm(slot.root, { recursive: true, force: true })));
  const repos = new Map(slots.map((slot) => [slot.common, slot.git]));
  const folders = new Set(slots.map((slot) => path.basename(slot.root)));
  for (const [common, top] of repos) {
    if (!fs.existsSync(top)) continue;
    unlockInterruptedAdds(common, folders);
    await withRepoLock(common, () => git(['worktree', 'prune'], top)).catch(() => undefined);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return slots.length;
}
