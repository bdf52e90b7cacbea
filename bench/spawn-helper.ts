/**
 * bench/spawn-helper: what a subprocess spawned by a worker thread costs the main thread of a
 * large process, and what the spawn helper (lib/spawn-helper) saves. On Linux, Node 20's libuv
 * (1.46) starts a child with fork (strace: `clone(... SIGCHLD)`, no CLONE_VM/vfork, whatever
 * the `child_process` options): the kernel copies the parent's page tables while holding its
 * memory map lock, and every thread of the parent that faults a page or maps memory in that
 * window waits, the main thread included.
 *
 * The process holds ~300 MB (off-heap buffers touched page by page and a JS heap of small
 * objects, as a batch of many runs does); two worker threads each keep 8 spawns of `true` in
 * flight (16 at once, as a batch at concurrency 16 does): directly from the thread (the peer),
 * or through each thread's spawn helper process. The floor is the same main thread with the
 * threads idle. Rounds interleaved (floor, direct, helper, ...), medians of the main thread's
 * event-loop p99 lag (`monitorEventLoopDelay`) and of spawns per second.
 */
import os from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { measurement, ratio, runIfMain, type BenchOptions, type BenchReport } from './harness.js';

const THREADS = 2;
const WIDTH_PER_THREAD = 8;
const BALLAST_MB = 200;

/** A worker thread that spawns `true` `n` times, `width` at a time, directly or through its helper. */
const CODE = `
const { spawn } = require('node:child_process');
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { mode, n, width, clientUrl } = workerData;
  const helper = mode === 'helper' ? (await import(clientUrl)).createSpawnHelper() : undefined;
  const start = helper ? helper.spawn : (command, args, options) => spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const one = () => new Promise((resolve, reject) => {
    const child = start('true', [], { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', resolve);
  });
  let left = n;
  await Promise.all(Array.from({ length: width }, async () => { while (left-- > 0) await one(); }));
  await helper?.close();
  parentPort.postMessage('done');
})();
`;

interface Round {
  lagP99Ms: number;
  spawnsPerSecond: number;
}

async function round(mode: 'idle' | 'direct' | 'helper', spawnsPerThread: number, idleMs: number): Promise<Round> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const clientUrl = new URL('../lib/spawn-helper/client.js', import.meta.url).href;
  lag.enable();
  const t0 = performance.now();
  if (mode === 'idle') await new Promise((resolve) => setTimeout(resolve, idleMs));
  else
    await Promise.all(
      Array.from(
        { length: THREADS },
        () =>
          new Promise<void>((resolve, reject) => {
            const worker = new Worker(CODE, { eval: true, workerData: { mode, n: spawnsPerThread, width: WIDTH_PER_THREAD, clientUrl } });
            worker.once('message', () => void worker.terminate().then(() => resolve()));
            worker.once('error', reject);
          }),
      ),
    );
  const ms = performance.now() - t0;
  lag.disable();
  return { lagP99Ms: lag.percentile(99) / 1e6, spawnsPerSecond: mode === 'idle' ? Number.NaN : (THREADS * spawnsPerThread * 1000) / ms };
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const rounds = options.quick ? 2 : 5;
  const spawnsPerThread = options.quick ? 100 : 250;
  // The large process: pages really touched (fork copies the page tables of what is mapped and resident).
  const ballast = Array.from({ length: BALLAST_MB / 10 }, () => Buffer.alloc(10 * 1024 * 1024, 1));
  const objects = Array.from({ length: 1_000_000 }, (_, i) => ({ i, s: `x${i}`, a: [i, i + 1] }));
  const rssMb = process.memoryUsage().rss / 1e6;
  const results: Record<'idle' | 'direct' | 'helper', Round[]> = { idle: [], direct: [], helper: [] };
  await round('helper', 20, 0); // warm-up: the helper's first start, the thread code
  for (let r = 0; r < rounds; r++) {
    // The floor round lasts about as long as a helper round.
    results.idle.push(await round('idle', spawnsPerThread, 2000));
    results.direct.push(await round('direct', spawnsPerThread, 0));
    results.helper.push(await round('helper', spawnsPerThread, 0));
  }
  const kept = ballast.length + objects.length;
  const lagIdle = measurement(
    'main-thread lag p99, threads idle (floor)',
    'ms',
    results.idle.map((r) => r.lagP99Ms),
    false,
  );
  const lagDirect = measurement(
    'main-thread lag p99, threads spawn directly (peer)',
    'ms',
    results.direct.map((r) => r.lagP99Ms),
    false,
  );
  const lagHelper = measurement(
    'main-thread lag p99, threads spawn through their spawn helper',
    'ms',
    results.helper.map((r) => r.lagP99Ms),
    false,
  );
  const rateDirect = measurement(
    'spawns per second, directly from the threads',
    'spawns/s',
    results.direct.map((r) => r.spawnsPerSecond),
  );
  const rateHelper = measurement(
    'spawns per second, through the spawn helpers',
    'spawns/s',
    results.helper.map((r) => r.spawnsPerSecond),
  );
  return {
    name: 'spawn-helper',
    title: `subprocesses of worker threads in a ${rssMb.toFixed(0)} MB process: forked by the process vs by a spawn helper`,
    description:
      'Main-thread event-loop p99 lag while two worker threads keep 16 spawns of `true` in flight, directly (libuv forks the whole process) or through a small helper process each; floor: the same thread with the workers idle. Interleaved rounds, medians.',
    measurements: [lagIdle, lagDirect, lagHelper, rateDirect, rateHelper],
    ratios: [
      ratio('main-thread lag p99: direct / helper', lagDirect, lagHelper),
      ratio('main-thread lag p99: helper / idle floor', lagHelper, lagIdle),
      ratio('spawns per second: helper / direct', rateHelper, rateDirect),
    ],
    notes: [
      `${rounds} interleaved rounds of ${THREADS * spawnsPerThread} spawns each; process RSS ${rssMb.toFixed(0)} MB (${kept.toLocaleString('en')} objects and buffers kept)`,
      `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    ],
  };
}

await runIfMain(import.meta.url, run);
