/**
 * What the per-line workspaces (`workspace.ts`) and the worktree pool (`worktree-pool.ts`)
 * share: running git with a clean environment, where workspaces and their markers live, the
 * line's starting state in its repository, and removing a marked workspace.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { launch } from '../sandbox/launch.js';
import { knownPlace, knownTree, readHead, rememberPlace, type RepoPlace } from './repo-head.js';
import { withRepoLock } from './repo-lock.js';
import { reportDropped } from '../debug.js';

/** A line's workspace. */
export interface Workspace {
  /** Where the line runs (the worktree plus the cwd's path inside its repository). */
  cwd: string;
  /** The workspace's top folder. */
  root: string;
  /** The line's changes since the snapshot, as a unified diff (binary-safe). */
  diff(): Promise<string>;
  /** Done with it: a pooled worktree is reset to its starting state and goes back to the pool; any other is deleted with its marker. */
  remove(): Promise<void>;
  /** Delete it whatever it is (a pooled one leaves the pool): its state is not to be trusted. */
  discard(): Promise<void>;
  /** Whether it came from (and goes back to) the worktree pool. */
  readonly pooled: boolean;
}

/** What a marker file in `OUT/workspaces/` says about a workspace, so a resumed batch can remove it. */
export interface Marker {
  id: string;
  mode: 'worktree' | 'copy';
  root: string;
  /** Worktree: the repository's top folder; copy: the side git directory. */
  git: string;
  /** Worktree: the repository's common git directory (where its worktree lock lives). */
  common?: string;
}

/** The environment git runs with: the caller's, without what would point git at another repository. */
export const GIT_ENV: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && !/^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|COMMON_DIR|PREFIX)$/.test(entry[0]),
  ),
);

/** Most stdout one git command may print (a patch of a huge change): past it, the command fails. */
const MAX_GIT_OUTPUT_CHARS = 512 * 1024 * 1024;

