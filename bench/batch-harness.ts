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
 * The peer is the same batch without isolation and verify (plain `batch`), run after it in
 * the same process: the ratio says what the harness adds to the coordinator's lag. The floor is
 * an idle thread's lag over the same window (bench/support/idle-lag.ts), at the coordinator's
 * priority: on a shared machine the scheduler alone delays a waking thread by tens of ms.
 *
 * The harness batch runs with the pool threads (and so every subprocess they start) at the
 * batch's default nice value and at 0 (the coordinator's), interleaved (lib/batch/nice.ts): on
 * 2 cores the batch itself loads the machine to 8-11, and the nice value decides whether the
 * kernel wakes the coordinator ahead of that work.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ProviderFormat } from '../lib/agent/conversation.js';
import { baseUrlForOrigin } from '../lib/decode/formats.js';
import { runLocalBatch } from '../lib/batch/batch.js';
import type { HarnessOptions } from '../lib/batch/harness.js';
import { parseBatchInput } from '../lib/batch/input.js';
import { nearestRank } from '../lib/batch/latency.js';
import { createPoolRunners, tasksPerThreadFor } from '../lib/batch/pool-runners.js';
import { DEFAULT_POOL_NICE } from '../lib/batch/nice.js';
import { createProgress } from '../lib/batch/progress.js';
import type { LineSetup } from '../lib/batch/run-line.js';
import { providerSettings } from '../lib/agent/provider-settings.js';
import { runLimits } from '../lib/agent/run-limits.js';
import { toolEnvironment } from '../lib/agent/tool-environment.js';
import { promptSettings } from '../lib/agent/prompt-settings.js';
import { configurePool, defaultMaxThreads } from '../lib/control/pool.js';
import { loadCassette } from '../lib/replay/cassette.js';
import { openStore } from '../lib/store/index.js';
import { measurement, ratio, runIfMain, type BenchOptions, type BenchReport } from './harness.js';
import { startIdleLag } from './support/idle-lag.js';
import { startReplayThread } from './support/replay-on-thread.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);
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
  /** Nice values the pool threads ran at, and the idle (floor) thread's. */
  poolNice: string;
  idleNice: string;
}

/** How one batch of the benchmark runs: its pool threads' nice value. */
interface Variant {
  nice: number;
}

async function oneBatch(
  work: string,
  name: string,
  n: number,
  setup: LineSetup,
  harness: HarnessOptions | undefined,
  variant: Variant,
): Promise<BatchFigures> {
  const input = parseBatchInput(
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: `${name}-${i}`, prompt: 'Fix the failing test in this project', cwd: 'repo' }),
    ).join('\n'),
  );
  const outDir = path.join(work, `out-${name}`);
  const store = openStore({ dir: path.join(work, `store-${name}`) });
  const poolThreads = defaultMaxThreads();
  configurePool({ maxThreads: poolThreads, concurrentTasksPerWorker: tasksPerThreadFor(CONCURRENCY, poolThreads) });
  const runners = createPoolRunners({ storeDir: path.join(work, `store-${name}`), nice: variant.nice });
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
  const threads = await runners.close();
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
    poolNice: [...new Set(threads.map((t) => t.nice ?? '?'))].join('/'),
    idleNice: String(idleLag.nice ?? '?'),
  };
}

