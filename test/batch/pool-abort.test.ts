/**
 * Ctrl+C on a batch whose runs are on the pool: every run in flight settles as aborted at
 * once (the abort is broadcast to the pool threads), none is recorded, so a re-run resumes them
 * all; the pool threads carrying them are not ended under them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, configurePool } from '../../lib/control/pool.js';
import { interruptHeldBatch } from './held-batch.js';
import { recordIds } from './helpers.js';

const RUNS = 6;

afterAll(async () => {
  await closePool();
  configurePool({});
});

describe('aborting a batch on the pool', () => {
  it('settles every run in flight as aborted, records none, and leaves them all to resume', async () => {
    const { summary, lags, held, out } = await interruptHeldBatch({
      runs: RUNS,
      idPrefix: 'h',
      interruptAfter: RUNS,
      pool: { maxThreads: 1 },
    });
    expect(lags).toHaveLength(1);
    expect(summary).toMatchObject({ completed: 0, failed: 0, pending: RUNS, stoppedBy: 'interrupted' });
    expect(recordIds(out).all).toEqual([]);
    expect(held).toBe(RUNS);
  });
});
