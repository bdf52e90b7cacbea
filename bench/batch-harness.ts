/**
 * bench/batch-harness: the coordinator's responsiveness when `batch` works as an evaluation
 * harness. 1,000 lines (quick: 100) of the demo run (read a file, edit it, run the tests with
 * bash, submit) against the loopback replay provider on its own thread, each line in its own
 * `git worktree` of one repository (`--isolate worktree`) and checked by `--verify "node
 * test.js"`, at concurrency 16, runs on the worker pool as `minicode batch` sizes it.
 *
 * Measured on the coordinator (main) thread, which keeps the scheduler, the isolation and
 * verify subprocesses, the patches and the record writes:
 * - event-loop p99 lag (`monitorEventLoopDelay`; the target: < 50 ms);
 * - record-write lag: from the moment a line's timing was closed (its run, verify and patch
 *   done) to its record appended to results.jsonl, p99 (also < 50 ms).
 * Between them, the same harness batch with the pool threads spawning git, bash and verify
 * themselves instead of through their spawn helper (lib/spawn-helper): each such spawn forks
 * the whole process, which stalls every thread, the coordinator's included, for the page-table
 * copy. The peer is the same batch without isolation and verify (plain `batch`), run after it in
 * the same process: the ratio says what the harness adds to the coordinator's lag. The floor is
 * an idle thread's lag over the same window (bench/support/idle-lag.ts): on a shared machine the
 * scheduler alone delays a waking thread by tens of ms, which no code of ours can remove.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ProviderFormat } from '../lib/agent/conversation.js';
import { baseUrlForOrigin } from '../lib/agent/provider-select.js';
import { runLocalBatch } from '../lib/batch/batch.js';
import type { HarnessOptions } from '../lib/batch/harness.js';
import { parseBatchInput } from '../lib/batch/input.js';
import { nearestRank } from '../lib/batch/latency.js';
import { createPoolRunners, tasksPerThreadFor } from '../lib/batch/pool-runners.js';
import { createProgress } from '../lib/batch/progress.js';
import type { LineSetup } from '../lib/batch/run-line.js';
import { configurePool, defaultMaxThreads } from '../lib/control/pool.js';
import { loadCassette } from '../lib/replay/cassette.js';
import { openStore } from '../lib/store/index.js';
import { measurement, ratio, runIfMain, type BenchOptions, type BenchReport } from './harness.js';
import { startIdleLag } from './support/idle-lag.js';
import { startReplayThread } from './support/replay-on-thread.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = fs.existsSync(path.resolve(HERE, '../package.json')) ? path.resolve(HERE, '..') : path.resolve(HERE, '../..');
const CONCURRENCY = 16;

interface BatchFigures {
  wallMs: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** An idle thread's lag p99 over the same window (the machine's floor). */
  idleP99Ms: number;
  writeLagP99Ms: number;
  /** The coordinator's time inside its record writes (`fs.writeSync`/`fs.write` calls): p99 and longest, ms, and how many. */
  appendP50Ms: number;
  appendP99Ms: number;
  appendMaxMs: number;
  appendTotalMs: number;
  appends: number;
  completed: number;
  verified: number;
  patches: number;
}

