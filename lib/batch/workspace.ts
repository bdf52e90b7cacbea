/**
 * Isolated workspaces for batch lines (`--isolate worktree|copy`). A line runs in its own
 * workspace and the original folder is never written: `worktree` is a detached `git worktree`
 * of the line's repository at HEAD (plus its uncommitted and untracked files with `dirty`);
 * `copy` copies the folder (reflinked where the filesystem can, COPYFILE_FICLONE) for folders
 * that are not repositories. Either way the starting state is snapshotted as a git tree (the
 * worktree's own index, or a side git directory for a copy, so the copy gains no `.git`), and
 * the line's patch is the diff from that tree to what the line left.
 *
 * Workspaces live under the system temp directory, not in OUT (OUT often sits inside the very
 * repository being copied). A marker per workspace in `OUT/workspaces/` names it, so a batch
 * killed mid-line (SIGKILL) removes the leftovers of its unfinished lines when resumed.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { withRepoLock } from './repo-lock.js';

/** How lines are isolated. */
export type IsolateMode = 'worktree' | 'copy' | 'none';

/** A line's workspace. */
export interface Workspace {
  /** Where the line runs (the worktree plus the cwd's path inside its repository). */
  cwd: string;
  /** The workspace's top folder. */
  root: string;
  /** The line's changes since the snapshot, as a unified diff (binary-safe). */
  diff(): Promise<string>;
  /** Delete the workspace and its marker. */
  remove(): Promise<void>;
}

/** Options of {@link createWorkspace}. */
export interface WorkspaceOptions {
  mode: 'worktree' | 'copy';
  /** The line's own folder (its cwd). */
  source: string;
  id: string;
  outDir: string;
  /** Worktree: bring uncommitted and untracked files along. */
  dirty?: boolean;
}

interface Marker {
  id: string;
  mode: 'worktree' | 'copy';
  root: string;
  /** Worktree: the repository's top folder; copy: the side git directory. */
  git: string;
  /** Worktree: the repository's common git directory (where its worktree lock lives). */
  common?: string;
}

// Git's environment must not point it elsewhere (a hook or a parent git may have set these).
const GIT_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|COMMON_DIR|PREFIX)$/.test(k)));

function git(args: string[], cwd: string, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (input === undefined) {
      execFile('git', args, { cwd, env: GIT_ENV, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) =>
        error ? reject(new Error(`git ${args[0] === '--git-dir' ? args[4] : args[0]}: ${stderr.trim() || error.message}`)) : resolve(stdout),
      );
      return;
    }
    const child = spawn('git', args, { cwd, env: GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`git ${args[0]}: ${err.trim()}`))));
    child.stdin.end(input);
  });
}

/** A file-name-safe form of an id (also the patch's name). */
export function safeId(id: string): string {
  return encodeURIComponent(id).replace(/\*/g, '%2A').replace(/^\./, '%2E');
}

/** The temp folder holding this output directory's workspaces. */
function workspacesRoot(outDir: string): string {
  return path.join(os.tmpdir(), `minicode-batch-ws-${createHash('sha256').update(path.resolve(outDir)).digest('hex').slice(0, 12)}`);
}

function markerDir(outDir: string): string {
  return path.join(outDir, 'workspaces');
}

