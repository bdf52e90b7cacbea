/**
 * Git as minicode's checkpoint engine, run as a subprocess with an environment built from
 * nothing: only PATH survives from the caller, so a user's `GIT_DIR`, `GIT_INDEX_FILE`,
 * `GIT_WORK_TREE`, credentials or hooks can never steer it. System and global config are not
 * read (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), hooks point nowhere, and the
 * settings that would change what a snapshot holds (line-ending conversion, fsmonitor,
 * automatic gc) are pinned per command.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { reportDropped } from '../debug.js';

/** The `-c` settings every checkpoint command runs with. */
const PINNED_CONFIG = [
  'core.hooksPath=' + os.devNull,
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.untrackedCache=false',
  'core.sparseCheckout=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'advice.addEmbeddedRepo=false',
  'advice.addIgnoredFile=false',
  'user.name=minicode',
  'user.email=checkpoints@minicode.invalid',
].flatMap((setting) => ['-c', setting]);

/** Where a git command looks: the private store, the work tree, and which index. */
export interface GitPlace {
  /** `GIT_DIR`: minicode's own store, never the user's. */
  gitDir?: string;
  /** `GIT_WORK_TREE`: the workspace. */
  workTree?: string;
  /** `GIT_INDEX_FILE`: a temporary index of minicode's. */
  indexFile?: string;
  /** Working directory of the subprocess; default `workTree`. */
  cwd?: string;
}

/** A git command that exited non-zero (or could not start). */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed (${exitCode ?? 'no exit code'}): ${stderr.trim().split('\n')[0] ?? ''}`);
    this.name = 'GitError';
  }
}

/** The environment of every checkpoint git command: PATH from the caller, the rest fixed here. */
export function gitEnvironment(place: GitPlace, callerEnv: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: callerEnv.PATH ?? '/usr/bin:/bin',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_AUTHOR_NAME: 'minicode',
    GIT_AUTHOR_EMAIL: 'checkpoints@minicode.invalid',
    GIT_COMMITTER_NAME: 'minicode',
    GIT_COMMITTER_EMAIL: 'checkpoints@minicode.invalid',
  };
  if (callerEnv.SYSTEMROOT) env.SYSTEMROOT = callerEnv.SYSTEMROOT;
  if (place.gitDir) env.GIT_DIR = place.gitDir;
  if (place.workTree) env.GIT_WORK_TREE = place.workTree;
  if (place.indexFile) env.GIT_INDEX_FILE = place.indexFile;
  return env;
}

/** Options of {@link runGit}. */
export interface RunGitOptions extends GitPlace {
  /** Bytes for stdin. */
  input?: string | Buffer;
  /** Exit codes that are not failures; default `[0]`. */
  okCodes?: readonly number[];
}

/** Output of a git command. */
export interface GitOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Run `git ARGS` with the pinned config and environment; rejects with {@link GitError}. */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitOutput> {
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...PINNED_CONFIG, ...args], {
      cwd: options.cwd ?? options.workTree ?? process.cwd(),
      env: gitEnvironment(options),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (error) => reject(new GitError(args, null, error.message)));
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== null && okCodes.includes(code)) resolve({ stdout, stderr, exitCode: code });
      else reject(new GitError(args, code, stderr));
    });
    // A command that exits before reading its stdin makes the write fail with EPIPE; the exit
    // code already tells what happened.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Start `git ARGS` detached from this process (pinned config and environment as {@link runGit},
 * no output): work such as `gc` that nobody waits for and that may outlive the command.
 */
export function spawnGitDetached(args: readonly string[], place: GitPlace): void {
  try {
    const child = spawn('git', [...PINNED_CONFIG, ...args], {
      cwd: place.cwd ?? place.workTree ?? place.gitDir ?? process.cwd(),
      env: gitEnvironment(place),
      stdio: 'ignore',
      detached: true,
      windowsHide: true,
    });
    child.on('error', () => {});
    child.unref();
  } catch (error) {
    // Nobody waits for this work: it is simply not done this time (git missing is the error event).
    reportDropped(`starting git ${args[0] ?? ''}`, error);
  }
}

/** Split NUL-terminated git output into its records. */
export function splitNul(text: string): string[] {
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
