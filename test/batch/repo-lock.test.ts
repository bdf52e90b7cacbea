/**
 * The per-repository worktree lock across threads and processes: real worker threads and a
 * real killed process, on a real repository.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { LOCK_NAME, withRepoLock } from '../../lib/batch/repo-lock.js';
import { ROOT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
const DIST = (file: string): string => pathToFileURL(path.join(ROOT, 'dist/lib/batch', file)).href;

/** Run `body` (an async function body with `workerData` in scope) on `n` worker threads at once; their results. */
function onThreads(n: number, body: string, data: (i: number) => unknown): Promise<unknown[]> {
  const code = `const { parentPort, workerData } = await import('node:worker_threads'); parentPort.postMessage(await (async () => { ${body} })());`;
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), {
            workerData: data(i),
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
}

function repository(): { dir: string; repo: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-repo-lock-test-'));
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(repo);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { dir, repo };
}

describe('the worktree lock of a repository', () => {
  it('lets one holder in at a time across eight threads', async () => {
    const { dir } = repository();
    const log = path.join(dir, 'log');
    await onThreads(
      8,
      `const { withRepoLock } = await import(${JSON.stringify(DIST('repo-lock.js'))});
       const fs = await import('node:fs');
       for (let k = 0; k < 5; k++) {
         await withRepoLock(workerData.dir, async () => {
           fs.appendFileSync(workerData.log, 'in ' + workerData.i + '\\n');
           for (let j = 0; j < 3; j++) await new Promise((r) => setImmediate(r));
           fs.appendFileSync(workerData.log, 'out ' + workerData.i + '\\n');
         });
       }
       return true;`,
      (i) => ({ dir, log, i }),
    );
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(80);
    for (let k = 0; k < lines.length; k += 2) {
      expect(lines[k]).toMatch(/^in /);
      expect(lines[k + 1]).toBe(lines[k]!.replace('in', 'out'));
    }
    expect(fs.existsSync(path.join(dir, LOCK_NAME))).toBe(false);
  });

  it('is taken over from a process killed while holding it', async () => {
    const { dir } = repository();
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { withRepoLock } = await import(${JSON.stringify(DIST('repo-lock.js'))}); await withRepoLock(${JSON.stringify(dir)}, () => new Promise(() => { console.log('held'); setInterval(() => {}, 1000); }));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    holder.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('held'), { what: 'the other process to hold the lock' });
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(fs.existsSync(path.join(dir, LOCK_NAME))).toBe(true);
    expect(await withRepoLock(dir, async () => 'mine')).toBe('mine');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith(LOCK_NAME))).toEqual([]);
  });

  it('keeps eight threads making and removing worktrees of one repository from colliding, and leaves none registered', async () => {
    const { dir, repo } = repository();
    const out = path.join(dir, 'out');
    const results = await onThreads(
      8,
      `const { createWorkspace } = await import(${JSON.stringify(DIST('workspace.js'))});
       const fs = await import('node:fs');
       const path = await import('node:path');
       const patches = [];
       for (let k = 0; k < 3; k++) {
         const ws = await createWorkspace({ mode: 'worktree', source: workerData.repo, id: 'line-' + workerData.i + '-' + k, outDir: workerData.out });
         fs.writeFileSync(path.join(ws.cwd, 'a.txt'), 'line ' + workerData.i + '\\n');
         patches.push(await ws.diff());
         await ws.remove();
       }
       return patches;`,
      (i) => ({ repo, out, i }),
    );
    results.forEach((patches, i) => {
      for (const patch of patches as string[]) expect(patch).toContain(`-a\n+line ${i}\n`);
    });
    expect(
      git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toEqual([`worktree ${fs.realpathSync(repo)}`]);
    const admin = path.join(repo, '.git', 'worktrees');
    expect(fs.existsSync(admin) ? fs.readdirSync(admin) : []).toEqual([]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(fs.existsSync(path.join(repo, '.git', LOCK_NAME))).toBe(false);
  }, 120_000);
});
