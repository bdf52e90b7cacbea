import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { MAX_SHARED_STRUCTURES, openStore } from '../../lib/store/index.js';
import { syntheticRun } from '../../bench/support/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-compat-');

/** Durable events whose payloads take `shapes` distinct key sets (one msgpackr structure each). */
function manyShapes(sessionId: string, shapes: number): OutputEvent[] {
  const durable = [...syntheticRun({ sessionId, steps: Math.ceil(shapes / 5) })].filter((e) => EVENT_REGISTRY[e.type].durable);
  return durable.slice(0, shapes).map((e, i) => ({ ...e, payload: { ...e.payload, [`extra${i}`]: i } }) as OutputEvent);
}

describe('store compatibility', () => {
  it('opens a store written with msgpackr default of 32 shared structures, reads it back and keeps writing new shapes', async () => {
    const dir = tmpDir();
    // The events database as the store opened it before raising maxSharedStructures.
    const old = manyShapes('old', 80);
    const root = open({ path: dir, maxDbs: 8 });
    const db = root.openDB<OutputEvent, [string, number]>({ name: 'events', sharedStructuresKey: Symbol.for('structures') });
    for (const e of old) void db.put([e.sessionId, e.seq], e);
    await db.flushed;
    expect((db.get(Symbol.for('structures') as never) as unknown as unknown[]).length).toBe(32);
    await root.close();

    const store = openStore({ dir });
    expect(store.readSession('old')).toEqual(old);
    const fresh = manyShapes('new', 120).map((e) => ({ ...e, payload: { ...e.payload, again: true } }) as OutputEvent);
    for (const e of fresh) store.append(e);
    await store.close();

    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('old')).toEqual(old);
    expect(reader.readSession('new')).toEqual(fresh);
    await reader.close();
    const structures = open({ path: dir, maxDbs: 8, readOnly: true });
    const saved = structures.openDB({ name: 'events' }).get(Symbol.for('structures') as never) as unknown as unknown[];
    expect(saved.length).toBe(MAX_SHARED_STRUCTURES);
    await structures.close();
  });

  it('counts the stored events of a session that a later writer continues', async () => {
    const dir = tmpDir();
    const first = openStore({ dir });
    const begun = [...syntheticRun({ sessionId: 'cont', steps: 2, complete: false })];
    for (const e of begun) first.append(e);
    await first.close();
    const stored = begun.filter((e) => EVENT_REGISTRY[e.type].durable).length;

    const second = openStore({ dir });
    const last = begun[begun.length - 1] as OutputEvent;
    const env = createEnveloper({ sessionId: 'cont', startSeq: last.seq + 1 });
    second.append(env.wrap(draft('task.completed', { taskId: 'task_1', reason: 'completed', steps: 2 })));
    second.append(env.wrap(draft('session.ended', { outcome: 'completed', reason: 'completed' })));
    await second.close();

    const reader = openStore({ dir, readOnly: true });
    expect(reader.getSession('cont')).toMatchObject({ outcome: 'completed', eventCount: stored + 2, lastSeq: last.seq + 2, origin: 'exec' });
    expect(reader.getSession('cont')?.promptDigest).toMatch(/^sha256:/);
    await reader.close();
  });
});