/** Make a line's workspace; throws MINICODE_E_BATCH_ISOLATE. */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const name = safeId(options.id);
  const root = path.join(workspacesRoot(options.outDir), name);
  fs.mkdirSync(markerDir(options.outDir), { recursive: true });
  const markerFile = path.join(markerDir(options.outDir), `${name}.json`);
  try {
    if (options.mode === 'worktree') {
      // One git process for where the repository is and the commit (and tree) the worktree
      // starts at; without `dirty` that tree is the snapshot (no staging pass over the checkout).
      let top: string;
      let prefix: string;
      let common: string;
      let commit: string;
      let tree: string;
      try {
        [top = '', prefix = '', common = '', commit = '', tree = ''] = (
          await git(['rev-parse', '--path-format=absolute', '--show-toplevel', '--show-prefix', '--git-common-dir', 'HEAD^{commit}', 'HEAD^{tree}'], options.source)
        ).split('\n');
      } catch {
        const inRepo = await git(['rev-parse', '--show-toplevel'], options.source).then(
          () => true,
          () => false,
        );
        if (inRepo) throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `${options.source} has no commit to make a worktree of`, { action: 'commit once, or use --isolate copy' });
        throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `${options.source} is not inside a git repository`, { action: 'use --isolate copy for folders that are not git repositories' });
      }
      const marker: Marker = { id: options.id, mode: 'worktree', root, git: top, common };
      // A previous attempt's workspace (a line retried in this run).
      if (fs.existsSync(root)) await removeMarked(marker);
      fs.writeFileSync(markerFile, JSON.stringify(marker));
      fs.mkdirSync(path.dirname(root), { recursive: true });
      await withRepoLock(common, () => git(['worktree', 'add', '--detach', '--quiet', root, commit], top));
      let base = tree;
      if (options.dirty) {
        await bringDirty(top, root);
        await git(['add', '-A'], root);
        base = (await git(['write-tree'], root)).trim();
      }
      return {
        cwd: path.join(root, prefix),
        root,
        async diff() {
          await git(['add', '-A'], root);
          return git(['diff', '--cached', '--binary', base], root);
        },
        async remove() {
          await removeMarked(marker);
          fs.rmSync(markerFile, { force: true });
        },
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
    return {
      cwd: root,
      root,
      async diff() {
        await git(side(['add', '-A']), root);
        return git(side(['diff', '--cached', '--binary', base]), root);
      },
      async remove() {
        await removeMarked(marker);
        fs.rmSync(markerFile, { force: true });
      },
    };
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `could not make the ${options.mode} workspace of ${options.source}: ${(error as Error).message}`);
  }
}

/**
 * Remove this output directory's temp folder of workspaces when no workspace is left in it. Called
 * when a batch ends, not as each line ends: lines on other threads create their workspaces in it
 * meanwhile.
 */
export function removeWorkspacesRoot(outDir: string): void {
  try {
    fs.rmdirSync(workspacesRoot(outDir));
  } catch {
    // Not empty (kept workspaces) or already gone.
  }
}

/** Uncommitted changes (binary-safe) and untracked files of `top` into the fresh worktree `root`. */
async function bringDirty(top: string, root: string): Promise<void> {
  const patch = await git(['diff', '--binary', 'HEAD'], top);
  if (patch.trim() !== '') await git(['apply', '--binary', '--whitespace=nowarn'], root, patch);
  const untracked = (await git(['ls-files', '--others', '--exclude-standard', '-z'], top)).split('\0').filter(Boolean);
  for (const file of untracked) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.copyFileSync(path.join(top, file), path.join(root, file), fs.constants.COPYFILE_FICLONE);
  }
}

/**
 * Delete a marked workspace (worktree: deregistered from its repository too). `prune` also
 * clears the registration of a worktree whose folder is gone already (a resumed batch).
 */
async function removeMarked(marker: Marker, prune = false): Promise<void> {
  if (marker.mode === 'worktree') {
    if (!fs.existsSync(marker.git)) {
      fs.rmSync(marker.root, { recursive: true, force: true });
      return;
    }
    const present = fs.existsSync(marker.root);
    if (!present && !prune) return;
    const common = marker.common ?? path.resolve(marker.git, '.git');
    await withRepoLock(common, async () => {
      const removed =
        present &&
        (await git(['worktree', 'remove', '--force', '--force', marker.root], marker.git).then(
          () => true,
          () => false,
        ));
      if (removed) return;
      fs.rmSync(marker.root, { recursive: true, force: true });
      await git(['worktree', 'prune'], marker.git).catch(() => undefined);
    });
    return;
  }
  fs.rmSync(marker.root, { recursive: true, force: true });
  fs.rmSync(marker.git, { recursive: true, force: true });
}

/**
 * Remove what a killed batch left: every marked workspace of an id without a record (kept
 * workspaces of finished ids stay). Returns how many were removed.
 */
export async function removeStaleWorkspaces(outDir: string, finished: (id: string) => boolean): Promise<number> {
  let names: string[];
  try {
    names = fs.readdirSync(markerDir(outDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(markerDir(outDir), name);
    let marker: Marker;
    try {
      marker = JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
    } catch {
      fs.rmSync(file, { force: true }); // torn by the kill: nothing was made after it
      continue;
    }
    if (finished(marker.id)) continue;
    await removeMarked(marker, true);
    fs.rmSync(file, { force: true });
    removed++;
  }
  return removed;
}
