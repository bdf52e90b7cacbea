import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { readRecords as records, recordIds, startCli } from './helpers.js';

/** The demo cassette: read src/greet.js, fix its typo with edit_file, run node test.js, submit. */
const CASSETTE = path.join(ROOT, 'cassettes/demo');
const PROJECT = path.join(ROOT, 'demo/sample-project');
const GREET_FIX = "-  return 'Hello, ' + nmae + '!';\n+  return 'Hello, ' + name + '!';\n";

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** A scratch dir holding `repo/` (the sample project, committed when `asGit`), the input and OUT. */
function scratch(
  lines: number,
  options: { asGit?: boolean; extra?: Record<string, unknown> } = {},
): { dir: string; repo: string; input: string; out: string; store: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-isolate-test-'));
  const repo = path.join(dir, 'repo');
  fs.cpSync(PROJECT, repo, { recursive: true });
  if (options.asGit !== false) {
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  }
  const input = path.join(dir, 'in.jsonl');
  fs.writeFileSync(
    input,
    Array.from({ length: lines }, (_, i) =>
      JSON.stringify({
        id: `line/${i}`,
        prompt: 'Fix the failing test in this project',
        cwd: 'repo',
        ...options.extra,
      }),
    ).join('\n') + '\n',
  );
  return { dir, repo, input, out: path.join(dir, 'out'), store: path.join(dir, 'store') };
}

/** The repository's registered worktrees, pruning nothing (a stray registration counts). */
function worktrees(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
}

const base = (w: { store: string; out: string; input: string }): string[] => [
  'batch',
  w.input,
  '--provider',
  'replay',
  '--cassette',
  CASSETTE,
  '--store',
  w.store,
  '--out',
  w.out,
];

