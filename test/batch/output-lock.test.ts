/**
 * One batch per output directory: a second `minicode batch` on the same `--out` refuses with
 * MINICODE_E_BATCH_LOCKED and exit 75 instead of running (and paying for) every id again; a
 * lock left by a process that died is taken over.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { MinicodeError } from '../../lib/errors.js';
import { LOCK_FILE, lockOutputDir } from '../../lib/batch/output-lock.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTE, makeWorkdir, recordIds, startCli } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The pid of a process that has already exited (so no live process has it, for a while). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof MinicodeError ? error.code : String(error);
  }
  return undefined;
}

describe('two batch processes on one --out', () => {
  it('lets the first run every id once and refuses the second with MINICODE_E_BATCH_LOCKED, exit 75', async () => {
    // The provider holds its answers until the second process is done (or has sent a request
    // of its own, which only happens without a lock), so the first one is mid-batch throughout.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let requests = 0;
    let onRequest: () => void = () => {};
    const server = await startReplayServer(CASSETTE, {
      order: 'by-turn',
      chunkSize: 64,
      delayMs: 1,
      sleep: () => gate,
      recordRequests: false,
      intercept: () => {
        requests++;
        onRequest();
        return undefined;
      },
    });
    servers.push(server);
    const w = makeWorkdir(6);
    const flags = [
      '--provider',
      'openai-chat',
      '--model',
      'gpt-4.1-mini',
      '--base-url',
      baseUrlForOrigin('openai-chat', server.origin),
      '--store',
      w.store,
      '--out',
      w.out,
      '--threads',
      '0',
    ];
    const env = { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' };
    const requestsReach = (n: number): Promise<void> =>
      new Promise((resolve) => {
        onRequest = () => requests >= n && resolve();
        onRequest();
      });

    const first = startCli(['batch', w.input, '--concurrency', '1', ...flags], { cwd: w.dir, env });
    await requestsReach(1);
    const second = startCli(['batch', w.input, '--json', '--concurrency', '1', ...flags], { cwd: w.dir, env });
    await Promise.race([second.exited, requestsReach(2)]);
    open();
    const [a, b] = await Promise.all([first.exited, second.exited]);

    expect(b.code, second.output().stderr).toBe(75);
    const summary = JSON.parse(second.output().stdout.trim().split('\n').at(-1)!) as {
      type: string;
      ok: boolean;
      error: { code: string };
    };
    expect(summary).toMatchObject({ type: 'batch.summary', ok: false, error: { code: 'MINICODE_E_BATCH_LOCKED' } });
    expect(a.code, first.output().stderr).toBe(0);
    const ids = recordIds(w.out).all;
    expect(ids.slice().sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    // Released at the end: the next invocation (a resume) is not refused.
    expect(fs.existsSync(path.join(w.out, LOCK_FILE))).toBe(false);
  });

  it('takes over a lock whose holder died on this host and runs the batch', async () => {
    const w = makeWorkdir(2);
    fs.mkdirSync(w.out, { recursive: true });
    fs.writeFileSync(
      path.join(w.out, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), hostname: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z', token: 'dead' }),
    );
    const r = await runCli(
      ['batch', w.input, '--provider', 'replay', '--cassette', CASSETTE, '--store', w.store, '--out', w.out],
      { cwd: w.dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(recordIds(w.out).results.sort()).toEqual(['p0', 'p1']);
    expect(fs.existsSync(path.join(w.out, LOCK_FILE))).toBe(false);
  });
});

describe('lockOutputDir', () => {
  it('refuses a second holder while the first holds the lock, and admits one after release', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-lock-'));
    const lock = lockOutputDir(dir);
    expect(codeOf(() => lockOutputDir(dir))).toBe('MINICODE_E_BATCH_LOCKED');
    lock.release();
    const again = lockOutputDir(dir);
    again.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('never guesses a lock from another host stale, and never releases a lock it does not own', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-lock-'));
    const elsewhere = lockOutputDir(dir, { hostname: 'other-host', pid: deadPid() });
    expect(codeOf(() => lockOutputDir(dir, { isAlive: () => false }))).toBe('MINICODE_E_BATCH_LOCKED');
    // Replace the lock behind the first holder's back: its release must leave the new one.
    fs.rmSync(path.join(dir, LOCK_FILE));
    const current = lockOutputDir(dir);
    elsewhere.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
    current.release();
  });

  it('refuses a lock file it cannot read rather than guessing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-lock-'));
    fs.writeFileSync(path.join(dir, LOCK_FILE), 'not json');
    expect(codeOf(() => lockOutputDir(dir))).toBe('MINICODE_E_BATCH_LOCKED');
  });
});
