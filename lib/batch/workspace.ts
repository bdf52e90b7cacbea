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

// `git worktree add` on one repository from many lines at once: one at a time per repository.
const repoQueues = new Map<string, Promise<unknown>>();
function serial<T>(key: string, task: () => Promise<T>): Promise<T> {
  const prev = repoQueues.get(key) ?? Promise.resolve();
  const next = prev.then(task, task);
  const tail = next.catch(() => undefined);
  repoQueues.set(key, tail);
  void tail.then(() => {
    if (repoQueues.get(key) === tail) repoQueues.delete(key);
  });
  return next;
}

/** Make a line's workspace; throws MINICODE_E_BATCH_ISOLATE. */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const name = safeId(options.id);
  const root = path.join(workspacesRoot(options.outDir), name);
  fs.mkdirSync(markerDir(options.outDir), { recursive: true });
  const markerFile = path.join(markerDir(options.outDir), `${name}.json`);
  try {
    if (options.mode === 'worktree') {
      let top: string;
      let prefix: string;
      try {
        top = (await git(['rev-parse', '--show-toplevel'], options.source)).trim();
        prefix = (await git(['rev-parse', '--show-prefix'], options.source)).trim();
      } catch {
        throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `${options.source} is not inside a git repository`, { action: 'use --isolate copy for folders that are not git repositories' });
      }
      const marker: Marker = { id: options.id, mode: 'worktree', root, git: top };
      await removeMarked(marker);
      fs.writeFileSync(markerFile, JSON.stringify(marker));
      fs.mkdirSync(path.dirname(root), { recursive: true });
      await serial(top, () => git(['worktree', 'add', '--detach', '--quiet', root, 'HEAD'], top));
      if (options.dirty) await bringDirty(top, root);
      await git(['add', '-A'], root);
      const base = (await git(['write-tree'], root)).trim();
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
          removeIfEmpty(path.dirname(root));
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

/** The shared temp folder goes with its last workspace. */
function removeIfEmpty(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch {
    // Not empty (other lines' workspaces, kept ones) or already gone.
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

/** Delete a marked workspace (worktree: deregistered from its repository too). */
async function removeMarked(marker: Marker): Promise<void> {
  if (marker.mode === 'worktree') {
    if (fs.existsSync(marker.root)) await serial(marker.git, () => git(['worktree', 'remove', '--force', '--force', marker.root], marker.git)).catch(() => undefined);
    fs.rmSync(marker.root, { recursive: true, force: true });
    if (fs.existsSync(marker.git)) await serial(marker.git, () => git(['worktree', 'prune'], marker.git)).catch(() => undefined);
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
    await removeMarked(marker);
    fs.rmSync(file, { force: true });
    removed++;
  }
  return removed;
}
