/**
 * Would decode + scrub on a worker thread pay for a long `ingest`? Both ways in one process,
 * rounds interleaved, on one seeded Codex stream (codex-stream.ts):
 *  - single thread: `runIngest`, as `minicode ingest FILE --json --store DIR` runs;
 *  - worker: a worker thread (one for every round, so its code is as warm as the main thread's)
 *    reads, decodes and scrubs (worker-ingest-thread.ts) and posts each read's drafts, at most
 *    two reads ahead, into the entry of `createRunPipeline` (envelope, reduce, JSONL render,
 *    store on the main thread).
 * Both give the same JSONL text (checked on the first round). Reported per way: wall time and
 * the process's CPU time (every thread: `process.cpuUsage`), medians, and the median of the
 * per-round ratios worker / single. Not part of the suite: it answers one design question, and
 * the answer depends on how many cores are free (print the load average with it).
 *
 *   node bench/dist/bench/support/worker-ingest.js [--records N] [--rounds N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EventDraft } from '../../lib/events/index.js';
import { createRunPipeline } from '../../lib/pipeline/compose.js';
import { INGEST_READ_BYTES, runIngest } from '../../lib/pipeline/ingest.js';
import { createRenderer } from '../../lib/render/index.js';
import { openStore } from '../../lib/store/index.js';
import { median } from '../harness.js';
import { writeCodexStream } from '../../test/corpus/codex-stream.js';

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/** One ingest of `file`; returns the JSONL text it printed. */
async function ingestOnce(
  file: string,
  way: 'single' | 'worker',
  dir: string,
  worker: Worker,
): Promise<{ text: string }> {
  const store = openStore({ dir });
  const parts: string[] = [];
  const renderer = createRenderer('jsonl', { out: (t) => void parts.push(t) });
  // A fixed clock so that both ways print the same text.
  let now = Date.UTC(2026, 0, 1);
  const clock = (): number => (now += 7);
  const sessionId = 'ses_worker_ingest';
  try {
    if (way === 'single') {
      await runIngest({
        input: fs.createReadStream(file, { highWaterMark: INGEST_READ_BYTES }),
        format: 'codex',
        sessionId,
        clock,
        renderer,
        store,
      });
    } else {
      // The worker scrubbed the drafts already.
      const run = createRunPipeline({
        sessionId,
        clock,
        scrubber: { push: (d) => [d], end: () => [] },
        renderer,
        store,
      });
      await new Promise<void>((resolve, reject) => {
        const onMessage = (m: { drafts: EventDraft[]; end: boolean }): void => {
          const wait = run.write(m.drafts);
          const next = (): void => {
            if (!m.end) worker.postMessage({ type: 'ack' });
            else {
              worker.off('message', onMessage);
              worker.off('error', reject);
              resolve();
            }
          };
          if (wait) wait.then(next, reject);
          else next();
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
        worker.postMessage({ type: 'run', file, format: 'codex' });
      });
      await run.finish();
    }
  } finally {
    await store.close();
  }
  return { text: parts.join('') };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const records = option(args, '--records', 30_000);
  const rounds = option(args, '--rounds', 7);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-worker-ingest-'));
  const file = path.join(tmp, 'codex.jsonl');
  const bytes = await writeCodexStream(file, { records });
  const ways = ['single', 'worker'] as const;
  const wall: Record<string, number[]> = { single: [], worker: [] };
  const cpu: Record<string, number[]> = { single: [], worker: [] };
  let round = 0;
  const worker = new Worker(new URL('./worker-ingest-thread.js', import.meta.url), { workerData: { credit: 2 } });
  try {
    // Round 0 warms both up and checks that they print the same text.
    for (let r = 0; r <= rounds; r++) {
      const texts: string[] = [];
      for (const way of r % 2 === 0 ? ways : [...ways].reverse()) {
        const dir = path.join(tmp, `store-${round++}`);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const { text } = await ingestOnce(file, way, dir, worker);
        const ms = performance.now() - t0;
        const c = process.cpuUsage(c0);
        fs.rmSync(dir, { recursive: true, force: true });
        if (r === 0) texts.push(text);
        else {
          (wall[way] as number[]).push(ms);
          (cpu[way] as number[]).push((c.user + c.system) / 1000);
        }
      }
      if (r === 0 && texts[0] !== texts[1]) throw new Error('the two ways printed different JSONL');
    }
  } finally {
    await worker.terminate();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const mb = bytes / 1e6;
  for (const way of ways) {
    const w = median(wall[way] as number[]);
    const c = median(cpu[way] as number[]);
    console.log(
      `${way}: wall ${w.toFixed(0)} ms (${(mb / (w / 1000)).toFixed(1)} MB/s), process CPU ${c.toFixed(0)} ms (${(c / mb).toFixed(1)} ms/MB)`,
    );
  }
  const ratios = (x: Record<string, number[]>): number =>
    median((x.worker as number[]).map((v, i) => v / ((x.single as number[])[i] as number)));
  console.log(
    `worker / single, median of per-round ratios: wall ${ratios(wall).toFixed(3)}, CPU ${ratios(cpu).toFixed(3)} (${rounds} rounds, ${records} records, ${mb.toFixed(1)} MB; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}, ${os.availableParallelism()} cores)`,
  );
}

await main();
