/**
 * `exec` opens its store after `session.started` is out (docs/exec.md § The store and the first
 * line). A store that cannot be opened ends the run right after that line: one `ok:false`
 * summary with the store's error, the human message on stderr, exit 1, no provider request
 * (a loopback provider counts them) and nothing written where the store should be. A run whose
 * store opens stores every event, the ones settled before it opened included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { mountSmallDisk, SMALL_DISK_SKIP, type SmallDisk } from '../helpers/small-disk.js';
import { CASSETTES, checkContract, cleanEnv, replayJson, scratchProject, tempDir } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const asRoot = process.getuid?.() === 0;
// Root writes through any mode bits: as root, the folder is a read-only tmpfs (no other user
// is needed, who could not reach a clone under a private folder). Where root may not mount, the
// test is skipped.
const readOnlySkip = asRoot ? SMALL_DISK_SKIP : undefined;
if (readOnlySkip) console.warn(`skipping the read-only store folder test: ${readOnlySkip}`);
const disks: SmallDisk[] = [];
afterAll(() => {
  for (const d of disks.splice(0)) d.unmount();
});

interface StoreRun extends CliResult {
  records: Record<string, any>[];
  /** Requests the loopback provider received. */
  requests: number;
}

/** `exec --json` against a loopback Anthropic server, with `--store store`. */
async function execWithStore(store: string, options: { cwd?: string; home?: string } = {}): Promise<StoreRun> {
  const server = await startReplayServer(path.join(CASSETTES, 'anthropic-two-turn'));
  servers.push(server);
  const home = options.home ?? tempDir('minicode-home-');
  const cwd = options.cwd ?? scratchProject();
  const env = cleanEnv(home, {
    ANTHROPIC_BASE_URL: server.origin,
    ANTHROPIC_API_KEY: 'sk-ant-store-open-fake-key-0123456789',
  });
  const r = await runCli(
    [
      'exec',
      'Read the README and tell me what it says',
      '--json',
      '--cwd',
      cwd,
      '--provider',
      'anthropic',
      '--store',
      store,
    ],
    { env },
  );
  return { ...r, records: checkContract(r.stdout) as Record<string, any>[], requests: server.requests.length };
}

/** Every file under `dir` with its bytes (what a failed open must leave as it was). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    out[name] = fs.statSync(file).isFile() ? fs.readFileSync(file).toString('base64') : 'dir';
  }
  return out;
}

/** The run printed `session.started`, then its one failure summary with the store's error, and exited 1. */
function expectStoreFailure(r: StoreRun, store: string): void {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.code, r.stderr).toBe(1);
  expect(r.records.map((x) => x.type)).toEqual(['session.started', 'summary']);
  const [started, summary] = r.records as [Record<string, any>, Record<string, any>];
  expect(summary).toMatchObject({ type: 'summary', ok: false, outcome: 'failed', sessionId: started.sessionId });
  expect(summary.error).toMatchObject({
    category: 'FILESYSTEM_ERROR',
    code: 'MINICODE_E_STORE',
    action: expect.any(String),
  });
  expect(summary.error.message).toContain(store);
  expect(summary.verify).toBeUndefined();
  expect(r.stderr).toContain(summary.error.message);
  expect(r.stderr).not.toContain('internal error');
  expect(r.requests).toBe(0);
}

describe('exec --json with a store that cannot be opened', () => {
  it('prints session.started, then one ok:false summary, exits 1 and asks the provider nothing when the store path is a file', async () => {
    const store = path.join(tempDir('minicode-store-file-'), 'not-a-dir');
    fs.writeFileSync(store, 'x');
    const r = await execWithStore(store);
    expectStoreFailure(r, store);
    expect(fs.readFileSync(store, 'utf8')).toBe('x');
  });

  it.each([
    ['zeroed', Buffer.alloc(65536)],
    ['cut short', Buffer.from('not an LMDB file\n')],
    ['of another format', Buffer.concat([Buffer.from('SQLite format 3\u0000'), Buffer.alloc(8192, 7)])],
  ])(
    'reports a data file %s as MINICODE_E_STORE after session.started and leaves the folder as it was',
    async (_label, bytes) => {
      const store = tempDir('minicode-store-damaged-');
      fs.writeFileSync(path.join(store, 'data.mdb'), bytes);
      const before = snapshot(store);
      const r = await execWithStore(store);
      expectStoreFailure(r, store);
      expect(r.records[1]!.error.message).toContain('data.mdb');
      expect(snapshot(store)).toEqual(before);
    },
  );

  it.skipIf(readOnlySkip !== undefined)(
    'reports a folder the user cannot write as MINICODE_E_STORE after session.started and writes nothing in it',
    async () => {
      let store: string;
      if (asRoot) {
        const disk = mountSmallDisk(64, { readOnly: true });
        disks.push(disk);
        store = disk.dir;
      } else {
        store = tempDir('minicode-store-readonly-');
        fs.chmodSync(store, 0o555);
      }
      const r = await execWithStore(store);
      expectStoreFailure(r, store);
      expect(fs.readdirSync(store)).toEqual([]);
    },
  );
});

describe('exec --json with a store that opens after the first line', () => {
  it('stores every event, the ones settled before the store opened included, in order and with the same seq', async () => {
    const cwd = scratchProject();
    // An ignored project config adds a diagnostic to the events settled before the store opens.
    fs.mkdirSync(path.join(cwd, '.minicode'));
    fs.writeFileSync(path.join(cwd, '.minicode', 'config.json'), '{}');
    const home = tempDir('minicode-home-');
    const r = await execWithStore(path.join(home, 'store'), { cwd, home });
    expect(r.code, r.stderr).toBe(0);
    const envelopes = r.records.filter((x) => x.eventId !== undefined);
    expect(envelopes.slice(0, 2).map((x) => [x.type, x.seq])).toEqual([
      ['session.started', 0],
      ['diagnostic.raised', 1],
    ]);
    expect(envelopes[1]!.payload.code).toBe('MINICODE_E_LOCAL_CONFIG_IGNORED');
    const replayed = (await replayJson(home, envelopes[0]!.sessionId)).filter((x) => x.eventId !== undefined);
    expect(replayed).toEqual(envelopes);
  });
});
