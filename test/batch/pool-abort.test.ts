/**
 * Ctrl+C on a batch whose runs are on the pool: every run in flight settles as aborted at
 * once (the abort is broadcast to the pool threads), none is recorded, so a re-run resumes them
 * all; the pool threads carrying them are not ended under them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createPoolRunners } from '../../lib/batch/pool-runners.js';
import { createProgress } from '../../lib/batch/progress.js';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { promptSettings } from '../../lib/agent/prompt-settings.js';
import type { LineSetup } from '../../lib/batch/run-line.js';
import { closePool, configurePool } from '../../lib/control/pool.js';
import { makeWorkdir, recordIds } from './helpers.js';

const RUNS = 6;
const held: http.ServerResponse[] = [];
let allArrived!: () => void;
const arrived = new Promise<void>((resolve) => (allArrived = resolve));
// A provider that takes every request and never answers: the runs stay in flight until aborted.
const server = http.createServer((req, res) => {
  req.resume();
  held.push(res);
  if (held.length === RUNS) allArrived();
});

afterAll(async () => {
  await closePool();
  configurePool({});
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('aborting a batch on the pool', () => {
  it('settles every run in flight as aborted, records none, and leaves them all to resume', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const w = makeWorkdir(0);
    const setup: LineSetup = {
      provider: providerSettings({ format: 'openai-chat', model: 'gpt-4.1-mini', baseUrl: baseUrlForOrigin('openai-chat', origin), apiKey: 'sk-test-held-0123456789' }),
      limits: runLimits(),
      environment: toolEnvironment(process.cwd()),
      prompting: promptSettings(),
    };
    configurePool({ maxThreads: 1 });
    const runners = createPoolRunners();
    const abort = new AbortController();
    const lines = Array.from({ length: RUNS }, (_, i) => JSON.stringify({ id: `h${i}`, prompt: `Wait for me (${i})` })).join('\n');
    const batch = runLocalBatch({
      inputPath: 'held',
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
    // Each aborted run came back from its thread as a result (a thread ended under it would have failed the task).
    const lags = await runners.close();
    expect(lags).toHaveLength(1);
    expect(summary).toMatchObject({ completed: 0, failed: 0, pending: RUNS, stoppedBy: 'interrupted' });
    expect(recordIds(w.out).all).toEqual([]);
    expect(held).toHaveLength(RUNS);
  });
});
