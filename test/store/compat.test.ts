import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { openStore } from '../../lib/store/index.js';
import { toStored, type StoredEvent } from '../../lib/store/stored-event.js';
import { syntheticRun } from '../../bench/support/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-compat-');

/** Durable events whose payloads take `shapes` distinct key sets (one msgpackr structure each). */
function manyShapes(sessionId: string, shapes: number): OutputEvent[] {
  const durable = [...syntheticRun({ sessionId, steps: Math.ceil(shapes / 5) })].filter((e) => EVENT_REGISTRY[e.type].durable);
  return durable.slice(0, shapes).map((e, i) => ({ ...e, payload: { ...e.payload, [`extra${i}`]: i } }) as OutputEvent);
}

describe('store compatibility', () => {
  it('reads a store written one msgpackr value per event with the default 32 shared structures, and continues its session in batches', async () => {
    const dir = tmpDir();
    // The events database as builds before batches wrote it: one value per event, and with
    // msgpackr's default of 32 shared structures before that limit was raised.
    const all = manyShapes('old', 80);
    const old = all.slice(0, 60);
    const root = open({ path: dir, maxDbs: 8 });
    const db = root.openDB<StoredEvent, [string, number]>({ name: 'events', sharedStructuresKey: Symbol.for('structures') });
    for (const e of old) void db.put([e.sessionId, e.seq], toStored(e));
    await db.flushed;
    expect((db.get(Symbol.for('structures') as never) as unknown as unknown[]).length).toBe(32);
    await root.close();

    // An old store with no batches database opens read-only.
    const before = openStore({ dir, readOnly: true });
    expect(before.readSession('old')).toEqual(old);
    expect(before.getEvent('old', (old[7] as OutputEvent).seq)).toEqual(old[7]);
    await before.close();

    const store = openStore({ dir });
    expect(store.readSession('old')).toEqual(old);
    for (const e of all.slice(60)) store.append(e);
    const fresh = manyShapes('new', 120).map((e) => ({ ...e, payload: { ...e.payload, again: true } }) as OutputEvent);
    for (const e of fresh) store.append(e);
    await store.close();

    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('old')).toEqual(all);
    expect(reader.getEvent('old', (all[10] as OutputEvent).seq)).toEqual(all[10]);
    expect(reader.getEvent('old', (all[70] as OutputEvent).seq)).toEqual(all[70]);
    expect(reader.readSession('new')).toEqual(fresh);
    await reader.close();
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
