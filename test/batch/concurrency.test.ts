import { describe, expect, it } from 'vitest';
import { createConcurrencyController } from '../../lib/batch/concurrency.js';
import { createScheduler } from '../../lib/batch/scheduler.js';

describe('adaptive concurrency', () => {
  it('halves on a rate-limit signal, pauses for Retry-After, and recovers additively', () => {
    const c = createConcurrencyController({ max: 8 });
    expect(c.available(0, 0)).toBe(8);
    c.onRateLimit(1000, 500);
    expect(c.snapshot()).toMatchObject({ limit: 4, pausedUntil: 1500, decreases: 1, signals: 1 });
    expect(c.available(0, 1200)).toBe(0);
    expect(c.available(1, 1500)).toBe(3);
    for (let i = 0; i < 4; i++) c.onFinished(true);
    expect(c.snapshot().limit).toBe(5);
    for (let i = 0; i < 100; i++) c.onFinished(true);
    expect(c.snapshot().limit).toBe(8);
    expect(c.snapshot().lowest).toBe(4);
  });

  it('halves once for a burst of signals inside one pause window, never below one', () => {
    const c = createConcurrencyController({ max: 16 });
    c.onRateLimit(0, 1000);
    c.onRateLimit(10, 1000);
    c.onRateLimit(20, 2000);
    expect(c.snapshot()).toMatchObject({ limit: 8, decreases: 1, signals: 3, pausedUntil: 2020 });
    for (let t = 3000; t < 10000; t += 1000) c.onRateLimit(t, 10);
    expect(c.snapshot().limit).toBe(1);
  });

  it('schedules every item once and stops starting when told to', async () => {
    const c = createConcurrencyController({ max: 3 });
    const ran: number[] = [];
    let peak = 0;
    let running = 0;
    const s = createScheduler({
      items: Array.from({ length: 20 }, (_, i) => i),
      controller: c,
      shouldStop: () => (ran.length >= 12 ? 'enough' : undefined),
      run: async (i) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 1));
        ran.push(i);
        running--;
      },
    });
    const done = await s.done;
    expect(done.stoppedBy).toBe('enough');
    expect(peak).toBeLessThanOrEqual(3);
    expect(new Set(ran).size).toBe(ran.length);
    expect(ran.length).toBeGreaterThanOrEqual(12);
    expect(ran.length).toBeLessThanOrEqual(14);
  });

  it("hands a settled run's slot to the next item and ends only once every run is acknowledged", async () => {
    const c = createConcurrencyController({ max: 2 });
    const started: number[] = [];
    const settle: (() => void)[] = [];
    const acknowledge: (() => void)[] = [];
    let finished = false;
    const s = createScheduler({
      items: [0, 1, 2, 3],
      controller: c,
      run: (i, settled) => {
        started.push(i);
        settle[i] = settled;
        return new Promise<void>((resolve) => (acknowledge[i] = resolve));
      },
    });
    void s.done.then(() => (finished = true));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    settle[0]?.();
    settle[0]?.();
    // One settled run frees one slot, once.
    expect(started).toEqual([0, 1, 2]);
    expect(s.running).toBe(2);
    settle[1]?.();
    settle[2]?.();
    settle[3]?.();
    expect(started).toEqual([0, 1, 2, 3]);
    expect(s.running).toBe(0);
    for (const i of [3, 2, 1]) acknowledge[i]?.();
    await new Promise((r) => setImmediate(r));
    expect(finished).toBe(false);
    acknowledge[0]?.();
    expect(await s.done).toEqual({ started: 4 });
  });

  it('starts no run while maxAcknowledging settled runs wait for their acknowledgement', async () => {
    const c = createConcurrencyController({ max: 4 });
    const started: number[] = [];
    const acknowledge: (() => void)[] = [];
    const s = createScheduler({
      items: [0, 1, 2, 3, 4, 5],
      controller: c,
      maxAcknowledging: 2,
      run: (i, settled) => {
        started.push(i);
        // Each run settles as soon as it starts (its events out) and waits for its acknowledgement.
        const acked = new Promise<void>((resolve) => (acknowledge[i] = resolve));
        settled();
        return acked;
      },
    });
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    acknowledge[0]?.();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (let i = 1; i < 6; i++) {
      acknowledge[i]?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await s.done).toEqual({ started: 6 });
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('starts a requeued item again once its time has come, ahead of the items not yet started, and ends only after it', async () => {
    const c = createConcurrencyController({ max: 1 });
    const started: string[] = [];
    let tries = 0;
    const s = createScheduler<string>({
      items: ['a', 'b', 'c'],
      controller: c,
      run: async (item) => {
        started.push(item);
        await new Promise((r) => setTimeout(r, 1));
        if (item === 'a' && ++tries === 1) s.requeue(item, Date.now());
      },
    });
    expect(await s.done).toEqual({ started: 3 });
    expect(started).toEqual(['a', 'a', 'b', 'c']);
  });

  it('drops a requeued item that waits when the scheduler is stopped, and ends without waiting for its time', async () => {
    const c = createConcurrencyController({ max: 2 });
    const started: string[] = [];
    const s = createScheduler<string>({
      items: ['a'],
      controller: c,
      run: async (item) => {
        started.push(item);
        s.requeue(item, Date.now() + 600_000);
      },
    });
    // Wait for the first run to have started and requeued itself, then stop.
    while (started.length === 0) await new Promise((r) => setImmediate(r));
    s.stop('interrupted');
    expect(await s.done).toEqual({ started: 1, stoppedBy: 'interrupted' });
    expect(started).toEqual(['a']);
  });
});
