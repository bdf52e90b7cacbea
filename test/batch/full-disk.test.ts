/**
 * `batch --out` on a full disk (a real 64 KiB tmpfs): the batch stops with one coded line
 * (MINICODE_E_BATCH_OUTPUT, what to do), exit 1, no stack trace; the runs that finished are kept
 * in the store (on another disk), so once there is room again a re-run writes every line's record
 * from there without asking the provider again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { runCli } from '../helpers/cli.js';
import { mountSmallDisk, SMALL_DISK_SKIP, type SmallDisk } from '../helpers/small-disk.js';
import { cleanEnv, tempDir } from '../exec/helpers.js';
import { CASSETTE, makeWorkdir, recordIds } from './helpers.js';

if (SMALL_DISK_SKIP) console.warn(`skipping the full-disk batch test: ${SMALL_DISK_SKIP}`);

const disks: SmallDisk[] = [];
const servers: ReplayServer[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) d.unmount();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A replay server of the batch cassette that counts the provider requests it is sent. */
async function countingServer(): Promise<{ server: ReplayServer; requests: number }> {
  const counter = { requests: 0 };
  const server = await startReplayServer(CASSETTE, {
    order: 'by-turn',
    recordRequests: false,
    intercept: () => {
      counter.requests++;
      return undefined;
    },
  });
  servers.push(server);
  return Object.assign(counter, { server });
}

/** `minicode batch INPUT --out OUT` against `server` (OpenAI chat), stored in `store`, under a fresh home. */
function batchRun(server: ReplayServer, w: { dir: string; input: string; store: string }, home: string, out: string) {
  const flags = [
    '--provider',
    'openai-chat',
    '--model',
    'gpt-4.1-mini',
    '--base-url',
    baseUrlForOrigin('openai-chat', server.origin),
    '--out',
    out,
    '--store',
    w.store,
  ];
  return runCli(['batch', w.input, ...flags], {
    cwd: w.dir,
    env: cleanEnv(home, { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' }),
    timeoutMs: 120_000,
  });
}

describe.skipIf(SMALL_DISK_SKIP !== undefined)('batch --out on a full disk', () => {
  it('stops with one MINICODE_E_BATCH_OUTPUT line and exit 1, and a re-run with room writes every finished line from the store with no provider request', async () => {
    const provider = await countingServer();
    const disk = mountSmallDisk(64);
    disks.push(disk);
    const w = makeWorkdir(3);
    const out = path.join(disk.dir, 'out');
    const home = tempDir('minicode-home-');
    const run = () => batchRun(provider.server, w, home, out);
    // Room for the lock, the batch id and the empty record files (a page each at most), not for the records.
    disk.fill(8192);
    const full = await run();
    expect(full.signal, full.stderr).toBeNull();
    expect(full.code, full.stderr).toBe(1);
    const lines = full.stderr.split('\n').filter((l) => l.startsWith('minicode'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('ENOSPC');
    expect(full.stderr).toContain('free space');
    expect(full.stderr).not.toMatch(/internal error|\n\s+at |Node\.js v/);
    // Every line ran (the cassette's two requests each) and none has a record in the output.
    expect(provider.requests).toBe(6);
    expect(recordIds(out).all).toEqual([]);

    disk.unfill();
    provider.requests = 0;
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(provider.requests).toBe(0);
    expect(recordIds(out).results.sort()).toEqual(['p0', 'p1', 'p2']);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as {
      resumed: number;
      restored: number;
      ranNow: number;
      completed: number;
    };
    expect(summary).toMatchObject({ completed: 3, resumed: 3, restored: 3, ranNow: 0 });
  }, 240_000);

  it('runs every line of a fresh output directory again, even when the store holds an earlier batch of the same input', async () => {
    const provider = await countingServer();
    const w = makeWorkdir(2);
    const home = tempDir('minicode-home-');
    expect((await batchRun(provider.server, w, home, w.out)).code).toBe(0);
    expect(provider.requests).toBe(4);
    fs.rmSync(w.out, { recursive: true });
    const again = await batchRun(provider.server, w, home, w.out);
    expect(again.code, again.stderr).toBe(0);
    expect(provider.requests).toBe(8);
  }, 240_000);
});
