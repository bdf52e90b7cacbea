import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { rebuild, summarize } from '../../lib/reducer/index.js';
import { openStore, resolveStoreDir, effectiveEntry } from '../../lib/store/index.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-');

/** The data file of a new store with its second meta page zeroed (lmdb would take it unchecked). */
async function secondMetaZeroed(): Promise<Buffer> {
  const dir = tmpDir();
  await openStore({ dir }).close();
  const bytes = fs.readFileSync(path.join(dir, 'data.mdb'));
  // The page size is in the first meta page, after the 24-byte page header and 24 bytes of MDB_meta.
  bytes.fill(0, bytes.readUInt32LE(48), 2 * bytes.readUInt32LE(48));
  return bytes;
}

describe('the event store', () => {
  it('stores only durable events and replays one session in sequence order', async () => {
    const store = openStore({ dir: tmpDir() });
    const events = [...syntheticRun({ sessionId: 'a', steps: 30 })];
    // Interleave a second session to prove keys keep sessions apart.
    const other = [...syntheticRun({ sessionId: 'b', steps: 5 })];
    events.forEach((e, i) => {
      store.append(e);
      const o = other[i];
      if (o) store.append(o);
    });
    await store.flushed();
    const read = store.readSession('a');
    const durable = events.filter((e) => EVENT_REGISTRY[e.type].durable);
    expect(read).toEqual(durable);
    expect(read.map((e) => e.seq)).toEqual([...read.map((e) => e.seq)].sort((x, y) => x - y));
    expect(store.readSession('b')).toHaveLength(other.filter((e) => EVENT_REGISTRY[e.type].durable).length);
    await store.close();
  });

  it('keeps a session index with outcome, identity, prompt digest and event count', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    for (const e of syntheticRun({ sessionId: 'done', steps: 3 })) store.append(e);
    for (const e of syntheticRun({ sessionId: 'open', steps: 3, complete: false })) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    const done = reader.getSession('done');
    expect(done).toMatchObject({
      outcome: 'completed',
      origin: 'exec',
      provider: 'anthropic',
      eventCount: 2 + 3 * 6 + 2,
    });
    expect(done?.promptDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The writer closed without a terminal: a reader sees interrupted once the writer is gone.
    expect(effectiveEntry({ ...(reader.getSession('open') as never), writerPid: 2 ** 22 + 7 }).outcome).toBe(
      'interrupted',
    );
    expect(
      reader
        .listSessions()
        .map((s) => s.sessionId)
        .sort(),
    ).toEqual(['done', 'open']);
    expect(summarize(rebuild(reader.readSession('done'))).outcome).toBe('completed');
    await reader.close();
  });

  it('stores content by digest, caps its size, and leaves markers on eviction', async () => {
    const store = openStore({ dir: tmpDir(), maxContentBytes: 1024, clock: () => 0 });
    const ref = await store.putContent('x'.repeat(1000), { mediaType: 'text/plain' });
    expect(ref).toMatchObject({ size: 1000, mediaType: 'text/plain' });
    expect(ref.ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    const got = store.getContent(ref);
    expect(got.status).toBe('present');
    const big = await store.putContent('y'.repeat(2000));
    expect(big.evicted).toEqual({ reason: 'size-cap' });
    expect(store.getContent(big)).toEqual({ status: 'evicted', reason: 'size-cap' });
    const evicted = await store.evictContent(ref);
    expect(evicted.evicted).toEqual({ reason: 'eviction', at: '1970-01-01T00:00:00.000Z' });
    expect(store.getContent(ref)).toMatchObject({ status: 'evicted', reason: 'eviction' });
    await store.close();
  });

  it('resolves its location from the flag, then MINICODE_HOME, then the XDG default', () => {
    expect(resolveStoreDir({ flag: 'x', cwd: '/w', env: { MINICODE_HOME: '/h' } })).toBe('/w/x');
    expect(resolveStoreDir({ env: { MINICODE_HOME: '/h' } })).toBe('/h/store');
    expect(resolveStoreDir({ env: { XDG_DATA_HOME: '/d' }, homedir: '/u' })).toBe('/d/minicode/store');
    expect(resolveStoreDir({ env: {}, homedir: '/u' })).toBe('/u/.local/share/minicode/store');
  });

  it('keeps at most maxOpenSessions sessions in memory and indexes a dropped session truthfully when it writes again', async () => {
    const dir = tmpDir();
    const store = openStore({ dir, maxOpenSessions: 2 });
    const long = [...syntheticRun({ sessionId: 'long', steps: 4 })];
    const half = long.length >> 1;
    for (const e of long.slice(0, half)) store.append(e);
    await store.flushed();
    // Three more sessions, each in its own committed turn: 'long' is the oldest and is dropped.
    for (const id of ['x', 'y', 'z']) {
      for (const e of syntheticRun({ sessionId: id, steps: 1, complete: false })) store.append(e);
      await store.flushed();
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const e of long.slice(half)) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    const durable = long.filter((e) => EVENT_REGISTRY[e.type].durable);
    expect(reader.getSession('long')).toMatchObject({
      outcome: 'completed',
      eventCount: durable.length,
      lastSeq: (long[long.length - 1] as { seq: number }).seq,
    });
    expect(reader.getSession('long')?.promptDigest).toMatch(/^sha256:/);
    expect(reader.listSessions()).toHaveLength(4);
    await reader.close();
    expect(() => openStore({ dir, maxOpenSessions: 0 })).toThrow(TypeError);
  });

  it('never drops a session whose writes are not yet committed', async () => {
    const dir = tmpDir();
    const store = openStore({ dir, maxOpenSessions: 1 });
    const a = [...syntheticRun({ sessionId: 'a', steps: 2 })];
    for (const e of a.slice(0, 5)) store.append(e);
    // Microtasks only: the index entries are queued, nothing is committed yet.
    await Promise.resolve();
    for (const e of syntheticRun({ sessionId: 'b', steps: 1, complete: false })) store.append(e);
    await Promise.resolve();
    for (const e of a.slice(5)) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    expect(reader.getSession('a')).toMatchObject({
      outcome: 'completed',
      eventCount: a.filter((e) => EVENT_REGISTRY[e.type].durable).length,
    });
    await reader.close();
  });

  it.each([
    ['zeroed', async () => Buffer.alloc(16384)],
    ['cut short', async () => Buffer.from('x')],
    ['whose second meta page is zeroed', secondMetaZeroed],
  ])(
    'refuses a data file %s with MINICODE_E_STORE before lmdb reads it, and leaves the folder as it was',
    async (_label, make) => {
      const bytes = await make();
      const dir = tmpDir();
      fs.writeFileSync(path.join(dir, 'data.mdb'), bytes);
      for (const readOnly of [false, true]) {
        expect(() => openStore({ dir, readOnly })).toThrow(
          expect.objectContaining({
            code: 'MINICODE_E_STORE',
            message: expect.stringContaining('not a valid LMDB data file'),
          }),
        );
      }
      expect(fs.readdirSync(dir)).toEqual(['data.mdb']);
      expect(fs.readFileSync(path.join(dir, 'data.mdb')).equals(bytes)).toBe(true);
    },
  );

  it('refuses to open a missing store read-only with MINICODE_E_STORE', () => {
    expect(() => openStore({ dir: path.join(tmpDir(), 'nope'), readOnly: true })).toThrow(
      expect.objectContaining({ code: 'MINICODE_E_STORE' }),
    );
  });
});
