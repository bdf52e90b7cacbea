/**
 * Ctrl+C on a batch whose lines are still queued for a pool thread: a line that starts on its
 * thread after the interrupt settles as aborted at once, without a rejection that would end the
 * thread, so it is left pending (no error record) and a re-run runs it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createPoolRunners } from '../../lib/batch/pool-runners.js';
import { createProgress } from '../../lib/batch/progress.js';
import type { LineSetup } from '../../lib/batch/run-line.js';
import { closePool, configurePool } from '../../lib/control/pool.js';
import { makeWorkdir, recordIds } from './helpers.js';

const RUNS = 4;
const held: http.ServerResponse[] = [];
let firstArrived!: () => void;
const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
// A provider that takes every request and never answers: the first run stays in flight until aborted.
const server = http.createServer((req, res) => {
  req.resume();
  held.push(res);
  firstArrived();
});

afterAll(async () => {
  await closePool();
  configurePool({});
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('interrupting a batch whose lines wait for a pool thread', () => {
  it('leaves the lines cut off by the interrupt pending, with no error record, on a thread that survives', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const w = makeWorkdir(0);
    const setup: LineSetup = {
      provider: providerSettings({ format: 'openai-chat', model: 'gpt-4.1-mini', baseUrl: baseUrlForOrigin('openai-chat', origin), apiKey: 'sk-test-held-0123456789' }),
      limits: runLimits(),
      environment: toolEnvironment(process.cwd()),
    };
    // One thread running one line at a time: the other lines queue for it and start after the interrupt.
    configurePool({ maxThreads: 1, concurrentTasksPerWorker: 1 });
    const runners = createPoolRunners();
    const abort = new AbortController();
    const lines = Array.from({ length: RUNS }, (_, i) => JSON.stringify({ id: `q${i}`, prompt: `Wait for me (${i})` })).join('\n');
    const batch = runLocalBatch({
      inputPath: 'queued',
      input: parseBatchInput(lines),
      outDir: w.out,
      concurrency: RUNS,
      progress: createProgress({ mode: 'none', write: () => {} }),
      setup: async () => setup,
      baseDir: w.dir,
      cwd: w.dir,
      signal: abort.signal,
      runners,
    });
    await arrived;
    abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' });
    const summary = await batch;
    const lags = await runners.close();
    expect(recordIds(w.out).all).toEqual([]);
    expect(summary).toMatchObject({ completed: 0, failed: 0, pending: RUNS, stoppedBy: 'interrupted' });
    // Every line came back from the one thread as a result: none ended it.
    expect(lags).toHaveLength(1);
    expect(held).toHaveLength(1);
  });
});
