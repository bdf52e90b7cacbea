/**
 * One workspace's checkpoint store: a git directory of minicode's own under
 * `<checkpoints home>/<workspace id>`, where the id is a digest of the workspace's real path.
 * When the workspace sits in a git repository, the store borrows that repository's objects
 * read-only (`objects/info/alternates`), so the first checkpoint of a committed tree writes
 * almost nothing; every object a checkpoint adds is written here, never in the user's repo.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit } from './git.js';
import { stampPruned } from './prune.js';
import type { CheckpointLimits } from './settings.js';
import { makePrivateDir } from '../private-files.js';
import { definedOnly } from '../defined-only.js';
import { dropExpected } from '../debug.js';

/** An opened workspace store. */
export interface WorkspaceStore {
  /** The workspace (real path). */
  workTree: string;
  /** The store's git directory. */
  gitDir: string;
  workspaceId: string;
  /** The user's repository's common git directory, when the workspace is inside one. */
  userGitDir?: string;
  /** The workspace's path in the user's work tree ('' at its top, else ending in '/'), when it is inside one. */
  userPrefix?: string;
  limits: CheckpointLimits;
}

/** A short, stable id of a workspace: 16 hex digits of the sha256 of its real path. */
export function workspaceIdOf(realPath: string): string {
  return createHash('sha256').update(realPath).digest('hex').slice(0, 16);
}

/** Where the user's repository keeps its objects, and where the workspace is in its work tree. */
interface UserRepository {
  commonDir: string;
  prefix: string;
}

/**
 * True when neither `dir` nor any folder above it holds a `.git` entry. Git's own discovery
 * (in the environment runGit gives it: no GIT_DIR, no ceiling) then finds no work tree either:
 * at most a bare repository or the inside of a git directory, where `--show-toplevel` fails and
 * the answer is the same "no repository". This spares the `rev-parse` process of a workspace
 * outside any repository; anywhere else git answers.
 */
export function noGitEntryAbove(dir: string): boolean {
  for (let current = dir; ; ) {
    if (fs.existsSync(path.join(current, '.git'))) return false;
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The user's repository around `workTree`, or undefined (no repo, or git refuses it). */
async function userRepositoryOf(workTree: string): Promise<UserRepository | undefined> {
  if (noGitEntryAbove(workTree)) return undefined;
  try {
    // --show-toplevel fails outside a work tree (a bare repository, inside a git directory).
    const { stdout } = await runGit(
      ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel', '--show-prefix'],
      { cwd: workTree },
    );
    const [commonDir, , prefix] = stdout.split('\n');
    if (!commonDir || prefix === undefined || !fs.existsSync(path.join(commonDir, 'objects'))) return undefined;
    return { commonDir, prefix };
  } catch (error) {
    // Not in a work tree, or no git: no user repository to borrow objects from.
    dropExpected('checkpoint store: finding the user repository', error, 'GitError');
    return undefined;
  }
}

/**
 * minicode's own data folder (the parent of the checkpoints home: `MINICODE_HOME`) when it
 * lies inside the workspace, as an anchored exclude pattern: a checkpoint must never hold the
 * session store it is recorded in, nor the checkpoint store itself.
 */
function ownDataInside(home: string, workTree: string): string[] {
  for (const dir of [path.dirname(home), home]) {
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch (error) {
      dropExpected('checkpoint store: resolving the data folder', error, 'ENOENT');
      continue;
    }
    const rel = path.relative(workTree, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    // Escape the pattern characters gitignore knows, so the folder name is taken literally.
    return [
      '/' +
        rel
          .split(path.sep)
          .join('/')
          .replace(/[\\*?[\]!#]/g, (c) => `\\${c}`) +
        '/',
    ];
  }
  return [];
}

/** Write `file` only when its content differs (keeps the store's mtime quiet on every turn). */
function writeIfChanged(file: string, content: string): void {
  try {
    if (fs.readFileSync(file, 'utf8') === content) return;
  } catch (error) {
    // Absent: write it.
    dropExpected('checkpoint store: reading a file to rewrite', error, 'ENOENT');
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content, { mode: 0o600 });
}

/** Stores opened by this process, by home and workspace: a chat's later turns skip the set-up. */
const OPENED = new Map<string, Promise<WorkspaceStore>>();

/** Open (creating on first use) the store of the workspace at `cwd`; once per process and workspace. */
export function openWorkspaceStore(home: string, cwd: string, limits: CheckpointLimits): Promise<WorkspaceStore> {
  const key = JSON.stringify([home, cwd, limits]);
  let opened = OPENED.get(key);
  if (!opened) {
    opened = setUpStore(home, cwd, limits);
    OPENED.set(key, opened);
    opened.catch(() => OPENED.delete(key));
  }
  return opened;
}

async function setUpStore(home: string, cwd: string, limits: CheckpointLimits): Promise<WorkspaceStore> {
  const workTree = fs.realpathSync(cwd);
  const workspaceId = workspaceIdOf(workTree);
  const gitDir = path.join(home, workspaceId);
  // Private even when an older build made it 0755: one folder closes every store below it.
  makePrivateDir(home);
  const created = async (): Promise<void> => {
    if (fs.existsSync(path.join(gitDir, 'HEAD'))) return;
    // The home first, so that its real path is known when the exclude file is written. Both
    // private, and git keeps what it writes private too (files 0600, objects 0400): the store
    // holds copies of workspace files, a 0600 `.env` among them.
    makePrivateDir(gitDir);
    await runGit(['init', '--quiet', '--bare', '--shared=0600', gitDir], { cwd: home });
    fs.writeFileSync(path.join(gitDir, 'workspace.json'), JSON.stringify({ path: workTree }) + '\n', { mode: 0o600 });
    // A new store has nothing to prune: the first automatic prune is a day away.
    stampPruned(gitDir);
  };
  const [, user] = await Promise.all([created(), userRepositoryOf(workTree)]);
  const userGitDir = user?.commonDir;
  writeIfChanged(
    path.join(gitDir, 'objects', 'info', 'alternates'),
    userGitDir ? path.join(userGitDir, 'objects') + '\n' : '',
  );
  // The private exclude file: well-known build and dependency folders, plus the user's own
  // `info/exclude` (the work tree's .gitignore files apply by themselves).
  let userExclude = '';
  if (userGitDir) {
    try {
      userExclude = fs.readFileSync(path.join(userGitDir, 'info', 'exclude'), 'utf8');
    } catch (error) {
      dropExpected('checkpoint store: reading info/exclude', error, 'ENOENT');
      userExclude = '';
    }
  }
  writeIfChanged(
    path.join(gitDir, 'info', 'exclude'),
    [...limits.skipDirs.map((d) => `${d}/`), ...ownDataInside(home, workTree), userExclude].join('\n') + '\n',
  );
  return definedOnly({
    workTree,
    gitDir,
    workspaceId,
    limits,
    userGitDir: userGitDir || undefined,
    userPrefix: user ? user.prefix : undefined,
  });
}

/** The store of `cwd` if one exists (no creation), for `undo` and `checkpoints`. */
export function existingStoreDir(home: string, cwd: string): { gitDir: string; workTree: string } | undefined {
  let workTree: string;
  try {
    workTree = fs.realpathSync(cwd);
  } catch (error) {
    dropExpected('checkpoint store: resolving the working folder', error, 'ENOENT');
    return undefined;
  }
  const gitDir = path.join(home, workspaceIdOf(workTree));
  return fs.existsSync(path.join(gitDir, 'HEAD')) ? { gitDir, workTree } : undefined;
}
