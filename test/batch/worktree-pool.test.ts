import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIsolated, type HarnessContext } from '../../lib/batch/harness.js';
import type { BatchLine } from '../../lib/batch/input.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { endWorkspaces, removeStaleWorkspaces } from '../../lib/batch/workspace.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
const commit = (repo: string, message: string): void => {
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', message);
};

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A repository with tracked files in folders, an ignore rule, one commit; OUT beside it. */
function scratch(): { dir: string; repo: string; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-pool-test-'));
  scratchDirs.push(dir);
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(repo, 'src', 'lib'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(repo, 'src', 'lib', 'b.ts'), 'export const b = 2;\n');
  fs.writeFileSync(path.join(repo, 'README.md'), '# repo\n');
  fs.writeFileSync(path.join(repo, '.gitignore'), 'node_modules/\n*.log\n');
  git(repo, 'init', '-q');
  commit(repo, 'init');
  return { dir, repo, out: path.join(dir, 'out') };
}

/** Every file under `root` but `.git`, with its content: what a line sees. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (name === '.git') continue;
      if (e.isDirectory()) {
        out[`${name}/`] = '';
        walk(name);
      } else out[name] = fs.readFileSync(path.join(root, name), 'utf8');
    }
  };
  walk('');
  return out;
}

function worktrees(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
}

const result = (line: BatchLine): BatchRecord => ({
  kind: 'result',
  id: line.id,
  line: line.line,
  outcome: 'completed',
  reason: 'completed',
  finalText: '',
});

/** Run one line whose run is `act(cwd)`; the record and the cwd it ran in. */
async function runOne(
  context: HarnessContext,
  id: string,
  act: (cwd: string) => void,
): Promise<{ record: BatchRecord; cwd: string }> {
  let cwd = '';
  const record = await runIsolated({ id, line: 1, prompt: 'p' }, context, async (line) => {
    cwd = line.cwd!;
    act(cwd);
    return result(line);
  });
  // An expectation that failed inside the run comes back as an error record.
  expect(record.kind, JSON.stringify(record)).toBe('result');
  return { record, cwd };
}

const patchOf = (out: string, record: BatchRecord): string => fs.readFileSync(path.join(out, record.patch!), 'utf8');

