import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { jsonLine } from '../../lib/render/json-line.js';
import { BATCH_COMPRESSION_THRESHOLD, openStore } from '../../lib/store/index.js';
import { MAX_BATCH_CHARS, MAX_BATCH_EVENTS } from '../../lib/store/event-batches.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-store-batches-');

const durable = (events: OutputEvent[]): OutputEvent[] => events.filter((e) => EVENT_REGISTRY[e.type].durable);

/** The values of the batches database as [key, text] pairs: decompressed, or as stored on disk with `onDisk`. */
async function rawBatches(dir: string, onDisk = false): Promise<[[string, number], string][]> {
  const root = open({ path: dir, maxDbs: 8, readOnly: true });
  const db = root.openDB<Uint8Array, [string, number]>({
    name: 'batches',
    encoding: 'binary',
    ...(onDisk ? {} : { compression: { threshold: BATCH_COMPRESSION_THRESHOLD } }),
  });
  const out: [[string, number], string][] = [];
  for (const { key, value } of db.getRange({}))
    out.push([key, Buffer.from(value).toString(onDisk ? 'latin1' : 'utf8')]);
  await root.close();
  return out;
}

describe('the store writes one value per session per event-loop turn', () => {
  it('stores the events one turn appended to a session as one JSON array, keyed by the first seq', async () => {
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
    expect(raw[0]?.[1]).toBe(JSON.stringify(durable(a)));
  });

  it('stores the JSONL lines it is given as the array elements, so the printed text is the stored text', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const [first, ...rest] = [...syntheticRun({ sessionId: 'lines', steps: 2 })];
    // A line separator: jsonLine escapes it, JSON.stringify does not, so the two forms differ.
    const odd = {
      ...(first as OutputEvent),
      payload: { ...(first as OutputEvent).payload, note: 'a\u2028b' },
    } as OutputEvent;
    const events = [odd, ...rest];
    // Lines for some events only: a batch may mix both forms.
    for (const [i, e] of events.entries()) store.append(e, i % 3 === 0 ? jsonLine(e) : undefined);
    await store.close();
    const raw = await rawBatches(dir);
    expect(raw[0]?.[1]).toBe(
      `[${durable(events)
        .map((e, i) => (events.indexOf(e) % 3 === 0 ? jsonLine(e) : JSON.stringify(e)))
        .join(',')}]`,
    );
    expect(raw[0]?.[1]).toContain('\\u2028');
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('lines')).toEqual(durable(events));
    expect(reader.readSession('lines').map(jsonLine)).toEqual(durable(events).map(jsonLine));
    await reader.close();
  });

  it(`compresses a value of ${BATCH_COMPRESSION_THRESHOLD} bytes or more on disk and reads an uncompressed one, as older builds wrote it, the same`, async () => {
    const dir = tmpDir();
    const events = durable([...syntheticRun({ sessionId: 'z', steps: 20 })]);
    const text = JSON.stringify(events);
    expect(Buffer.byteLength(text)).toBeGreaterThan(BATCH_COMPRESSION_THRESHOLD);
    // An older build's value: the JSON text as is, under [sessionId, first seq].
    const root = open({ path: dir, maxDbs: 8 });
    const old = root.openDB<Uint8Array, [string, number]>({ name: 'batches', encoding: 'binary' });
    await old.put(
      ['old', (events[0] as OutputEvent).seq],
      Buffer.from(JSON.stringify(events.map((e) => ({ ...e, sessionId: 'old', eventId: `old:${e.seq}` })))),
    );
    await root.close();
    const store = openStore({ dir });
    for (const e of events) store.append(e);
    await store.close();
    const onDisk = new Map((await rawBatches(dir, true)).map(([key, value]) => [key[0], value]));
    expect(onDisk.get('old')?.startsWith('[')).toBe(true);
    expect(onDisk.get('z')?.startsWith('[')).toBe(false);
    expect((onDisk.get('z')?.length ?? 0) * 2).toBeLessThan(Buffer.byteLength(text));
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('z')).toEqual(events);
    expect(reader.readSession('old').map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    await reader.close();
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

  it(`splits a turn of large events appended without lines into values of at most ${MAX_BATCH_CHARS} characters and still reads it in order`, async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    // ~20 KB of text per event, 60 events in one turn: about 5x the bound, far below the event count bound.
    const events = durable([...syntheticRun({ sessionId: 'big', steps: 12 })]).map(
      (e, i) => ({ ...e, payload: { ...e.payload, note: `${i}:`.padEnd(20_000, 'x') } }) as OutputEvent,
    );
    expect(events.length).toBeLessThan(MAX_BATCH_EVENTS);
    for (const e of events) store.append(e);
    await store.close();
    const raw = await rawBatches(dir);
    expect(raw.length).toBeGreaterThan(3);
    // The array's brackets and commas are not counted: the bound is on the events' text.
    for (const [, text] of raw)
      expect(text.length - (JSON.parse(text) as unknown[]).length - 1).toBeLessThanOrEqual(MAX_BATCH_CHARS);
    expect(raw.map(([key]) => key[1])).toEqual([...raw.map(([key]) => key[1])].sort((a, b) => a - b));
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('big')).toEqual(events);
    for (const e of events) expect(reader.getEvent('big', e.seq)).toEqual(e);
    await reader.close();
  });

  it('stores one event larger than the bound as a value of its own, between the batches before and after it', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const events = durable([...syntheticRun({ sessionId: 'huge', steps: 3 })]);
    const at = events.length >> 1;
    events[at] = {
      ...(events[at] as OutputEvent),
      payload: { ...(events[at] as OutputEvent).payload, note: 'y'.repeat(MAX_BATCH_CHARS + 10) },
    } as OutputEvent;
    for (const [i, e] of events.entries()) store.append(e, i % 2 === 0 ? jsonLine(e) : undefined);
    await store.close();
    const raw = await rawBatches(dir);
    expect(raw.map(([, text]) => (JSON.parse(text) as unknown[]).length)).toEqual([at, 1, events.length - at - 1]);
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('huge')).toEqual(events);
    await reader.close();
  });

  it('fails the acknowledgement for an event JSON cannot hold, and stores the others of the session in order', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const events = durable([...syntheticRun({ sessionId: 'bad', steps: 2 })]);
    const bad = {
      ...(events[1] as OutputEvent),
      payload: { ...(events[1] as OutputEvent).payload, note: 1n },
    } as unknown as OutputEvent;
    for (const e of events) store.append(e === events[1] ? bad : e);
    await expect(store.flushed('bad')).rejects.toMatchObject({ code: 'MINICODE_E_STORE' });
    expect(store.readSession('bad')).toEqual(events.filter((e) => e !== events[1]));
    await store.close().catch(() => undefined);
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
    const odd = {
      ...(first as OutputEvent),
      payload: { ...(first as OutputEvent).payload, note: 'a\u2028b\u0085c\n\u202e"\\' },
    } as OutputEvent;
    store.append(odd);
    for (const e of rest) store.append(e);
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    const back = reader.readSession('odd');
    expect(back[0]).toEqual(odd);
    expect(back.map(jsonLine)).toEqual(durable([odd, ...rest]).map(jsonLine));
    await reader.close();
  });

  it('acknowledges one session with flushed(sessionId) while another keeps writing, and a second reader then sees all of its events', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const a = [...syntheticRun({ sessionId: 'a', steps: 10 })];
    const b = [...syntheticRun({ sessionId: 'b', steps: 200 })];
    for (const e of a) store.append(e);
    let writing = true;
    const other = (async () => {
      for (let i = 0; writing && i < b.length; i++) {
        store.append(b[i] as OutputEvent);
        if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await store.flushed('a');
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('a')).toEqual(durable(a));
    expect(reader.getSession('a')?.eventCount).toBe(durable(a).length);
    await reader.close();
    // A session with nothing pending (or never written) is acknowledged at once.
    await store.flushed('a');
    await store.flushed('never-written');
    writing = false;
    await other;
    await store.close();
  });
});