/** `--name value` from the command line (the benchmark run directly), else undefined. */
function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/**
 * Run the benchmark. Run directly it takes `--lines N` (default 1,000; quick 100), `--nice
 * A,B,...` (the pool threads' nice values to compare, interleaved; default the batch's default
 * and 0), `--rounds R` (default 1) and `--harness-only` (no peers: the no-helper and plain batches).
 */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const n = Number(arg('--lines') ?? (options.quick ? 100 : 1000));
  const nices = (arg('--nice') ?? `${DEFAULT_POOL_NICE},0`).split(',').map(Number);
  const rounds = Number(arg('--rounds') ?? 1);
  const peers = !process.argv.includes('--harness-only');
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
  const isolated: HarnessOptions = { isolate: 'worktree', verify: 'node test.js' };
  // Interleaved rounds, the order reversed every other round: drift in the machine's load falls on every variant alike.
  const byNice = new Map<number, BatchFigures[]>(nices.map((v) => [v, []]));
  for (let r = 0; r < rounds; r++) {
    for (const v of r % 2 === 0 ? nices : [...nices].reverse())
      byNice.get(v)!.push(await oneBatch(work, `harness-n${v}-r${r}`, n, setup, isolated, { nice: v }));
  }
  const mainNice = nices[0]!;
  // Checked before the plain batch, which edits the repository in place (that is what isolation prevents).
  const clean = git('status', '--porcelain') === '';
  const strays =
    git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length - 1;
  const plain = peers ? await oneBatch(work, 'plain', n, setup, undefined, { nice: mainNice }) : undefined;
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });

  const at = (v: number): string => `pool threads at nice ${v}`;
  const of = (v: number, f: (b: BatchFigures) => number): number[] => byNice.get(v)!.map(f);
  const measurements: BenchReport['measurements'] = [];
  const lag = new Map<number, ReturnType<typeof measurement>>();
  const lps = new Map<number, ReturnType<typeof measurement>>();
  for (const v of nices) {
    lag.set(
      v,
      measurement(
        `coordinator event-loop lag p99, --isolate worktree --verify, ${at(v)}`,
        'ms',
        of(v, (b) => b.lagP99Ms),
        false,
      ),
    );
    measurements.push(lag.get(v)!);
    measurements.push(
      measurement(
        `idle thread event-loop lag p99 (machine floor, coordinator's priority), ${at(v)}`,
        'ms',
        of(v, (b) => b.idleP99Ms),
        false,
      ),
    );
    measurements.push(
      measurement(
        `record-write lag p99, --isolate worktree --verify, ${at(v)}`,
        'ms',
        of(v, (b) => b.writeLagP99Ms),
        false,
      ),
    );
    measurements.push(
      measurement(
        `coordinator time inside a record write call p99, ${at(v)}`,
        'ms',
        of(v, (b) => b.appendP99Ms),
        false,
      ),
    );
    lps.set(
      v,
      measurement(
        `lines per second, --isolate worktree --verify, ${at(v)}`,
        'lines/s',
        of(v, (b) => (n * 1000) / b.wallMs),
      ),
    );
    measurements.push(lps.get(v)!);
  }
  const lagMain = lag.get(mainNice)!;
  const ratios: BenchReport['ratios'] = [];
  for (const v of nices.slice(1)) {
    ratios.push(ratio(`event-loop lag p99: nice ${mainNice} / nice ${v}`, lagMain, lag.get(v)!));
    ratios.push(ratio(`lines per second: nice ${mainNice} / nice ${v}`, lps.get(mainNice)!, lps.get(v)!));
  }
  const notes: string[] = [];
  if (plain) {
    const lagPlain = measurement(
      `coordinator event-loop lag p99, plain batch (peer), ${at(mainNice)}`,
      'ms',
      [plain.lagP99Ms],
      false,
    );
    const writePlain = measurement('record-write lag p99, plain batch (peer)', 'ms', [plain.writeLagP99Ms], false);
    measurements.push(
      lagPlain,
      writePlain,
      measurement('lines per second, plain batch (peer)', 'lines/s', [(n * 1000) / plain.wallMs]),
    );
    ratios.push(ratio('event-loop lag p99: harness / plain', lagMain, lagPlain));
    notes.push(
      `plain: ${plain.completed} completed, lag max ${plain.lagMaxMs.toFixed(0)} ms, idle-thread lag p99 ${plain.idleP99Ms.toFixed(1)} ms, wall ${(plain.wallMs / 1000).toFixed(1)} s`,
    );
  }
  ratios.push(
    ratio(
      `event-loop lag p99: harness coordinator / idle thread (same window), nice ${mainNice}`,
      lagMain,
      measurements.find((m) => m.label.startsWith('idle thread') && m.label.endsWith(at(mainNice)))!,
    ),
  );
  const lagP99 = median(of(mainNice, (b) => b.lagP99Ms));
  const idleP99 = median(of(mainNice, (b) => b.idleP99Ms));
  const writeP99 = median(of(mainNice, (b) => b.writeLagP99Ms));
  ratios.push(
    {
      label: `event-loop lag p99 above the idle floor, with isolation and verify, nice ${mainNice} (ms), target <= 50`,
      value: lagP99 - idleP99,
      target: { op: '<=', value: 50 },
      unit: 'ms',
    },
    {
      label: `event-loop lag p99 with isolation and verify, nice ${mainNice} (ms), target <= 50`,
      value: lagP99,
      target: { op: '<=', value: 50 },
      unit: 'ms',
    },
    {
      label: `record-write lag p99 with isolation and verify, nice ${mainNice} (ms), target <= 50`,
      value: writeP99,
      target: { op: '<=', value: 50 },
      unit: 'ms',
    },
  );
  for (const v of nices) {
    for (const [r, b] of byNice.get(v)!.entries()) {
      notes.push(
        `harness at nice ${v}, round ${r + 1}: ${b.completed} completed, ${b.verified} verified, ${b.patches} patches; lag p99 ${b.lagP99Ms.toFixed(1)} ms, max ${b.lagMaxMs.toFixed(0)} ms, idle p99 ${b.idleP99Ms.toFixed(1)} ms; record writes ${b.appends}, inside one p50 ${b.appendP50Ms.toFixed(3)} ms, p99 ${b.appendP99Ms.toFixed(2)} ms, longest ${b.appendMaxMs.toFixed(1)} ms, together ${b.appendTotalMs.toFixed(0)} ms; wall ${(b.wallMs / 1000).toFixed(1)} s; pool threads at nice ${b.poolNice}, idle thread at nice ${b.idleNice}`,
      );
    }
  }
  notes.push(
    `${rounds} round(s) of ${nices.length} harness batch(es), interleaved${peers ? ', then one plain' : ''}; after the harness batches: repository ${clean ? 'untouched' : 'MODIFIED'}, ${strays} stray worktree(s)`,
    `${defaultMaxThreads()} pool thread(s); coordinator at nice ${os.getPriority(0)}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
  );
  return {
    name: 'batch-harness',
    title: `batch as a harness: ${n.toLocaleString('en')} lines with --isolate worktree and --verify at concurrency ${CONCURRENCY}`,
    description:
      "Coordinator event-loop p99 lag and record-write lag (line closed to record appended) of a batch whose lines each get a git worktree, a verify command and a patch, with the pool threads (and their subprocesses) at the batch's default nice value and at the coordinator's, against the same batch without them. Targets: both p99 < 50 ms.",
    measurements,
    ratios,
    notes,
  };
}

await runIfMain(import.meta.url, run);