/** Run git in `cwd` (stdin `input` when given, extra environment `env`); its stdout. Harness work: never sandboxed. */
export function git(args: string[], cwd: string, input?: string, env?: Record<string, string>): Promise<string> {
  const name = commandName(args);
  const fullEnv = env ? { ...GIT_ENV, ...env } : GIT_ENV;
  return new Promise((resolve, reject) => {
    const child = launch('git', args, { cwd, env: fullEnv, stdin: input !== undefined });
    const out: string[] = [];
    const err: string[] = [];
    let outChars = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      outChars += d.length;
      if (outChars > MAX_GIT_OUTPUT_CHARS) child.killGroup('SIGKILL');
      else out.push(d);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => err.push(d));
    child.on('error', (error) => reject(new Error(`git ${name}: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (outChars > MAX_GIT_OUTPUT_CHARS)
        reject(new Error(`git ${name}: more than ${MAX_GIT_OUTPUT_CHARS} characters of output`));
      else if (code === 0) resolve(out.join(''));
      else
        reject(
          new Error(
            `git ${name}: ${err.join('').trim() || (signal ? `killed by ${signal}` : `exited with code ${code}`)}`,
          ),
        );
    });
    child.stdin?.end(input);
  });
}

/**
 * git arguments of a line's patch: the staged changes against the starting `tree`, binary-safe,
 * in a form no user configuration changes (prefixes, external diff drivers, colour), each path
 * once (no rename pairs).
 */
export function patchArgs(tree: string): string[] {
  return [
    '-c',
    'core.quotePath=false',
    'diff',
    '--cached',
    '--binary',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    '--no-color',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    tree,
  ];
}

/** The git command in `args` (for error messages): the first word that is not an option or an option's value. */
function commandName(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-c' || arg === '--git-dir' || arg === '--work-tree') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return args[0] ?? '';
}

/** The temp folder holding this output directory's workspaces. */
export function workspacesRoot(outDir: string): string {
  return path.join(
    os.tmpdir(),
    `minicode-batch-ws-${createHash('sha256').update(path.resolve(outDir)).digest('hex').slice(0, 12)}`,
  );
}

/** Where the markers of this output directory's workspaces are. */
export function markerDir(outDir: string): string {
  return path.join(outDir, 'workspaces');
}

/** A line's starting state in its repository. */
export interface RepoBase {
  /** The repository's top folder. */
  top: string;
  /** The line's cwd relative to `top` ('' or ending in '/'). */
  prefix: string;
  /** The common git directory (shared by all worktrees; its worktree lock lives there). */
  common: string;
  /** HEAD's commit. */
  commit: string;
  /** The starting tree: HEAD's, or with `dirty` the checkout's files as they are now. */
  tree: string;
  /** HEAD's tree (`tree` unless dirty). */
  headTree: string;
}

/** Where `source` sits in its repository and the state a line starts from; throws MINICODE_E_BATCH_ISOLATE. */
export async function resolveBase(source: string, dirty: boolean): Promise<RepoBase> {
  // A folder git placed before: its HEAD from the files, its tree if that commit was seen.
  const known = knownPlace(source);
  const head = known && readHead(known);
  const knownCommitTree = head && knownTree(head);
  let place: RepoPlace;
  let commit: string;
  let tree: string;
  if (known && head && knownCommitTree) [place, commit, tree] = [known, head, knownCommitTree];
  else [place, commit, tree] = await askGit(source);
  const headTree = tree;
  if (dirty) tree = await dirtyTree(place.top, place.index);
  return { top: place.top, prefix: place.prefix, common: place.common, commit, tree, headTree };
}

/** One git process for where the repository is and the commit (and tree) the line starts at. */
async function askGit(source: string): Promise<[RepoPlace, string, string]> {
  let output: string;
  try {
    output = await git(
      [
        'rev-parse',
        '--path-format=absolute',
        '--show-toplevel',
        '--show-prefix',
        '--git-common-dir',
        '--absolute-git-dir',
        'HEAD^{commit}',
        'HEAD^{tree}',
        '--git-path',
        'index',
      ],
      source,
    );
  } catch (error) {
    // Not a repository, or no commit yet: told apart below.
    reportDropped('batch isolate: git rev-parse', error);
    const inRepo = await git(['rev-parse', '--show-toplevel'], source).then(
      () => true,
      () => false,
    );
    if (inRepo)
      throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `${source} has no commit to make a worktree of`, {
        action: 'commit once, or use --isolate copy',
      });
    throw new MinicodeError('MINICODE_E_BATCH_ISOLATE', `${source} is not inside a git repository`, {
      action: 'use --isolate copy for folders that are not git repositories',
    });
  }
  const [top = '', prefix = '', common = '', gitDir = '', commit = '', tree = '', index = ''] = output.split('\n');
  const place: RepoPlace = { top, prefix, common, gitDir, index };
  rememberPlace(source, place, commit, tree);
  return [place, commit, tree];
}

/**
 * The tree of `top`'s checkout as it is (uncommitted changes and untracked, not ignored, files),
 * staged into a throwaway copy of its index: the repository's own index and files are not
 * written, only its object store gains the blobs (as any worktree's `git add` would).
 */
async function dirtyTree(top: string, index: string): Promise<string> {
  const scratch = `${index}.minicode-${randomBytes(6).toString('hex')}`;
  try {
    // Starting from a copy of the real index keeps `add` incremental (unchanged files are not hashed).
    if (fs.existsSync(index)) fs.copyFileSync(index, scratch);
    const env = { GIT_INDEX_FILE: scratch };
    await git(['add', '-A', '--', ':/'], top, undefined, env);
    return (await git(['write-tree'], top, undefined, env)).trim();
  } finally {
    fs.rmSync(scratch, { force: true });
  }
}

/**
 * Delete a marked workspace (worktree: deregistered from its repository too). `prune` also
 * clears the registration of a worktree whose folder is gone already (a resumed batch).
 */
export async function removeMarked(marker: Marker, prune = false): Promise<void> {
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

/** A fresh worktree of `base` at `root` (under the repository's worktree lock), its index and files at `base.tree`. */
export async function addWorktree(base: RepoBase, root: string): Promise<void> {
  fs.mkdirSync(path.dirname(root), { recursive: true });
  const atHead = base.headTree === base.tree;
  // A dirty start is checked out once, straight at its tree (not HEAD's files, then patched).
  await withRepoLock(base.common, () =>
    git(['worktree', 'add', '--detach', '--quiet', ...(atHead ? [] : ['--no-checkout']), root, base.commit], base.top),
  );
  if (!atHead) await git(['read-tree', '-u', '--reset', base.tree], root);
}