async function oneBatch(work: string, name: string, n: number, setup: LineSetup, harness: HarnessOptions | undefined, spawnHelper = true): Promise<BatchFigures> {
  const input = parseBatchInput(Array.from({ length: n }, (_, i) => JSON.stringify({ id: `${name}-${i}`, prompt: 'Fix the failing test in this project', cwd: 'repo' })).join('\n'));
  const outDir = path.join(work, `out-${name}`);
  const store = openStore({ dir: path.join(work, `store-${name}`) });
  const threads = defaultMaxThreads();
  configurePool({ maxThreads: threads, concurrentTasksPerWorker: tasksPerThreadFor(CONCURRENCY, threads) });
  const runners = createPoolRunners({ storeDir: path.join(work, `store-${name}`), spawnHelper });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const writeLags: number[] = [];
  // The batch's own start: the first reading of its clock (records' totalMs count from it).
  let startedAt: number | undefined;
  const clock = (): number => {
    const now = performance.now();
    startedAt ??= now;
    return now;
  };
  const progress = createProgress({ mode: 'none', write: () => {} });
  const record = progress.record.bind(progress);
  // Called right after the append: now, less the moment the line's timing was closed.
  progress.record = (r) => {
    if (r.timing && startedAt !== undefined) writeLags.push(performance.now() - startedAt - r.timing.totalMs);
    record(r);
  };
  // The coordinator's time inside every fs.writeSync and fs.write call (the record appends are
  // the only writes of a batch without progress output): how long does an append block the loop?
  const appendMs: number[] = [];
  const writeSync = fs.writeSync;
  const write = fs.write;
  const timed = <F extends (...args: never[]) => unknown>(fn: F): F =>
    ((...args: Parameters<F>) => {
      const t = performance.now();
      try {
        return fn(...args);
      } finally {
        appendMs.push(performance.now() - t);
      }
    }) as F;
  fs.writeSync = timed(writeSync);
  fs.write = timed(write as (...args: never[]) => unknown) as typeof fs.write;
  const idle = await startIdleLag();
  lag.enable();
  const t0 = performance.now();
  const summary = await runLocalBatch({
    inputPath: name,
    input,
    outDir,
    concurrency: CONCURRENCY,
    progress,
    setup: async () => setup,
    store,
    baseDir: work,
    cwd: work,
    runners,
    clock,
    ...(harness ? { harness } : {}),
  });
  const wallMs = performance.now() - t0;
  lag.disable();
  fs.writeSync = writeSync;
  fs.write = write;
  appendMs.sort((a, b) => a - b);
  const idleLag = await idle.stop();
  await runners.close();
  await store.close();
  const patches = fs.existsSync(path.join(outDir, 'patches')) ? fs.readdirSync(path.join(outDir, 'patches')).length : 0;
  const sorted = writeLags.sort((a, b) => a - b);
  return {
    wallMs,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
    idleP99Ms: idleLag.p99Ms,
    writeLagP99Ms: sorted.length ? nearestRank(sorted, 99) : Number.NaN,
    appendP50Ms: appendMs.length ? nearestRank(appendMs, 50) : Number.NaN,
    appendP99Ms: appendMs.length ? nearestRank(appendMs, 99) : Number.NaN,
    appendTotalMs: appendMs.reduce((a, b) => a + b, 0),
    appendMaxMs: appendMs.at(-1) ?? Number.NaN,
    appends: appendMs.length,
    completed: summary.completed,
    verified: summary.verify?.passed ?? 0,
    patches,
  };
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const n = options.quick ? 100 : 1000;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-harness-'));
  const repo = path.join(work, 'repo');
  fs.cpSync(path.join(ROOT, 'demo/sample-project'), repo, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  const cassetteDir = path.join(ROOT, 'cassettes/demo');
  const cassette = loadCassette(cassetteDir);
  const format = cassette.manifest.format as ProviderFormat;
  const server = await startReplayThread(cassetteDir);
  const { origin } = server;
  const setup: LineSetup = { provider: { format, model: cassette.manifest.model ?? 'replay', baseUrl: baseUrlForOrigin(format, origin), apiKey: 'replay' }, approval: 'auto' };
  const harness = await oneBatch(work, 'harness', n, setup, { isolate: 'worktree', verify: 'node test.js' });
  // The same batch with the pool threads forking the whole process for every git, bash and verify child (before the spawn helper).
  const direct = await oneBatch(work, 'direct', n, setup, { isolate: 'worktree', verify: 'node test.js' }, false);
  // Checked before the plain batch, which edits the repository in place (that is what isolation prevents).
  const clean = git('status', '--porcelain') === '';
  const plain = await oneBatch(work, 'plain', n, setup, undefined);
  await server.close();
  const strays =
    git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length - 1;
  fs.rmSync(work, { recursive: true, force: true });

  const lagHarness = measurement('coordinator event-loop lag p99, --isolate worktree --verify', 'ms', [harness.lagP99Ms], false);
  const lagDirect = measurement('coordinator event-loop lag p99, --isolate worktree --verify, subprocesses forked by the pool threads (no spawn helper)', 'ms', [direct.lagP99Ms], false);
  const idleDirect = measurement('idle thread event-loop lag p99 during the batch without spawn helper (machine floor)', 'ms', [direct.idleP99Ms], false);
  const lagPlain = measurement('coordinator event-loop lag p99, plain batch (peer)', 'ms', [plain.lagP99Ms], false);
  const idleHarness = measurement('idle thread event-loop lag p99 during the harness batch (machine floor)', 'ms', [harness.idleP99Ms], false);
  const writeHarness = measurement('record-write lag p99, --isolate worktree --verify', 'ms', [harness.writeLagP99Ms], false);
  const writePlain = measurement('record-write lag p99, plain batch (peer)', 'ms', [plain.writeLagP99Ms], false);
  return {
    name: 'batch-harness',
    title: `batch as a harness: ${n.toLocaleString('en')} lines with --isolate worktree and --verify at concurrency ${CONCURRENCY}`,
    description:
      'Coordinator event-loop p99 lag and record-write lag (line closed to record appended) of a batch whose lines each get a git worktree, a verify command and a patch, against the same batch without them. Targets: both p99 < 50 ms.',
    measurements: [
      lagHarness,
      lagDirect,
      lagPlain,
      idleHarness,
      idleDirect,
      writeHarness,
      writePlain,
      measurement('coordinator time inside a record write call p99, --isolate worktree --verify', 'ms', [harness.appendP99Ms], false),
      measurement('lines per second, --isolate worktree --verify', 'lines/s', [(n * 1000) / harness.wallMs]),
      measurement('lines per second, plain batch (peer)', 'lines/s', [(n * 1000) / plain.wallMs]),
    ],
    ratios: [
      ratio('event-loop lag p99: harness / plain', lagHarness, lagPlain),
      ratio('event-loop lag p99: harness with spawn helper / without', lagHarness, lagDirect),
      ratio('event-loop lag p99: harness coordinator / idle thread (same window)', lagHarness, idleHarness),
      { label: 'event-loop lag p99 above the idle floor, with isolation and verify (ms), target <= 50', value: harness.lagP99Ms - harness.idleP99Ms, target: { op: '<=', value: 50 }, unit: 'ms' },
      { label: 'event-loop lag p99 with isolation and verify (ms), target <= 50', value: harness.lagP99Ms, target: { op: '<=', value: 50 }, unit: 'ms' },
      { label: 'record-write lag p99 with isolation and verify (ms), target <= 50', value: harness.writeLagP99Ms, target: { op: '<=', value: 50 }, unit: 'ms' },
    ],
    notes: [
      `harness: ${harness.completed} completed, ${harness.verified} verified, ${harness.patches} patches, lag max ${harness.lagMaxMs.toFixed(0)} ms, wall ${(harness.wallMs / 1000).toFixed(1)} s`,
      `coordinator record write calls (fs.write/fs.writeSync): ${harness.appends}, time inside one p50 ${harness.appendP50Ms.toFixed(3)} ms, p99 ${harness.appendP99Ms.toFixed(2)} ms, longest ${harness.appendMaxMs.toFixed(2)} ms, all together ${harness.appendTotalMs.toFixed(0)} ms (plain batch: ${plain.appends} calls, p50 ${plain.appendP50Ms.toFixed(3)} ms, p99 ${plain.appendP99Ms.toFixed(2)} ms, longest ${plain.appendMaxMs.toFixed(2)} ms, together ${plain.appendTotalMs.toFixed(0)} ms)`,
      `harness without spawn helper: ${direct.completed} completed, ${direct.verified} verified, ${direct.patches} patches, lag max ${direct.lagMaxMs.toFixed(0)} ms, record-write lag p99 ${direct.writeLagP99Ms.toFixed(1)} ms, wall ${(direct.wallMs / 1000).toFixed(1)} s`,
      `plain: ${plain.completed} completed, lag max ${plain.lagMaxMs.toFixed(0)} ms, idle-thread lag p99 ${plain.idleP99Ms.toFixed(0)} ms, wall ${(plain.wallMs / 1000).toFixed(1)} s`,
      `one batch of each (a 1,000-line batch is minutes here): harness, harness without spawn helper, plain; after the harness batches: repository ${clean ? 'untouched' : 'MODIFIED'}, ${strays} stray worktree(s)`,
      `${defaultMaxThreads()} pool thread(s); load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    ],
  };
}

await runIfMain(import.meta.url, run);
