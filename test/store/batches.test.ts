import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { jsonLine } from '../../lib/render/json-line.js';
import { openStore } from '../../lib/store/index.js';
import { MAX_BATCH_EVENTS } from '../../lib/store/event-batches.js';
import { syntheticRun } from '../../bench/support/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-batches-');

const durable = (events: OutputEvent[]): OutputEvent[] => events.filter((e) => EVENT_REGISTRY[e.type].durable);

/** The raw values of the batches database, as [key, text] pairs. */
async function rawBatches(dir: string): Promise<[[string, number], string][]> {
  const root = open({ path: dir, maxDbs: 8, readOnly: true });
  const db = root.openDB<Uint8Array, [string, number]>({ name: 'batches', encoding: 'binary' });
  const out: [[string, number], string][] = [];
  for (const { key, value } of db.getRange({})) out.push([key, Buffer.from(value).toString('utf8')]);
  await root.close();
  return out;
}

describe('the store writes one value per session per event-loop turn', () => {
  it('stores the events one turn appended to a session as one JSON array of their JSONL lines, keyed by the first seq', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const a = [...syntheticRun({ sessionId: 'a', steps: 3 })];
    const b = [...syntheticRun({ sessionId: 'b', steps: 2 })];
    for (const e of a) store.append(e);
    for (const e of b) store.append(e);
    await store.close();
    const raw = await rawBatches(dir);
    expect(raw.map(([key]) => key)).toEqual([
      ['a', durable(a)[0]?.seq],
      ['b', durable(b)[0]?.seq],
    ]);
    expect(raw[0]?.[1]).toBe(`[${durable(a).map(jsonLine).join(',')}]`);
  });

  it('reads a session written over many turns back in sequence order, equal to the events appended', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const events = [...syntheticRun({ sessionId: 'turns', steps: 40 })];
    for (let i = 0; i < events.length; i++) {
      store.append(events[i] as OutputEvent);
      // A new turn every few events: many batches of uneven size.
      if (i % 7 === 3) await new Promise((resolve) => setImmediate(resolve));
    }
    await store.flushed();
    expect((await rawBatches(dir)).length).toBeGreaterThan(5);
    expect(store.readSession('turns')).toEqual(durable(events));
    await store.close();
  });

  it(`splits a turn longer than ${MAX_BATCH_EVENTS} events into several values and still reads it in order`, async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const events = [...syntheticRun({ sessionId: 'long', steps: 400 })];
    for (const e of events) store.append(e);
    await store.close();
    const raw = await rawBatches(dir);
    expect(raw.length).toBeGreaterThan(1);
    for (const [, text] of raw) expect((JSON.parse(text) as unknown[]).length).toBeLessThanOrEqual(MAX_BATCH_EVENTS);
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('long')).toEqual(durable(events));
    await reader.close();
  });

  it('reads a single event by seq from the middle of a batch, and nothing for a live or unknown seq', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const a = [...syntheticRun({ sessionId: 'a', steps: 5 })];
    const z = [...syntheticRun({ sessionId: 'z', steps: 5 })];
    for (const e of [...a, ...z]) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    for (const e of durable(a)) expect(reader.getEvent('a', e.seq)).toEqual(e);
    const live = a.find((e) => !EVENT_REGISTRY[e.type].durable);
    expect(live).toBeDefined();
    expect(reader.getEvent('a', (live as OutputEvent).seq)).toBeUndefined();
    expect(reader.getEvent('a', (a[a.length - 1] as OutputEvent).seq + 1)).toBeUndefined();
    // A session before every other in key order has no batch at or before the seq.
    expect(reader.getEvent('0-none', 3)).toBeUndefined();
    expect(reader.getEvent('m-none', 3)).toBeUndefined();
    await reader.close();
  });

  it('stores an event whose text holds line separators and controls so that it reads back equal and prints the same line', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const [first, ...rest] = [...syntheticRun({ sessionId: 'odd', steps: 1 })];
    const odd = { ...(first as OutputEvent), payload: { ...(first as OutputEvent).payload, note: 'a\u2028b\u0085c\n\u202e"\\' } } as OutputEvent;
    store.append(odd);
    for (const e of rest) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    const back = reader.readSession('odd');
    expect(back[0]).toEqual(odd);
    expect(back.map(jsonLine)).toEqual(durable([odd, ...rest]).map(jsonLine));
    await reader.close();
  });
});
