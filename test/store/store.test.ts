import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { rebuild, summarize } from '../../lib/reducer/index.js';
import { openStore, resolveStoreDir, effectiveEntry } from '../../lib/store/index.js';
import { syntheticRun } from '../../bench/support/synthetic-run.js';

const dirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-store-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

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
    expect(done).toMatchObject({ outcome: 'completed', origin: 'exec', provider: 'anthropic', eventCount: 2 + 3 * 6 + 2 });
    expect(done?.promptDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The writer closed without a terminal: a reader sees interrupted once the writer is gone.
    expect(effectiveEntry({ ...(reader.getSession('open') as never), writerPid: 2 ** 22 + 7 }).outcome).toBe('interrupted');
    expect(reader.listSessions().map((s) => s.sessionId).sort()).toEqual(['done', 'open']);
    expect(summarize(rebuild(reader.readSession('done'))).outcome).toBe('completed');
    await reader.close();
  });

  it('forgets committed sessions past maxOpenSessions and folds them again when they write more', async () => {
    const dir = tmpDir();
    const store = openStore({ dir, maxOpenSessions: 2 });
    // Five sessions that never end, each written in its own event-loop turn (its own batch).
    const runs = ['s0', 's1', 's2', 's3', 's4'].map((id) => [...syntheticRun({ sessionId: id, steps: 4, complete: false })]);
    const half = (run: (typeof runs)[number]) => Math.floor(run.length / 2);
    for (const run of runs) {
      for (const e of run.slice(0, half(run))) store.append(e);
      await new Promise<void>((resolve) => setImmediate(resolve));
      await store.flushed();
    }
    // s0 was dropped from memory long ago; its second half must still be indexed as a whole.
    for (const run of runs) for (const e of run.slice(half(run))) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    for (const run of runs) {
      const durable = run.filter((e) => EVENT_REGISTRY[e.type].durable);
      const entry = reader.getSession(run[0]!.sessionId);
      expect(entry).toMatchObject({ eventCount: durable.length, lastSeq: durable.at(-1)!.seq });
      expect(reader.readSession(run[0]!.sessionId)).toEqual(durable);
    }
    await reader.close();
  });

  it('never forgets a session whose writes are still in flight, however small maxOpenSessions is', async () => {
    const dir = tmpDir();
    const store = openStore({ dir, maxOpenSessions: 1 });
    const runs = ['a', 'b', 'c', 'd'].map((id) => [...syntheticRun({ sessionId: id, steps: 6, complete: false })]);
    // Turn after turn without waiting for commits: one event of every session per turn.
    const longest = Math.max(...runs.map((r) => r.length));
    for (let i = 0; i < longest; i++) {
      for (const run of runs) if (run[i]) store.append(run[i]!);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    for (const run of runs) {
      const durable = run.filter((e) => EVENT_REGISTRY[e.type].durable);
      expect(reader.getSession(run[0]!.sessionId)).toMatchObject({ eventCount: durable.length, lastSeq: durable.at(-1)!.seq });
    }
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

  it('refuses to open a missing store read-only with MINICODE_E_STORE', () => {
    expect(() => openStore({ dir: path.join(tmpDir(), 'nope'), readOnly: true })).toThrow(expect.objectContaining({ code: 'MINICODE_E_STORE' }));
  });
});
