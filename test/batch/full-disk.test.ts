/**
 * `batch --out` on a full disk (a real 64 KiB tmpfs): the batch stops with one coded line
 * (MINICODE_E_BATCH_OUTPUT, what to do), exit 1, no stack trace; once there is room again a
 * re-run finishes every line exactly once.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { mountSmallDisk, SMALL_DISK_SKIP, type SmallDisk } from '../helpers/small-disk.js';
import { cleanEnv, tempDir } from '../exec/helpers.js';
import { CASSETTE, makeWorkdir, recordIds } from './helpers.js';

if (SMALL_DISK_SKIP) console.warn(`skipping the full-disk batch test: ${SMALL_DISK_SKIP}`);

const disks: SmallDisk[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) d.unmount();
});

describe.skipIf(SMALL_DISK_SKIP !== undefined)('batch --out on a full disk', () => {
  it('stops with one MINICODE_E_BATCH_OUTPUT line and exit 1, and a re-run with room finishes every line once', async () => {
    const disk = mountSmallDisk(64);
    disks.push(disk);
    const w = makeWorkdir(3);
    const out = path.join(disk.dir, 'out');
    const home = tempDir('minicode-home-');
    const run = () => runCli(['batch', w.input, '--provider', 'replay', '--cassette', CASSETTE, '--out', out, '--store', w.store], { cwd: w.dir, env: cleanEnv(home), timeoutMs: 120_000 });
    // Room for the lock and the empty record files, not for the records.
    disk.fill(4096);
    const full = await run();
    expect(full.signal, full.stderr).toBeNull();
    expect(full.code, full.stderr).toBe(1);
    const lines = full.stderr.split('\n').filter((l) => l.startsWith('minicode'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ENOSPC');
    expect(full.stderr).toContain('free space');
    expect(full.stderr).not.toMatch(/internal error|\n\s+at |Node\.js v/);

    disk.unfill();
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(recordIds(out).results.sort()).toEqual(['p0', 'p1', 'p2']);
  }, 240_000);
});
