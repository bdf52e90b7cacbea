/**
 * bench/offload: event-loop health while a 5 MB transcript is estimated exactly (o200k) and
 * compacted. The same work runs (a) in the Piscina pool (`estimateContextInPool` +
 * `compactInPool`, bytes moved to the worker) and (b) on the main thread (the same pure
 * functions called directly). A 1 ms interval timer on the main thread records how late each
 * tick fires, and `monitorEventLoopDelay` gives a second opinion; the target is a p99 lag under
 * 20 ms with the pool. The transcript is built from real files (this repo's sources and
 * node_modules JavaScript/Markdown) cycled into tool results, with prose user/assistant turns.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { countBounded } from '../lib/control/exact-count.js';
import { foldTranscript } from '../lib/control/fold.js';
import { compactInPool, countTokensExact, estimateContextInPool } from '../lib/control/offload.js';
import { closePool } from '../lib/control/pool.js';
import type { FixedContext, TranscriptMessage } from '../lib/control/transcript.js';
import { measurement, type BenchOptions, type BenchReport, runIfMain } from './harness.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = repoRoot(import.meta.url);

function sourceTexts(): string[] {
  const files: string[] = [];
  const walk = (dir: string, ext: string, limit: number): void => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (files.length >= limit) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, ext, limit);
      else if (e.name.endsWith(ext) && !e.name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(path.join(ROOT, 'lib'), '.ts', 40);
  walk(path.join(ROOT, 'node_modules/commander/lib'), '.js', 60);
  walk(path.join(ROOT, 'node_modules/zod/v4/core'), '.js', 90);
  walk(path.join(ROOT, 'node_modules/piscina/dist'), '.js', 110);
  for (const md of ['commander/Readme.md', 'semver/README.md', 'lmdb/README.md']) {
    const p = path.join(ROOT, 'node_modules', md);
    if (fs.existsSync(p)) files.push(p);
  }
  return files.map((p) => fs.readFileSync(p, 'utf8').slice(0, 60_000));
}

/** A transcript of about `targetBytes` UTF-8 bytes: user ask, assistant tool call, tool result. */
export function buildTranscript(targetBytes: number): TranscriptMessage[] {
  const texts = sourceTexts();
  const out: TranscriptMessage[] = [];
  let bytes = 0;
  for (let n = 0; bytes < targetBytes; n++) {
    const content = texts[n % texts.length] as string;
    const user = `Step ${n}: read the next file and tell me whether its error handling returns coded values instead of throwing.`;
    const assistant = `I will read file ${n} and check how errors cross the boundary, then summarise what I found.`;
    out.push({ role: 'user', text: user });
    out.push({
      role: 'assistant',
      text: assistant,
      toolCalls: [{ id: `call_${n}`, name: 'read_file', argumentsText: JSON.stringify({ path: `file-${n}` }) }],
    });
    out.push({ role: 'tool', toolCallId: `call_${n}`, content });
    bytes += Buffer.byteLength(content) + user.length + assistant.length + 120;
  }
  return out;
}

/** Exact count of a transcript on the main thread (what the worker does, called directly). */
function exactOnMain(fixed: FixedContext, messages: readonly TranscriptMessage[]): number {
  const count = (t: string): number => countBounded(t, countTokens);
  let n = (fixed.system ? 4 + count(fixed.system) : 0) + fixed.toolSchemas.reduce((a, s) => a + count(s), 0);
  for (const m of messages) {
    if (m.role === 'tool') n += 4 + count(m.content);
    else if (m.role === 'assistant')
      n += 4 + count(m.text) + (m.toolCalls ?? []).reduce((a, c) => a + 3 + count(c.name) + count(c.argumentsText), 0);
    else n += 4 + count(m.text);
  }
  return n;
}

interface LagStats {
  p99: number;
  max: number;
  histP99: number;
  elapsed: number;
}

