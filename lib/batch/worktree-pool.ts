/**
 * The batch's pool of worktrees (`--isolate worktree` without `--keep-workspaces`): a line
 * takes a free worktree of its repository instead of making one, and gives it back reset.
 * Making a worktree writes every file of the checkout and removing it deletes them all (seconds
 * on a large repository); a reset touches only what the line changed.
 *
 * The patch, after the line: `git add -A` stages everything (new files join, ignored ones stay
 * out; git's stat cache keeps it to the files that changed) and the staged diff against the
 * starting tree is the patch, as for a worktree of its own (workspace.ts).
 *
 * The reset, with git: once everything is staged, `git clean -ffdx` deletes what is left
 * untracked (ignored files, build output, nested repositories, empty folders: a fresh worktree
 * has none, so a reused one must not either), beside the patch's diff, which reads only the
 * index. Then a moved HEAD is detached at the start again, and `git read-tree -u --reset` puts
 * the index and the files back at the starting tree (it rewrites only the entries that differ
 * and deletes the files the line added). Any failure on the way deletes the worktree instead.
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
import {
  addWorktree,
  git,
  markerDir,
  patchArgs,
  removeMarked,
  workspacesRoot,
  type Marker,
  type RepoBase,
  type Workspace,
} from './workspace-git.js';
import { dropExpected, reportDropped } from '../debug.js';

/** The pool's folder inside `OUT/workspaces/`. */
export const POOL_DIR = 'pool';

/** A pooled worktree's marker (`slot-<id>.json`). */
interface Slot extends Marker {
  common: string;
  commit: string;
  tree: string;
}

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
    } catch (error) {
      // Taken by another line meanwhile.
      dropExpected('batch pool: claiming a slot', error, 'ENOENT');
      continue;
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
    } catch (error) {
      reportDropped('batch pool: resetting a worktree (deleted instead)', error);
      await deleteSlot(dir, slot).catch(() => undefined);
    }
  }
  await evict(dir, options.size);
  const slotId = randomBytes(6).toString('hex');
  const slot: Slot = {
    id: slotId,
    mode: 'worktree',
    root: path.join(workspacesRoot(options.outDir), `pool-${slotId}`),
    git: base.top,
    common: base.common,
    commit: base.commit,
    tree: base.tree,
  };
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
  const drop = (): Promise<void> => deleteSlot(dir, slot);
  // Once everything is staged, what is left untracked (ignored files, nested repositories, empty
  // folders) is never part of the patch: it is cleaned while the patch is diffed from the index.
  // Whether the clean worked; a failed one is the reset's to handle (the worktree goes).
  let cleaned: Promise<boolean> = Promise.resolve(false);
  return {
    cwd: path.join(root, prefix),
    root,
    pooled: true,
    async diff() {
      await git(['add', '-A'], root);
      // Twice -f: nested repositories the line made go too.
      cleaned = git(['clean', '-ffdxq'], root).then(
        () => true,
        () => false,
      );
      return git(patchArgs(slot.tree), root);
    },
    async remove() {
      try {
        if (!(await cleaned)) throw new Error('the worktree was not cleaned');
        await resetSlot(slot);
        fs.writeFileSync(path.join(dir, freeName(slot)), '');
      } catch (error) {
        reportDropped('batch pool: returning a worktree (deleted instead)', error);
        await drop().catch(() => undefined);
      }
    },
    async discard() {
      await cleaned;
      await drop();
    },
  };
}

/** The worktree's own git directory (`.git` in a worktree is a file naming it). */
function gitDirOf(root: string): string {
  const line = fs.readFileSync(path.join(root, '.git'), 'utf8').trim();
  if (!line.startsWith('gitdir: ')) throw new Error(`${root}/.git is not a worktree's`);
  return path.resolve(root, line.slice('gitdir: '.length));
}

/**
 * Back to the slot's start, once the line's patch was taken (which cleaned what it left
 * untracked): HEAD, then the index and files at the starting tree.
 */
async function resetSlot(slot: Slot): Promise<void> {
  const root = slot.root;
  const head = fs.readFileSync(path.join(gitDirOf(root), 'HEAD'), 'utf8').trim();
  // A line that committed or switched branch: detach at the start again (a branch it made stays in the repository, as without the pool).
  if (head !== slot.commit) await git(['update-ref', '--no-deref', 'HEAD', slot.commit], root);
  // Rewrites the entries that differ (a folder the line put where a file was goes) and deletes the files the line added.
  await git(['read-tree', '-u', '--reset', slot.tree], root);
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
  } catch (error) {
    dropExpected('batch pool: listing git worktrees', error, 'ENOENT');
    return;
  }
  for (const id of ids) {
    if (!names.has(id.replace(/\d+$/, '')) && !names.has(id)) continue;
    const lock = path.join(admin, id, 'locked');
    try {
      if (fs.readFileSync(lock, 'utf8').trim() === 'initializing') fs.rmSync(lock, { force: true });
    } catch (error) {
      // Not locked.
      dropExpected('batch pool: reading a worktree lock', error, 'ENOENT');
    }
  }
}

/** Remove every worktree of the pool (the batch ended, or a killed one resumes); how many there were. */
export async function removePool(outDir: string): Promise<number> {
  const dir = poolDir(outDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    dropExpected('batch pool: listing the pool', error, 'ENOENT');
    return 0;
  }
  const slots: Slot[] = [];
  for (const name of names.filter((n) => n.startsWith('slot-') && n.endsWith('.json'))) {
    try {
      slots.push(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Slot);
    } catch (error) {
      // Torn by a kill: it was written before its worktree, so there is none.
      dropExpected('batch pool: reading a slot', error, 'SyntaxError', 'ENOENT');
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
