/**
 * Helpers of the checkpoint tests: scratch workspaces (a git repository with a staged change,
 * an untracked and an ignored file, or a plain folder), a fingerprint of everything in the
 * user's repository that checkpoints must never touch, and the CLI runs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, type CliResult } from '../helpers/cli.js';
import { checkContract, cleanEnv, tempDir, TEST_CASSETTES } from '../exec/helpers.js';

/** Git as the test's own user would run it, with no machine config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
  });
}

/** The files every workspace starts with (the cassettes edit notes.txt and remove gone.txt). */
function seedFiles(dir: string): void {
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(dir, 'gone.txt'), 'bye\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
  fs.writeFileSync(path.join(dir, 'debug.log'), 'ignored, small: checkpointed\n');
}

/** A git repository with one commit, a staged change, an untracked file, an ignored file and a stash. */
export function gitWorkspace(): string {
  const dir = tempDir('minicode-ckpt-repo-');
  seedFiles(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\nstashed\n');
  git(dir, 'stash', '-q');
  fs.writeFileSync(path.join(dir, 'gone.txt'), 'bye\nstaged line\n');
  git(dir, 'add', 'gone.txt');
  fs.writeFileSync(path.join(dir, 'untracked.txt'), 'not in git\n');
  return dir;
}

/** A folder that is no git repository. */
export function plainWorkspace(): string {
  const dir = tempDir('minicode-ckpt-plain-');
  seedFiles(dir);
  return dir;
}

/** A safety net against a hung subprocess only (the tests wait for exit, never for a time). */
const CLI_DEADLINE_MS = 120_000;

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** Everything of the user's repository that must stay as it was: HEAD, refs, index, staged diff, stash, config, hooks. */
export function repoFingerprint(dir: string): Record<string, string> {
  const gitDir = path.join(dir, '.git');
  const hooks = fs.readdirSync(path.join(gitDir, 'hooks')).sort();
  return {
    head: git(dir, 'rev-parse', 'HEAD'),
    symbolicHead: fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8'),
    refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    index: sha(fs.readFileSync(path.join(gitDir, 'index'))),
    staged: git(dir, 'diff', '--cached'),
    stash: git(dir, 'stash', 'list'),
    config: fs.readFileSync(path.join(gitDir, 'config'), 'utf8'),
    hooks: hooks.map((h) => `${h}:${sha(fs.readFileSync(path.join(gitDir, 'hooks', h)))}`).join('\n'),
    objectsInfo: fs
      .readdirSync(path.join(gitDir, 'objects', 'info'))
      .sort()
      .join(','),
  };
}

/** Every file under `dir` (not .git) with its content digest, symlinks as their target. */
export function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      if (rel === '' && name === '.git') continue;
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const st = fs.lstatSync(path.join(dir, relPath));
      if (st.isSymbolicLink()) out[relPath] = `link:${fs.readlinkSync(path.join(dir, relPath))}`;
      else if (st.isDirectory()) walk(relPath);
      else out[relPath] = sha(fs.readFileSync(path.join(dir, relPath)));
    }
  };
  walk('');
  return out;
}

/** `minicode exec` over a test cassette, JSON lines parsed (the contract checked when it exited). */
export async function execCassette(
  cassette: string,
  cwd: string,
  home: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult & { records: Record<string, any>[] }> {
  const result = await runCli(
    [
      'exec',
      'change the files',
      '--json',
      '--provider',
      'replay',
      '--cassette',
      path.join(TEST_CASSETTES, cassette),
      '--cwd',
      cwd,
      ...extra,
    ],
    {
      env: cleanEnv(home, env),
      timeoutMs: CLI_DEADLINE_MS,
    },
  );
  const records = result.code === null ? parseLoose(result.stdout) : checkContract(result.stdout);
  return { ...result, records: records as Record<string, any>[] };
}

/** Lines of a run that was killed: whatever complete lines it printed. */
function parseLoose(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** `minicode undo|checkpoints ... --json` in `cwd`; the parsed object. */
export async function checkpointCli(
  args: string[],
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult & { json: Record<string, any> }> {
  const result = await runCli([...args, '--json', '--cwd', cwd], {
    env: cleanEnv(home, env),
    timeoutMs: CLI_DEADLINE_MS,
  });
  return { ...result, json: JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, any> };
}

export { tempDir };