describe('minicode batch --isolate worktree', () => {
  // --threads 0: isolation and verify on the coordinator; --threads 2: on two pool threads at once, around each run.
  it.each(['0', '2'])(
    'runs eight lines rewriting the same file at once, each verified in its own worktree, and leaves the repository untouched (--threads %s)',
    async (threads) => {
      const w = scratch(8);
      const before = {
        head: git(w.repo, 'rev-parse', 'HEAD'),
        greet: fs.readFileSync(path.join(w.repo, 'src/greet.js'), 'utf8'),
      };
      const r = await runCli(
        [...base(w), '--concurrency', '8', '--threads', threads, '--isolate', 'worktree', '--verify', 'node test.js'],
        { cwd: w.dir, timeoutMs: 120_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      const rs = records(w.out);
      expect(rs).toHaveLength(8);
      for (const rec of rs) {
        expect(rec.verify).toMatchObject({ ok: true, exitCode: 0, outputTail: 'ok - 2 assertions passed\n' });
        expect(rec.patch).toBe(`patches/${encodeURIComponent(rec.id)}.diff`);
        const patch = fs.readFileSync(path.join(w.out, rec.patch), 'utf8');
        expect(patch).toMatch(/^diff --git a\/src\/greet\.js b\/src\/greet\.js\n/);
        expect(patch).toContain(GREET_FIX);
        // Only the one file changed, and the patch applies to the untouched original.
        expect(patch.match(/^diff --git/gm)).toHaveLength(1);
        execFileSync('git', ['apply', '--check', path.join(w.out, rec.patch)], { cwd: w.repo });
        expect(rec.timing.totalMs).toBeGreaterThanOrEqual(rec.timing.queueMs);
        expect(rec.timing.firstTokenMs).toBeGreaterThan(0);
        expect(rec.timing.modelMs).toBeGreaterThan(0);
        expect(rec.outputTokensPerSecond).toBeGreaterThan(0);
        expect(rec.workspace).toBeUndefined();
      }
      expect(git(w.repo, 'status', '--porcelain')).toBe('');
      expect(git(w.repo, 'rev-parse', 'HEAD')).toBe(before.head);
      expect(fs.readFileSync(path.join(w.repo, 'src/greet.js'), 'utf8')).toBe(before.greet);
      expect(worktrees(w.repo)).toHaveLength(1);
      expect(fs.readdirSync(path.join(w.out, 'workspaces'))).toEqual([]);
      const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8'));
      expect(summary.verify).toEqual({ passed: 8, failed: 0, rate: 1 });
      expect(summary.latency.totalMs.count).toBe(8);
      expect(Object.keys(summary.latency.byModel)).toEqual(['replay/claude-sonnet-4-5']);
    },
    180_000,
  );

  it('runs twelve lines three at a time through the worktree pool, each fixing the file afresh with only its own fix in its patch', async () => {
    const w = scratch(12);
    const r = await runCli(
      [...base(w), '--concurrency', '3', '--threads', '1', '--isolate', 'worktree', '--verify', 'node test.js'],
      { cwd: w.dir, timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const rs = records(w.out);
    expect(rs).toHaveLength(12);
    for (const rec of rs) {
      expect(rec.verify.ok).toBe(true);
      // A reused worktree still had the typo: the line's edit found it, and its patch is that one fix.
      const patch = fs.readFileSync(path.join(w.out, rec.patch), 'utf8');
      expect(patch.match(/^diff --git .*$/gm)).toEqual(['diff --git a/src/greet.js b/src/greet.js']);
      expect(patch).toContain(GREET_FIX);
    }
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(worktrees(w.repo)).toHaveLength(1);
    expect(git(w.repo, 'worktree', 'prune', '--dry-run', '--verbose')).toBe('');
    expect(fs.readdirSync(path.join(w.out, 'workspaces'))).toEqual([]);
  }, 180_000);

  it('brings uncommitted and untracked files along with --isolate-dirty, keeps them out of the patch and keeps the workspace when asked', async () => {
    const w = scratch(1, { extra: { verify: 'test -f notes.txt && grep -q dirty README.md' } });
    fs.appendFileSync(path.join(w.repo, 'README.md'), '\ndirty\n');
    fs.writeFileSync(path.join(w.repo, 'notes.txt'), 'untracked\n');
    const status = git(w.repo, 'status', '--porcelain');
    const r = await runCli([...base(w), '--isolate', 'worktree', '--isolate-dirty', '--keep-workspaces'], {
      cwd: w.dir,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const [rec] = records(w.out);
    expect(rec!.verify.ok).toBe(true);
    const patch = fs.readFileSync(path.join(w.out, rec!.patch), 'utf8');
    expect(patch).toContain(GREET_FIX);
    expect(patch).not.toContain('README.md');
    expect(patch).not.toContain('notes.txt');
    expect(git(w.repo, 'status', '--porcelain')).toBe(status);
    expect(fs.readFileSync(path.join(rec!.workspace, 'src/greet.js'), 'utf8')).toContain('+ name +');
    expect(worktrees(w.repo)).toHaveLength(2);
    git(w.repo, 'worktree', 'remove', '--force', rec!.workspace);
  }, 180_000);

  it('leaves no stray worktree after a SIGKILL mid-batch and a resume, with eight lines at once on two pool threads sharing the worktree pool', async () => {
    const w = scratch(16);
    const args = [
      ...base(w),
      '--concurrency',
      '8',
      '--threads',
      '2',
      '--isolate',
      'worktree',
      '--verify',
      'node test.js',
    ];
    const child = startCli(args, { cwd: w.dir });
    let ended = false;
    void child.exited.then(() => (ended = true));
    // Killed while lines are in pooled worktrees (each slot's marker is written before its worktree exists).
    const pool = path.join(w.out, 'workspaces', 'pool');
    const slots = (): string[] =>
      fs.existsSync(pool) ? fs.readdirSync(pool).filter((n) => n.startsWith('slot-')) : [];
    await waitFor(
      () => ended || (slots().length > 0 && git(w.repo, 'worktree', 'list').split('\n').filter(Boolean).length > 1),
      { what: 'a line running in a pooled worktree', timeoutMs: 60_000 },
    );
    child.kill('SIGKILL');
    expect((await child.exited).signal, child.output().stderr).toBe('SIGKILL');
    expect(recordIds(w.out).all.length).toBeLessThan(16);
    const r = await runCli(args, { cwd: w.dir, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(recordIds(w.out).results).toHaveLength(16);
    expect(worktrees(w.repo), git(w.repo, 'worktree', 'list', '--porcelain')).toHaveLength(1);
    expect(git(w.repo, 'worktree', 'prune', '--dry-run', '--verbose')).toBe('');
    expect(fs.readdirSync(path.join(w.out, 'workspaces'))).toEqual([]);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(w.repo, '.git', 'minicode-worktree.lock'))).toBe(false);
  }, 240_000);

  it('records a folder that is not a git repository as an isolation error naming --isolate copy', async () => {
    const w = scratch(1, { asGit: false });
    const r = await runCli([...base(w), '--isolate', 'worktree'], { cwd: w.dir, timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    const [rec] = records(w.out, 'errors.jsonl');
    expect(rec!.error.code).toBe('MINICODE_E_BATCH_ISOLATE');
  }, 90_000);
});

describe('minicode batch --isolate copy', () => {
  it('runs a folder that is not a repository in a copy without adding .git to it, and keeps the patch', async () => {
    const w = scratch(2, { asGit: false, extra: { verify: 'test ! -e .git && node test.js' } });
    const greet = fs.readFileSync(path.join(w.repo, 'src/greet.js'), 'utf8');
    const r = await runCli([...base(w), '--isolate', 'copy'], { cwd: w.dir, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    for (const rec of records(w.out)) {
      expect(rec.verify.ok).toBe(true);
      expect(fs.readFileSync(path.join(w.out, rec.patch), 'utf8')).toContain(GREET_FIX);
    }
    expect(fs.readFileSync(path.join(w.repo, 'src/greet.js'), 'utf8')).toBe(greet);
    expect(fs.existsSync(path.join(w.repo, '.git'))).toBe(false);
  }, 180_000);
});

describe('minicode batch --verify', () => {
  it('keeps a failed verify as an outcome of a completed run, counts it on the closing line and exits 1 unless --verify-soft', async () => {
    const w = scratch(2, { asGit: false });
    const token = 'ghp_' + 'Zq8rT4vLm2Xy7Wb3Nc6Pd9Kf1Hs5Jg0Ae7Ui';
    const r = await runCli([...base(w), '--verify', `echo "deploy ${token}"; exit 3`], {
      cwd: w.dir,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^minicode batch: 2 completed, 2 failed verify, 0 failed, 0 pending of 2, \$\d+\.\d{4}; /m,
    );
    // Resumed with --verify-soft: the same records, reported, and exit 0.
    const soft = await runCli([...base(w), '--verify', `echo "deploy ${token}"; exit 3`, '--verify-soft'], {
      cwd: w.dir,
      timeoutMs: 120_000,
    });
    expect(soft.code, soft.stderr).toBe(0);
    expect(soft.stderr).toContain('2 completed, 2 failed verify');
    const rs = records(w.out);
    expect(rs).toHaveLength(2);
    expect(records(w.out, 'errors.jsonl')).toEqual([]);
    for (const rec of rs) {
      expect(rec.verify).toMatchObject({ ok: false, exitCode: 3 });
      expect(rec.verify.outputTail).toContain('deploy ');
      expect(rec.verify.outputTail).not.toContain(token);
      expect(rec.patch).toBeUndefined();
    }
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8'));
    expect(summary.verify).toEqual({ passed: 0, failed: 2, rate: 0 });
  }, 180_000);

  it('refuses a bad --isolate mode and --isolate-dirty without worktree as usage errors', async () => {
    const w = scratch(1, { asGit: false });
    const bad = await runCli([...base(w), '--isolate', 'docker'], { cwd: w.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--isolate must be worktree, copy or none');
    const dirty = await runCli([...base(w), '--isolate', 'copy', '--isolate-dirty'], { cwd: w.dir });
    expect(dirty.code).toBe(2);
    expect(fs.existsSync(path.join(w.out, 'results.jsonl'))).toBe(false);
  }, 60_000);
});
