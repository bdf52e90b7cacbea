/**
 * Paired A/B of the end-to-end pipeline across two builds, for performance work on a shared,
 * noisy machine: both builds run in ONE process, rounds interleaved (A B, B A, ...), so a
 * noisy neighbour slows both alike. Each side has its own corpus, store and modules (its
 * `bench/dist/`); the figure to read is the median of the per-round ratios B / A.
 *
 *   node bench/dist/bench/support/ab-pipeline.js <root A> <root B> [--full] [--rounds N] [--events N] [--long RECORDS] [--lanes N] [--no-store]
 *
 * A root is a checkout with a compiled bench package (e.g. `git archive main | tar -x -C /tmp/a`,
 * a `node_modules` symlink and `npx tsc -p bench` there). Without `--full` decode is replaced by
 * pre-decoded drafts, so only scrub -> envelope -> reduce -> render -> store is timed. With
 * `--long` the corpus is the long session of bench/pipeline.ts (one seeded Codex stream of that
 * many records) instead of the replicated recordings. Both sides take the corpus B's modules
 * build (the same bytes in the same reads), so a change in how the corpus is cut is measured on
 * both sides alike. `--lanes N` runs N sessions at once, each awaited to the store's
 * acknowledgement (bench/pipeline.ts's many-sessions shape is `--full --lanes 4`); `--no-store`
 * leaves the store out, so only what the main thread does is timed.
 * Set MINICODE_FIXTURES when a root has no `../shared/fixtures` beside it.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PipelineVariant } from '../pipeline.js';
import type { PipelineCorpus } from '../../test/corpus/pipeline-corpus.js';
import type { EventStore } from '../../lib/store/index.js';
import { abRoots, median, option } from './ab-args.js';

interface Side {
  name: string;
  runVariant: (
    corpus: PipelineCorpus,
    variant: PipelineVariant,
    store: EventStore,
    lanes?: number,
  ) => Promise<{ ms: number }>;
  runFloor: (corpus: PipelineCorpus) => { ms: number };
  corpus: PipelineCorpus;
  store: { store: EventStore; dispose: () => Promise<void> };
  ms: number[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roots = abRoots(
    args,
    ['--rounds', '--events', '--long', '--lanes'],
    'ab-pipeline.js <root A> <root B> [--full] [--rounds N] [--events N] [--long RECORDS] [--lanes N] [--no-store]',
  );
  const full = args.includes('--full');
  const rounds = option(args, '--rounds', 9);
  const events = option(args, '--events', 50_000);
  const longRecords = option(args, '--long', 0);
  const lanes = option(args, '--lanes', 1);
  const store = !args.includes('--no-store');
  const label = `${full ? 'full' : 'pre-decoded'}${store ? '' : ', no store'}${lanes > 1 ? `, ${lanes} lanes` : ''}`;
  const variant: PipelineVariant = { label, decode: full, scrub: 'full', render: true, store };
  const corpora = (await import(
    pathToFileURL(path.resolve(roots[1] as string, 'bench/dist/test/corpus/pipeline-corpus.js')).href
  )) as typeof import('../../test/corpus/pipeline-corpus.js');
  const corpus =
    longRecords > 0
      ? corpora.buildLongSessionCorpus({ records: longRecords })
      : corpora.buildPipelineCorpus({ minEvents: events });
  const sides: Side[] = [];
  for (const root of roots) {
    const bench = (await import(
      pathToFileURL(path.resolve(root as string, 'bench/dist/bench/pipeline.js')).href
    )) as typeof import('../pipeline.js');
    sides.push({
      name: root as string,
      runVariant: bench.runVariant,
      runFloor: bench.runFloor,
      corpus,
      store: bench.temporaryStore(),
      ms: [],
    });
  }
  const [a, b] = sides as [Side, Side];
  const floor: number[] = [];
  // Round 0 warms both up and is not recorded.
  for (let r = 0; r <= rounds; r++) {
    for (const side of r % 2 === 0 ? [a, b] : [b, a]) {
      const res = await side.runVariant(side.corpus, variant, side.store.store, lanes);
      if (r > 0) side.ms.push(res.ms);
    }
    const f = b.runFloor(b.corpus);
    if (r > 0) floor.push(f.ms);
  }
  for (const side of sides) await side.store.dispose();
  const mb = b.corpus.totalBytes / 1e6;
  for (const [label, side] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const m = median(side.ms);
    console.log(
      `${label} ${side.name}: ${variant.label} median ${m.toFixed(0)} ms (${(mb / (m / 1000)).toFixed(1)} MB/s), min ${Math.min(...side.ms).toFixed(0)} ms; floor / this ${(median(floor) / m).toFixed(3)}`,
    );
  }
  console.log(
    `B / A time, median of per-round ratios: ${median(b.ms.map((t, i) => t / (a.ms[i] as number))).toFixed(3)} (${rounds} rounds, ${b.corpus.totalEvents} events, ${mb.toFixed(1)} MB; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})`,
  );
}

await main();