describe('the batch pool of worktrees', () => {
  it('gives line 2 the worktree line 1 used without any of line 1 changes: edits, deletions, new, ignored and committed files, empty folders', async () => {
    const w = scratch();
    const context: HarnessContext = { isolate: 'worktree', outDir: w.out, baseDir: w.repo, cwd: w.repo, poolSize: 2 };
    const head = git(w.repo, 'rev-parse', 'HEAD').trim();
    let pristine: Record<string, string> = {};
    const one = await runOne(context, 'one', (cwd) => {
      pristine = snapshot(cwd);
      fs.appendFileSync(path.join(cwd, 'src', 'a.ts'), 'export const a2 = 3;\n');
      fs.rmSync(path.join(cwd, 'src', 'lib', 'b.ts'));
      fs.mkdirSync(path.join(cwd, 'src', 'new'));
      fs.writeFileSync(path.join(cwd, 'src', 'new', 'c.ts'), 'export const c = 4;\n');
      fs.writeFileSync(path.join(cwd, 'src', 'new', 'a name b\tquoted.ts'), 'quoted in the patch\n');
      fs.mkdirSync(path.join(cwd, 'naïve b'));
      fs.writeFileSync(path.join(cwd, 'naïve b', 'ünï.ts'), 'odd\n');
      fs.mkdirSync(path.join(cwd, 'node_modules', 'dep'), { recursive: true });
      fs.writeFileSync(path.join(cwd, 'node_modules', 'dep', 'index.js'), 'ignored\n');
      fs.writeFileSync(path.join(cwd, 'build.log'), 'ignored too\n');
      fs.mkdirSync(path.join(cwd, 'empty', 'deeper'), { recursive: true });
      // A commit inside the worktree moves its HEAD: the patch still holds it, the reset undoes it.
      fs.writeFileSync(path.join(cwd, 'COMMITTED.md'), 'committed by line one\n');
      git(cwd, 'add', 'COMMITTED.md');
      git(cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'line one');
    });
    const patchOne = patchOf(w.out, one.record);
    for (const file of ['src/a.ts', 'src/lib/b.ts', 'src/new/c.ts', 'COMMITTED.md'])
      expect(patchOne).toContain(`diff --git a/${file} b/${file}`);
    expect(patchOne).not.toContain('node_modules');
    expect(patchOne).not.toContain('build.log');

    const two = await runOne(context, 'two', (cwd) => {
      expect(snapshot(cwd)).toEqual(pristine);
      expect(git(cwd, 'rev-parse', 'HEAD').trim()).toBe(head);
      expect(git(cwd, 'status', '--porcelain', '--ignored')).toBe('');
      fs.writeFileSync(path.join(cwd, 'README.md'), '# repo, line two\n');
    });
    expect(two.cwd).toBe(one.cwd);
    const patchTwo = patchOf(w.out, two.record);
    expect(patchTwo.match(/^diff --git .*$/gm)).toEqual(['diff --git a/README.md b/README.md']);
    execFileSync('git', ['apply', '--check', path.join(w.out, two.record.patch!)], { cwd: w.repo });

    // The original was never written; the pool's one worktree goes when the batch ends.
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(git(w.repo, 'rev-parse', 'HEAD').trim()).not.toBe('');
    expect(worktrees(w.repo)).toHaveLength(2);
    await endWorkspaces(w.out);
    expect(worktrees(w.repo)).toHaveLength(1);
    expect(git(w.repo, 'worktree', 'prune', '--dry-run', '--verbose')).toBe('');
    expect(fs.existsSync(one.cwd)).toBe(false);
    expect(fs.readdirSync(path.join(w.out, 'workspaces'))).toEqual([]);
  });

  it('moves a free worktree to a later commit of the same repository and brings each line the dirty state of its start with --isolate-dirty', async () => {
    const w = scratch();
    const context: HarnessContext = {
      isolate: 'worktree',
      isolateDirty: true,
      outDir: w.out,
      baseDir: w.repo,
      cwd: w.repo,
      poolSize: 1,
    };
    fs.appendFileSync(path.join(w.repo, 'README.md'), 'uncommitted\n');
    fs.writeFileSync(path.join(w.repo, 'notes.txt'), 'untracked\n');
    const status = git(w.repo, 'status', '--porcelain');
    const one = await runOne(context, 'one', (cwd) => {
      expect(fs.readFileSync(path.join(cwd, 'README.md'), 'utf8')).toBe('# repo\nuncommitted\n');
      expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('untracked\n');
      fs.writeFileSync(path.join(cwd, 'notes.txt'), 'changed by one\n');
    });
    expect(patchOf(w.out, one.record).match(/^diff --git .*$/gm)).toEqual(['diff --git a/notes.txt b/notes.txt']);
    expect(git(w.repo, 'status', '--porcelain')).toBe(status);
    expect(fs.readFileSync(path.join(w.repo, 'notes.txt'), 'utf8')).toBe('untracked\n');

    // A new commit and another dirty state: the pool's one worktree follows, as a fresh one would.
    fs.writeFileSync(path.join(w.repo, 'src', 'a.ts'), 'export const a = 10;\n');
    commit(w.repo, 'second');
    fs.rmSync(path.join(w.repo, 'notes.txt'));
    fs.writeFileSync(path.join(w.repo, 'other.txt'), 'other untracked\n');
    const head = git(w.repo, 'rev-parse', 'HEAD').trim();
    const two = await runOne(context, 'two', (cwd) => {
      expect(git(cwd, 'rev-parse', 'HEAD').trim()).toBe(head);
      expect(fs.readFileSync(path.join(cwd, 'src', 'a.ts'), 'utf8')).toBe('export const a = 10;\n');
      expect(fs.existsSync(path.join(cwd, 'notes.txt'))).toBe(false);
      expect(fs.readFileSync(path.join(cwd, 'other.txt'), 'utf8')).toBe('other untracked\n');
    });
    expect(two.cwd).toBe(one.cwd);
    expect(fs.readFileSync(path.join(w.out, two.record.patch!), 'utf8')).toBe('');
    await endWorkspaces(w.out);
    expect(worktrees(w.repo)).toHaveLength(1);
  });

  it('never pools a kept workspace: each line keeps its own worktree', async () => {
    const w = scratch();
    const context: HarnessContext = {
      isolate: 'worktree',
      keepWorkspaces: true,
      outDir: w.out,
      baseDir: w.repo,
      cwd: w.repo,
      poolSize: 4,
    };
    const one = await runOne(context, 'one', (cwd) => fs.writeFileSync(path.join(cwd, 'x.txt'), 'one\n'));
    const two = await runOne(context, 'two', (cwd) => expect(fs.existsSync(path.join(cwd, 'x.txt'))).toBe(false));
    expect(one.record.workspace).toBeDefined();
    expect(two.record.workspace).not.toBe(one.record.workspace);
    expect(fs.readFileSync(path.join(one.record.workspace!, 'x.txt'), 'utf8')).toBe('one\n');
    await endWorkspaces(w.out);
    expect(worktrees(w.repo)).toHaveLength(3);
    for (const rec of [one.record, two.record]) git(w.repo, 'worktree', 'remove', '--force', rec.workspace!);
  });

  it('holds no more worktrees than its size, evicting a free one of another repository', async () => {
    const a = scratch();
    const b = scratch();
    const out = path.join(a.dir, 'out');
    const context = (repo: string): HarnessContext => ({
      isolate: 'worktree',
      outDir: out,
      baseDir: repo,
      cwd: repo,
      poolSize: 1,
    });
    await runOne(context(a.repo), 'a', () => undefined);
    expect(worktrees(a.repo)).toHaveLength(2);
    await runOne(context(b.repo), 'b', () => undefined);
    expect(worktrees(a.repo)).toHaveLength(1);
    expect(worktrees(b.repo)).toHaveLength(2);
    await endWorkspaces(out);
    expect(worktrees(b.repo)).toHaveLength(1);
  });

  it('removes and deregisters the pool a killed batch left when the batch resumes', async () => {
    const w = scratch();
    const context: HarnessContext = { isolate: 'worktree', outDir: w.out, baseDir: w.repo, cwd: w.repo, poolSize: 2 };
    const { cwd } = await runOne(context, 'one', () => undefined);
    // What a SIGKILL leaves: the pool's markers and its worktree, with no end of batch.
    expect(fs.readdirSync(path.join(w.out, 'workspaces', 'pool')).some((n) => n.startsWith('slot-'))).toBe(true);
    expect(await removeStaleWorkspaces(w.out, () => true)).toBe(1);
    expect(fs.existsSync(cwd)).toBe(false);
    expect(worktrees(w.repo)).toHaveLength(1);
    expect(git(w.repo, 'worktree', 'prune', '--dry-run', '--verbose')).toBe('');
    expect(fs.readdirSync(path.join(w.out, 'workspaces'))).toEqual([]);
  });
});
