/**
 * The events a run settles before its store is open (lib/store/held-events.ts), on a real store:
 * held in order and stored once it is attached, with their own sequence numbers; dropped, with
 * `flushed` resolving, when the store could not be opened.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { holdEvents } from '../../lib/store/held-events.js';
import { openStore } from '../../lib/store/index.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-held-');

describe('events held until the store is open', () => {
  it('stores the held events first, in order and with their own seq, then every later one', async () => {
    const events = [...syntheticRun({ sessionId: 'held', steps: 4 })];
    const held = holdEvents();
    const before = events.slice(0, 9);
    for (const e of before) expect(held.append(e)).toBe(EVENT_REGISTRY[e.type].durable);
    const store = openStore({ dir: tmpDir() });
    held.attach(store);
    for (const e of events.slice(9)) held.append(e);
    await held.flushed('held');
    expect(store.readSession('held')).toEqual(events.filter((e) => EVENT_REGISTRY[e.type].durable));
    await store.close();
  });

  it('lets a flushed asked before the store opened wait until the held events are committed', async () => {
    const events = [...syntheticRun({ sessionId: 'wait', steps: 2 })];
    const held = holdEvents();
    for (const e of events) held.append(e);
    let done = false;
    const flushed = held.flushed('wait').then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    const store = openStore({ dir: tmpDir() });
    held.attach(store);
    await flushed;
    expect(store.readSession('wait')).toHaveLength(events.filter((e) => EVENT_REGISTRY[e.type].durable).length);
    await store.close();
  });

  it('drops the held and later events when the store could not be opened, and flushed resolves', async () => {
    const [first, ...rest] = [...syntheticRun({ sessionId: 'lost', steps: 1 })];
    const held = holdEvents();
    held.append(first!);
    const flushed = held.flushed('lost');
    held.abandon();
    await expect(flushed).resolves.toBeUndefined();
    for (const e of rest) expect(held.append(e)).toBe(false);
    const store = openStore({ dir: tmpDir() });
    expect(() => held.attach(store)).toThrow(/attach after attach or abandon/);
    await store.close();
  });
});
