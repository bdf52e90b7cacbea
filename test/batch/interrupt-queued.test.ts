/**
 * Ctrl+C on a batch whose lines are still queued for a pool thread: a line that starts on its
 * thread after the interrupt settles as aborted at once, without a rejection that would end the
 * thread, so it is left pending (no error record) and a re-run runs it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closePool, configurePool } from '../../lib/control/pool.js';
import { interruptHeldBatch } from './held-batch.js';
import { recordIds } from './helpers.js';

afterAll(async () => {
  await closePool();
  configurePool({});
});

describe('interrupting a batch whose lines wait for a pool thread', () => {
  it('leaves the lines cut off by the interrupt pending, with no error record, on a thread that survives', async () => {
    // One thread running one line at a time: the other lines queue for it and start after the interrupt.
    const { summary, lags, held, out } = await interruptHeldBatch({
      runs: 4,
      idPrefix: 'q',
      interruptAfter: 1,
      pool: { maxThreads: 1, concurrentTasksPerWorker: 1 },
    });
    expect(recordIds(out).all).toEqual([]);
    expect(summary).toMatchObject({ completed: 0, failed: 0, pending: 4, stoppedBy: 'interrupted' });
    // Every line came back from the one thread as a result: none ended it.
    expect(lags).toHaveLength(1);
    expect(held).toBe(1);
  });
});
