/**
 * bench/batch: `minicode batch` at volume. 10,000 prompts (quick: 1,000) run as full agent runs
 * (two turns: a read_file tool call, then the answer) against the loopback replay provider
 * (one server on its own thread, as a real provider is not on our event loop; `by-turn` order;
 * the hand-made openai-chat-two-turn cassette) at concurrency 64,
 * through the real path: HTTP over 127.0.0.1, SSE decoding, scrub, envelope, reduce, one shared
 * LMDB store, the crash-safe output writer. Reports runs/s, CPU ms per run, peak RSS (target
 * under 500 MB) and event-loop p99 lag from `monitorEventLoopDelay` (target under 50 ms), and
 * checks that every id is in the output exactly once. There is no peer to compare against:
 * the floor is the figures themselves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runLocalBatch } from '../lib/batch/batch.js';
import { createPoolRunners, tasksPerThreadFor } from '../lib/batch/pool-runners.js';
import { configurePool, defaultMaxThreads } from '../lib/control/pool.js';
import { parseBatchInput } from '../lib/batch/input.js';
import { createProgress } from '../lib/batch/progress.js';
import type { LineSetup } from '../lib/batch/run-line.js';
import { providerSettings } from '../lib/agent/provider-settings.js';
import { runLimits } from '../lib/agent/run-limits.js';
import { toolEnvironment } from '../lib/agent/tool-environment.js';
import { promptSettings } from '../lib/agent/prompt-settings.js';
import type { ProviderFormat } from '../lib/agent/conversation.js';
import { baseUrlForOrigin } from '../lib/decode/formats.js';
import { loadCassette } from '../lib/replay/cassette.js';
import { openStore } from '../lib/store/index.js';
import { measurement, type BenchOptions, type BenchReport, runIfMain } from './harness.js';
import { startReplayThread } from './support/replay-on-thread.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);

/** Anonymous (heaps) vs file-backed (LMDB's memory map, code) resident memory, from /proc (Linux). */
function rssSplit(): string {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
    return `anonymous ${(kb('RssAnon') / 1024).toFixed(0)} MB, file-backed ${(kb('RssFile') / 1024).toFixed(0)} MB`;
  } catch {
    return 'split unknown';
  }
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const f of fs.readdirSync(dir)) total += fs.statSync(path.join(dir, f)).size;
  return total;
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const n = options.quick ? 1000 : 10_000;
  const concurrency = 64;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-batch-'));
  fs.writeFileSync(path.join(work, 'README.md'), '# Sample\n\nA tiny project for the batch benchmark.\n');
  const text = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ id: `p${i}`, prompt: `What does README.md say? (${i})` }),
  ).join('\n');
  const input = parseBatchInput(text);
  const cassetteDir = path.join(ROOT, 'cassettes/openai-chat-two-turn');
  const cassette = loadCassette(cassetteDir);
  const format = cassette.manifest.format as ProviderFormat;
  const server = await startReplayThread(cassetteDir);
  const { origin } = server;
  const store = openStore({ dir: path.join(work, 'store') });
  const setup: LineSetup = {
    provider: providerSettings({
      format,
      model: cassette.manifest.model ?? 'replay',
      baseUrl: baseUrlForOrigin(format, origin),
      apiKey: 'replay',
    }),
    limits: runLimits(),
    environment: toolEnvironment(process.cwd()),
    prompting: promptSettings(),
  };
  const outDir = path.join(work, 'out');

  const threadCount = Number(process.env.MINICODE_BENCH_BATCH_THREADS ?? defaultMaxThreads());
  // As `minicode batch` sizes it, unless the sweep variable says otherwise.
  const tasksPerWorker = Number(
    process.env.MINICODE_BENCH_BATCH_TASKS_PER_WORKER ?? tasksPerThreadFor(concurrency, threadCount),
  );
  configurePool({ maxThreads: Math.max(1, threadCount), concurrentTasksPerWorker: tasksPerWorker });
  const runners = threadCount > 0 ? createPoolRunners({ storeDir: path.join(work, 'store') }) : undefined;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  let peakRss = process.memoryUsage.rss();
  let peakSplit = rssSplit();
  const sampler = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peakRss) {
      peakRss = rss;
      peakSplit = rssSplit();
    }
  }, 50);
  lag.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await runLocalBatch({
    inputPath: 'bench',
    input,
    outDir,
    concurrency,
    progress: createProgress({ mode: 'none', write: () => {} }),
    setup: async () => setup,
    store,
    baseDir: work,
    cwd: work,
    ...(runners ? { runners } : {}),
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  lag.disable();
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const storeBytes = dirBytes(path.join(work, 'store'));
  const runnerLag = (await runners?.close()) ?? [];
  await store.close();
  await server.close();

  // Every id exactly once across results.jsonl + errors.jsonl.
  const ids = ['results.jsonl', 'errors.jsonl'].flatMap((f) =>
    fs
      .readFileSync(path.join(outDir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id),
  );
  const unique = new Set(ids);
  const exactlyOnce = ids.length === n && unique.size === n;
  fs.rmSync(work, { recursive: true, force: true });

  const cpuMsPerRun = (cpu.user + cpu.system) / 1000 / n;
  const p99 = lag.percentile(99) / 1e6;
  return {
    name: 'batch',
    title: `minicode batch: ${n.toLocaleString('en')} two-turn runs at concurrency ${concurrency} over loopback replay`,
    description:
      'Full agent runs (read_file tool call, then the answer) through HTTP, SSE decoding, scrub, envelope, reduce, one shared LMDB store and the crash-safe output; ' +
      'targets: peak RSS < 500 MB, event-loop p99 lag < 50 ms, every id exactly once.',
    measurements: [
      measurement('runs per second', 'runs/s', [(n * 1000) / wallMs]),
      measurement('CPU per run (user + system)', 'ms', [cpuMsPerRun], false),
      measurement('peak RSS', 'MB', [peakRss / 1048576], false),
      measurement('event-loop lag p99', 'ms', [p99], false),
      measurement('event-loop lag max', 'ms', [lag.max / 1e6], false),
      ...(runnerLag.length
        ? [
            measurement(
              'pool threads: event-loop lag p99 (each thread)',
              'ms',
              runnerLag.map((r) => r.lagP99Ms),
              false,
            ),
          ]
        : []),
    ],
    ratios: [
      { label: 'peak RSS (MB), target <= 500', value: peakRss / 1048576, target: { op: '<=', value: 500 }, unit: 'MB' },
      { label: 'event-loop p99 lag (ms), target <= 50', value: p99, target: { op: '<=', value: 50 }, unit: 'ms' },
      { label: 'ids exactly once (1 = yes)', value: exactlyOnce ? 1 : 0, target: { op: '>=', value: 1 }, unit: '' },
    ],
    notes: [
      `runs on ${threadCount} pool thread(s), ${tasksPerWorker} tasks per thread (MINICODE_BENCH_BATCH_THREADS, 0 = all on the main thread; MINICODE_BENCH_BATCH_TASKS_PER_WORKER); the lag is the coordinator's (main) event loop`,
      `peak RSS split: ${peakSplit}; store on disk ${(storeBytes / 1048576).toFixed(0)} MB; main heap at the end ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`,
      `${summary.completed} completed, ${summary.failed} failed, ${ids.length} records, ${unique.size} distinct ids; wall ${(wallMs / 1000).toFixed(1)} s`,
      `CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms over ${os.cpus().length} cores (process CPU: includes the replay server's thread and LMDB's writer thread); load average at the end ${os.loadavg()[0]!.toFixed(1)}`,
    ],
  };
}

await runIfMain(import.meta.url, run);
