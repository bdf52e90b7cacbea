/**
 * Isolated workspaces for batch lines (`--isolate worktree|copy`). A line runs in its own
 * workspace and the original folder is never written: `worktree` is a detached `git worktree`
 * of the line's repository at HEAD (plus its uncommitted and untracked files with `dirty`);
 * `copy` copies the folder (reflinked where the filesystem can, COPYFILE_FICLONE) for folders
 * that are not repositories. Either way the starting state is snapshotted as a git tree (the
 * worktree's own index, or a side git directory for a copy, so the copy gains no `.git`), and
 * the line's patch is the diff from that tree to what the line left.
 *
 * Without `--keep-workspaces`, worktrees come from the batch's pool (`worktree-pool.ts`):
 * reused by later lines of the same repository, reset to each line's start.
 *
 * Workspaces live under the system temp directory, not in OUT (OUT often sits inside the very
 * repository being copied). A marker per workspace in `OUT/workspaces/` names it, so a batch
 * killed mid-line (SIGKILL) removes the leftovers of its unfinished lines when resumed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import {
  addWorktree,
  git,
  markerDir,
  patchArgs,
  removeMarked,
  resolveBase,
  workspacesRoot,
  type Marker,
} from './workspace-git.js';
import { acquirePooled, removePool } from './worktree-pool.js';
import type { Workspace } from './workspace-git.js';
import { dropExpected } from '../debug.js';

/** How lines are isolated. */
export type IsolateMode = 'worktree' | 'copy' | 'none';

/** A line's workspace (declared beside the git helpers, which the pool and this module share). */
export type { Workspace } from './workspace-git.js';

/** Options of {@link createWorkspace}. */
export interface WorkspaceOptions {
  mode: 'worktree' | 'copy';
  /** The line's own folder (its cwd). */
  source: string;
  id: string;
  outDir: string;
  /** Worktree: bring uncommitted and untracked files along. */
  dirty?: boolean;
  /** Worktree: take it from the batch's pool of worktrees, which holds at most this many (not with kept workspaces). */
  poolSize?: number;
}

/** A file-name-safe form of an id (also the patch's name). */
export function safeId(id: string): string {
  return encodeURIComponent(id).replace(/\*/g, '%2A').replace(/^\./, '%2E');
}

/** Make a line's workspace; throws MINICODE_E_BATCH_ISOLATE. */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const name = safeId(options.id);
  const root = path.join(workspacesRoot(options.outDir), name);
  fs.mkdirSync(markerDir(options.outDir), { recursive: true, mode: 0o700 });
  const markerFile = path.join(markerDir(options.outDir), `${name}.json`);
  try {
    if (options.mode === 'worktree') {
      const base = await resolveBase(options.source, options.dirty ?? false);
      if (options.poolSize !== undefined)
        return await acquirePooled(base, { outDir: options.outDir, size: options.poolSize });
      const marker: Marker = { id: options.id, mode: 'worktree', root, git: base.top, common: base.common };
      // A previous attempt's workspace (a line retried in this run).
      if (fs.existsSync(root)) await removeMarked(marker);
      fs.writeFileSync(markerFile, JSON.stringify(marker));
      await addWorktree(base, root);
      const remove = async (): Promise<void> => {
        await removeMarked(marker);
        fs.rmSync(markerFile, { force: true });
      };
      return {
        cwd: path.join(root, base.prefix),
        root,
        pooled: false,
        async diff() {
          await git(['add', '-A'], root);
          return git(patchArgs(base.tree), root);
        },
        remove,
        discard: remove,
      };
    }
    const gitDir = `${root}.git`;
    const marker: Marker = { id: options.id, mode: 'copy', root, git: gitDir };
    await removeMarked(marker);
    fs.writeFileSync(markerFile, JSON.stringify(marker));
    const skip = [path.resolve(options.outDir), workspacesRoot(options.outDir)];
    await fs.promises.cp(options.source, root, {
      recursive: true,
      mode: fs.constants.COPYFILE_FICLONE,
      preserveTimestamps: true,
      filter: (src) => !skip.some((s) => src === s || src.startsWith(s + path.sep)),
    });
    const side = (args: string[]): string[] => ['--git-dir', gitDir, '--work-tree', root, ...args];
    // Bare: the side directory is only the repository; the copy is its work tree.
    await git(['init', '--quiet', '--bare', gitDir], root);
    await git(side(['add', '-A']), root);
    const base = (await git(side(['write-tree']), root)).trim();
    const remove = async (): Promise<void> => {
      await removeMarked(marker);
      fs.rmSync(markerFile, { force: true });
    };
    return {
      cwd: root,
      root,
      pooled: false,
      async diff() {
        await git(side(['add', '-A']), root);
        return git(side(patchArgs(base)), root);
      },
      remove,
      discard: remove,
    };
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError(
      'MINICODE_E_BATCH_ISOLATE',
      `could not make the ${options.mode} workspace of ${options.source}: ${(error as Error).message}`,
    );
  }
}

/**
 * The batch ended: remove its pool of worktrees, and this output directory's temp folder of
 * workspaces when no workspace is left in it (kept ones are). Not as each line ends: lines on
 * other threads use the folder meanwhile.
 */
export async function endWorkspaces(outDir: string): Promise<void> {
  await removePool(outDir);
  try {
    fs.rmdirSync(workspacesRoot(outDir));
  } catch (error) {
    // Not empty (kept workspaces) or already gone.
    dropExpected('batch: removing the workspaces folder', error, 'ENOTEMPTY', 'EEXIST', 'ENOENT');
  }
}

/**
 * Remove what a killed batch left: every marked workspace of an id without a record (kept
 * workspaces of finished ids stay). Returns how many were removed.
 */
export async function removeStaleWorkspaces(outDir: string, finished: (id: string) => boolean): Promise<number> {
  // A pooled worktree belongs to no line: all of a killed batch's go.
  let removed = await removePool(outDir);
  let names: string[];
  try {
    names = fs.readdirSync(markerDir(outDir)).filter((n) => n.endsWith('.json'));
  } catch (error) {
    dropExpected('batch: listing workspace markers', error, 'ENOENT');
    return removed;
  }
  for (const name of names) {
    const file = path.join(markerDir(outDir), name);
    let marker: Marker;
    try {
      marker = JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
    } catch (error) {
      // Torn by the kill: nothing was made after it.
      dropExpected('batch: reading a workspace marker', error, 'SyntaxError');
      fs.rmSync(file, { force: true });
      continue;
    }
    if (finished(marker.id)) continue;
    await removeMarked(marker, true);
    fs.rmSync(file, { force: true });
    removed++;
  }
  return removed;
}
