/**
 * One worker pool per process: a local batch's runs (pool tasks, many per thread) and the
 * compaction of a large transcript run on the same Piscina threads. Counted two ways: the
 * pool's own thread list, and the process's OS threads (`/proc/self/task`; one per worker
 * thread), which would also show a second pool or runner threads of any other kind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderFormat } from '../../lib/agent/conversation.js';
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
import { compactInPool } from '../../lib/control/offload.js';
import { closePool, configurePool, getPool, isPoolStarted } from '../../lib/control/pool.js';
import { loadCassette } from '../../lib/replay/cassette.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/server.js';
import { openStore, type EventStore } from '../../lib/store/index.js';
import { transcript } from '../control/helpers/transcripts.js';
import { CASSETTE, makeWorkdir, recordIds } from './helpers.js';

const POOL_THREADS = 2;
const servers: ReplayServer[] = [];
const stores: EventStore[] = [];
afterAll(async () => {
  await closePool();
  configurePool({});
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(servers.map((s) => s.close()));
});

const hasProc = fs.existsSync('/proc/self/task');
const osThreads = (): number => (hasProc ? fs.readdirSync('/proc/self/task').length : 0);

async function batchOf(
  n: number,
  prefix: string,
  w: ReturnType<typeof makeWorkdir>,
  setup: LineSetup,
  store: EventStore,
  runners?: ReturnType<typeof createPoolRunners>,
) {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `${prefix}${i}`, prompt: `What does README.md say? (${i})` }),
  ).join('\n');
  return runLocalBatch({
    inputPath: 'shared-pool',
    input: parseBatchInput(lines),
    outDir: path.join(w.dir, `out-${prefix}`),
    concurrency: 8,
    progress: createProgress({ mode: 'none', write: () => {} }),
    setup: async () => setup,
    store,
    baseDir: w.dir,
    cwd: w.dir,
    ...(runners ? { runners } : {}),
  });
}

describe('one pool per process', () => {
  it('runs a batch and the compaction of a large transcript on the same pool threads', async () => {
    if (!hasProc) console.warn('no /proc/self/task here: counting the pool threads only');
    const w = makeWorkdir(0);
    const cassette = loadCassette(CASSETTE);
    const format = cassette.manifest.format as ProviderFormat;
    const server = await startReplayServer(CASSETTE, { order: 'by-turn', recordRequests: false });
    servers.push(server);
    const setup: LineSetup = {
      provider: providerSettings({
        format,
        model: cassette.manifest.model ?? 'replay',
        baseUrl: baseUrlForOrigin(format, server.origin),
        apiKey: 'replay',
      }),
      limits: runLimits(),
      environment: toolEnvironment(process.cwd()),
      prompting: promptSettings(),
    };
    const store = openStore({ dir: w.store });
    stores.push(store);

    // A first batch on this thread brings up what every run uses (HTTP client, LMDB, libuv's threads) before the baseline.
    expect((await batchOf(4, 'warm', w, setup, store)).completed).toBe(4);
    expect(isPoolStarted()).toBe(false);
    const baseline = osThreads();

    configurePool({ maxThreads: POOL_THREADS });
    const runners = createPoolRunners({ storeDir: w.store });
    let peakOs = baseline;
    let peakPool = 0;
    const poolThreadIds = new Set<number>();
    const sample = (): void => {
      peakOs = Math.max(peakOs, osThreads());
      if (!isPoolStarted()) return;
      const threads = getPool().threads;
      peakPool = Math.max(peakPool, threads.length);
      for (const t of threads) poolThreadIds.add(t.threadId);
    };
    const sampler = setInterval(sample, 5);
    const large = transcript(60, { resultChars: 6_000 }); // ~400 Ki chars, folded through the pool
    const [summary, folded] = await Promise.all([
      batchOf(40, 'p', w, setup, store, runners),
      compactInPool(large, { keepRecentUnits: 2 }),
    ]);
    sample();
    clearInterval(sampler);
    const lags = await runners.close();

    expect(summary).toMatchObject({ completed: 40, failed: 0 });
    expect(new Set(recordIds(path.join(w.dir, 'out-p')).results).size).toBe(40);
    expect(folded.ok && folded.value.changed).toBe(true);
    // The runs ran on the pool's threads, and the pool never grew past its bound.
    expect(lags.length).toBeGreaterThan(0);
    for (const lag of lags) expect(poolThreadIds.has(lag.threadId)).toBe(true);
    expect(peakPool).toBeGreaterThan(0);
    expect(peakPool).toBeLessThanOrEqual(POOL_THREADS);
    // No thread beyond the pool's: no runner threads, no second pool.
    if (hasProc) expect(peakOs - baseline).toBeLessThanOrEqual(POOL_THREADS);
    // The batch held the pool; letting go closed it.
    expect(isPoolStarted()).toBe(false);
  });
});