/** Run `work` while a 1 ms timer and monitorEventLoopDelay watch the main thread. */
async function withLagMonitor(work: () => Promise<unknown>): Promise<LagStats> {
  const lags: number[] = [];
  const hist = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - 1));
    last = now;
  }, 1);
  hist.enable();
  const start = performance.now();
  // Give the timer a first tick so a synchronous start is measured, not hidden.
  await new Promise((r) => setTimeout(r, 5));
  await work();
  await new Promise((r) => setTimeout(r, 5));
  const elapsed = performance.now() - start;
  clearInterval(timer);
  hist.disable();
  // The tick right after a blocking stretch measures the whole stretch.
  lags.push(Math.max(0, performance.now() - last - 1));
  lags.sort((a, b) => a - b);
  const p99 = lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.99))] ?? 0;
  return { p99, max: lags[lags.length - 1] ?? 0, histP99: hist.percentile(99) / 1e6, elapsed };
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const rounds = options.quick ? 2 : 3;
  const messages = buildTranscript(5 * 1024 * 1024);
  const fixed: FixedContext = {
    system: 'You are a coding agent.',
    toolSchemas: ['{"name":"read_file","parameters":{"type":"object"}}'],
  };
  const mb = messages.reduce((a, m) => a + Buffer.byteLength(m.role === 'tool' ? m.content : m.text), 0) / 1e6;
  // Warm the pool (start-up is measured elsewhere; here we measure steady-state offload).
  await countTokensExact('warm up');

  const pool = { p99: [] as number[], max: [] as number[], hist: [] as number[], ms: [] as number[] };
  const idle = { p99: [] as number[], max: [] as number[] };
  const main = { p99: [] as number[], max: [] as number[], hist: [] as number[], ms: [] as number[] };
  let poolTokens = 0;
  let mainTokens = 0;
  for (let r = 0; r < rounds; r++) {
    const a = await withLagMonitor(async () => {
      const [est, folded] = await Promise.all([
        estimateContextInPool(fixed, messages, { mode: 'exact' }),
        compactInPool(messages, { keepRecentUnits: 4, targetTokens: 60_000 }),
      ]);
      if (!est.ok || !folded.ok) throw new Error('pool task failed');
      poolTokens = est.value.tokens;
    });
    pool.p99.push(a.p99);
    pool.max.push(a.max);
    pool.hist.push(a.histP99);
    pool.ms.push(a.elapsed);
    // The machine is shared: the same span with no work shows the scheduler's own noise.
    const c = await withLagMonitor(() => new Promise((res) => setTimeout(res, a.elapsed)));
    idle.p99.push(c.p99);
    idle.max.push(c.max);
    const b = await withLagMonitor(async () => {
      mainTokens = exactOnMain(fixed, messages);
      foldTranscript(messages, { keepRecentUnits: 4, targetTokens: 60_000 });
    });
    main.p99.push(b.p99);
    main.max.push(b.max);
    main.hist.push(b.histP99);
    main.ms.push(b.elapsed);
  }
  await closePool();
  const poolP99 = measurement('pool: timer lag p99', 'ms', pool.p99, false);
  const mainP99 = measurement('main thread: timer lag p99', 'ms', main.p99, false);
  return {
    name: 'offload',
    title: 'Event-loop lag while a 5 MB transcript is estimated (exact) and compacted',
    description: `${messages.length} messages, ${mb.toFixed(2)} MB of text, ${poolTokens} o200k tokens (main thread counted ${mainTokens}). Target: pool p99 < 20 ms.`,
    measurements: [
      poolP99,
      measurement('pool: timer lag max', 'ms', pool.max, false),
      measurement('pool: monitorEventLoopDelay p99', 'ms', pool.hist, false),
      measurement('pool: wall time', 'ms', pool.ms, false),
      measurement('idle baseline (no work): timer lag p99', 'ms', idle.p99, false),
      measurement('idle baseline (no work): timer lag max', 'ms', idle.max, false),
      mainP99,
      measurement('main thread: timer lag max', 'ms', main.max, false),
      measurement('main thread: monitorEventLoopDelay p99', 'ms', main.hist, false),
      measurement('main thread: wall time', 'ms', main.ms, false),
    ],
    ratios: [
      { label: 'pool p99 lag (ms)', value: poolP99.median, target: { op: '<=', value: 20 }, unit: 'ms' },
      { label: 'main-thread p99 lag / pool p99 lag', value: mainP99.median / Math.max(poolP99.median, 0.001) },
    ],
    notes: [
      'Ratios print as "x"; the first is the pool p99 lag in ms against the 20 ms target.',
      `Load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${os.availableParallelism()} cores (shared machine; see the idle baseline).`,
    ],
  };
}

await runIfMain(import.meta.url, run);
