/**
 * bench/pool-sizes: where the worker pool pays. For transcripts of growing size (real source
 * files cycled into tool results, as bench/offload builds them) and for single texts, the same
 * work is done on the main thread (the pure functions called directly) and through the warm
 * pool (`estimateContextInPool`, `compactInPool`, `countTokensExact`). Reported per size: the
 * longest stall of the main thread's event loop for each path (what a stream, a timer or the
 * progress line waits), its total busy time (event-loop utilisation) and the wall time. The
 * pool path pays once the in-process stall passes what the loop can afford (the pool's lag
 * target is 20 ms) while the pool path's own stalls (one encoding slice, the answer's decoding)
 * stay below it; a cold pool adds its start-up (~100 ms, measured here too) to the first task.
 * The floor is the main thread doing the work itself.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateFixedTokens, estimateMessagesTokens } from '../lib/control/estimate.js';
import { countBounded } from '../lib/control/exact-count.js';
import { foldTranscript } from '../lib/control/fold.js';
import { compactInPool, countTokensExact, estimateContextInPool } from '../lib/control/offload.js';
import { closePool } from '../lib/control/pool.js';
import type { FixedContext, TranscriptMessage } from '../lib/control/transcript.js';
import { measurement, median, type BenchOptions, type BenchReport, type Measurement, runIfMain } from './harness.js';
import { buildTranscript } from './offload.js';

const fixed: FixedContext = {
  system: 'You are a coding agent.',
  toolSchemas: ['{"name":"read_file","parameters":{"type":"object"}}'],
};

/**
 * Main-thread busy ms (event-loop utilisation), longest stall (the latest a 1 ms timer fired:
 * in-process work is one stall, the pool path stalls only for one encoding slice or the
 * decoding of the answer) and wall ms of `work`.
 */
async function cost(work: () => unknown): Promise<{ busy: number; stall: number; wall: number }> {
  let stall = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last - 1);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 2));
  last = performance.now();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  await new Promise((r) => setImmediate(r));
  stall = Math.max(stall, performance.now() - last - 1);
  clearInterval(timer);
  return { busy: elu.active, stall: Math.max(0, stall), wall };
}

function charsOf(messages: readonly TranscriptMessage[]): number {
  let n = 0;
  for (const m of messages) n += m.role === 'tool' ? m.content.length : m.text.length;
  return n;
}

/** The first messages of `all` holding about `chars` characters. */
function prefix(all: readonly TranscriptMessage[], chars: number): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  let n = 0;
  for (const m of all) {
    if (n >= chars) break;
    out.push(m);
    n += m.role === 'tool' ? m.content.length : m.text.length;
  }
  return out;
}

const count = (t: string): number => countBounded(t, countTokens);

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const rounds = options.quick ? 3 : 5;
  const sizes = options.quick ? [16, 64, 256, 512, 1024] : [16, 64, 256, 512, 1024, 4096];
  const all = buildTranscript(sizes[sizes.length - 1]! * 1024 * 1.1);
  const measurements: Measurement[] = [];
  const notes: string[] = [];

  // Cold start: a fresh pool's first answer to a tiny task.
  const cold: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await closePool();
    cold.push((await cost(() => countTokensExact('warm up'))).wall);
  }
  measurements.push(measurement('cold pool: first tiny task, wall', 'ms', cold, false));

  for (const kib of sizes) {
    const messages = prefix(all, kib * 1024);
    const label = `${(charsOf(messages) / 1024).toFixed(0)} Ki chars`;
    const rows: Record<string, { busy: number[]; stall: number[]; wall: number[] }> = {};
    const add = (key: string, c: { busy: number; stall: number; wall: number }): void => {
      rows[key] ??= { busy: [], stall: [], wall: [] };
      rows[key].busy.push(c.busy);
      rows[key].stall.push(c.stall);
      rows[key].wall.push(c.wall);
    };
    for (let r = 0; r < rounds; r++) {
      add('heuristic estimate, main', await cost(() => estimateFixedTokens(fixed) + estimateMessagesTokens(messages)));
      add('heuristic estimate, pool', await cost(() => estimateContextInPool(fixed, messages)));
      add('fold, main', await cost(() => foldTranscript(messages, { keepRecentUnits: 4, targetTokens: 4_000 })));
      add('fold, pool', await cost(() => compactInPool(messages, { keepRecentUnits: 4, targetTokens: 4_000 })));
      add(
        'exact count, main',
        await cost(() => messages.reduce((a, m) => a + count(m.role === 'tool' ? m.content : m.text), 0)),
      );
      add('exact count, pool', await cost(() => estimateContextInPool(fixed, messages, { mode: 'exact' })));
    }
    for (const [key, v] of Object.entries(rows)) {
      measurements.push(measurement(`${label}: ${key}, main-thread busy`, 'ms', v.busy, false));
      measurements.push(measurement(`${label}: ${key}, longest main-thread stall`, 'ms', v.stall, false));
      measurements.push(measurement(`${label}: ${key}, wall`, 'ms', v.wall, false));
    }
    const pair = (what: string, k: string): string => {
      const m = (key: string, f: 'busy' | 'stall'): string => median(rows[key]![f]).toFixed(1);
      return `${what} ${m(`${k}, main`, 'stall')} / ${m(`${k}, pool`, 'stall')} ms (busy ${m(`${k}, main`, 'busy')} / ${m(`${k}, pool`, 'busy')})`;
    };
    notes.push(
      `${label}: longest stall in-process / through the pool: ${pair('heuristic', 'heuristic estimate')}, ${pair('fold', 'fold')}, ${pair('exact', 'exact count')}`,
    );
  }
  await closePool();
  notes.push(
    `Load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.availableParallelism()} cores (shared machine).`,
  );
  return {
    name: 'pool-sizes',
    title: 'Where the worker pool pays: main-thread busy time in-process vs through the pool, by transcript size',
    description:
      'Heuristic estimate, mechanical fold and exact o200k count of transcript prefixes built from real files; busy = event-loop utilisation of the main thread.',
    measurements,
    ratios: [],
    notes,
  };
}

await runIfMain(import.meta.url, run);
