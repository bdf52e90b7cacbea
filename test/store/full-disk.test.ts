/**
 * A store on a full disk (a real 2 MiB tmpfs): `exec --json` still ends with its one summary
 * line, `ok:false` with MINICODE_E_STORE and what to do, exit 1, no stack trace; `sessions`
 * still lists what is stored.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { mountSmallDisk, SMALL_DISK_SKIP, type SmallDisk } from '../helpers/small-disk.js';
import { CASSETTES, checkContract, cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';

if (SMALL_DISK_SKIP) console.warn(`skipping the full-disk store tests: ${SMALL_DISK_SKIP}`);

const disks: SmallDisk[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) d.unmount();
});

function exec(prompt: string, store: string, home: string, cwd: string) {
  return runCli(
    [
      'exec',
      prompt,
      '--json',
      '--provider',
      'replay',
      '--cassette',
      path.join(CASSETTES, 'anthropic-two-turn'),
      '--cwd',
      cwd,
      '--store',
      store,
    ],
    {
      env: cleanEnv(home),
      timeoutMs: 60_000,
    },
  );
}

describe.skipIf(SMALL_DISK_SKIP !== undefined)('a store on a full disk', () => {
  it('exec --json prints one ok:false summary with MINICODE_E_STORE and what to do, exits 1, and sessions still lists the store', async () => {
    const disk = mountSmallDisk(2048);
    disks.push(disk);
    const store = path.join(disk.dir, 'store');
    const home = tempDir('minicode-home-');
    const cwd = scratchProject();
    const first = await exec('hello', store, home, cwd);
    expect(first.code, first.stderr).toBe(0);
    disk.fill(40 * 1024);
    // 100 KB that LZ4 cannot shrink: the run's events outgrow what is left.
    const big = crypto.randomBytes(75_000).toString('base64');
    const r = await exec(big, store, home, cwd);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(1);
    const records = checkContract(r.stdout);
    expect(records.filter((x) => x.type === 'summary')).toHaveLength(1);
    const summary = records.at(-1) as Record<string, any>;
    expect(summary).toMatchObject({
      type: 'summary',
      ok: false,
      error: { category: 'FILESYSTEM_ERROR', code: 'MINICODE_E_STORE', action: expect.stringContaining('free space') },
    });
    expect(r.stderr).toContain(summary.error.message);
    expect(r.stderr).not.toMatch(/internal error|Commit failed|at rejectCommit|UnhandledPromiseRejection/);

    // Not a byte left: a reader still opens the store.
    disk.fill(0);
    const listed = await runCli(['sessions', '--json', '--store', store], { env: cleanEnv(home) });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(first.stdout.split('"sessionId":"')[1]!.split('"')[0]!);
  });
});
