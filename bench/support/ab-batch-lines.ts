/**
 * Paired A/B of `batchLines` (lib/render/batch-lines.ts) alone across two builds, on the
 * envelopes of the long session of bench/pipeline.ts, one batch per 256 KiB read, as the
 * settle step makes them. Both builds run in ONE process, rounds interleaved (A B, B A, ...);
 * the figure to read is the median of the per-round ratios B / A.
 *
 *   node bench/dist/bench/support/ab-batch-lines.js <root A> <root B> [--long RECORDS] [--rounds N] [--no-store]
 *
 * Each line is then measured with `Buffer.byteLength`, as the store's `encodeBatch` does: a
 * line that is not flat (a concatenation) is flattened there, so that copy is counted.
 * `--no-store` takes `line.length` instead (what the output port's `join` alone needs).
 * Both sides take the envelopes of B's modules, so they serialise the same objects and the
 * lines are checked equal before timing. A root is a checkout with a compiled `dist/` and `bench/dist/`.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OutputEvent } from '../../lib/events/index.js';
import { abRoots, median, option } from './ab-args.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roots = abRoots(
    args,
    ['--rounds', '--long'],
    'ab-batch-lines.js <root A> <root B> [--long RECORDS] [--rounds N] [--no-store]',
  );
  const rounds = option(args, '--rounds', 15);
  const records = option(args, '--long', 30_000);
  const store = !args.includes('--no-store');
  const dist = (root: string, file: string): string => pathToFileURL(path.resolve(root, 'dist', file)).href;
  const corpora = (await import(
    pathToFileURL(path.resolve(roots[1] as string, 'bench/dist/test/corpus/pipeline-corpus.js')).href
  )) as typeof import('../../test/corpus/pipeline-corpus.js');
  const events = (await import(
    dist(roots[1] as string, 'lib/events/index.js')
  )) as typeof import('../../lib/events/index.js');
  const corpus = corpora.buildLongSessionCorpus({ records });
  // The clock moves a quarter of a millisecond per event: timestamps repeat, as in a real session.
  let now = 1_700_000_000_000;
  const enveloper = events.createEnveloper({
    sessionId: 'ses_01JABCDEFGHJKMNPQRSTVWXYZ0',
    clock: () => Math.floor((now += 0.25)),
  });
  const batches: OutputEvent[][] = (corpus.pass[0]?.batches ?? []).map((batch) =>
    batch.map((d) => enveloper.wrap(d, { turnId: 1, stepId: 1 })),
  );
  const sides: { name: string; batchLines: (events: readonly OutputEvent[]) => string[]; ms: number[] }[] = [];
  for (const root of roots) {
    const mod = (await import(
      dist(root as string, 'lib/render/batch-lines.js')
    )) as typeof import('../../lib/render/batch-lines.js');
    sides.push({ name: root as string, batchLines: mod.batchLines, ms: [] });
  }
  const [a, b] = sides as [(typeof sides)[0], (typeof sides)[0]];
  let chars = 0;
  for (const batch of batches) {
    const x = a.batchLines(batch);
    const y = b.batchLines(batch);
    for (let i = 0; i < batch.length; i++) {
      if (x[i] !== y[i]) throw new Error(`the two builds make different lines for event ${batch[i]?.seq}`);
      chars += (x[i] as string).length;
    }
  }
  let sink = 0;
  // Round 0 warms both up and is not recorded.
  for (let r = 0; r <= rounds; r++) {
    for (const side of r % 2 === 0 ? [a, b] : [b, a]) {
      const start = process.hrtime.bigint();
      for (const batch of batches)
        for (const line of side.batchLines(batch)) sink += store ? Buffer.byteLength(line, 'utf8') : line.length;
      if (r > 0) side.ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  const mb = corpus.totalBytes / 1e6;
  for (const [label, side] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const m = median(side.ms);
    console.log(
      `${label} ${side.name}: median ${m.toFixed(1)} ms (${(m / mb).toFixed(2)} ms per MB of input), min ${Math.min(...side.ms).toFixed(1)} ms`,
    );
  }
  const count = batches.reduce((n, batch) => n + batch.length, 0);
  console.log(
    `B / A time, median of per-round ratios: ${median(b.ms.map((t, i) => t / (a.ms[i] as number))).toFixed(3)} (${rounds} rounds, ${count} events, ${(chars / 1e6).toFixed(1)}M characters of lines${store ? '' : ', no store'}, ${mb.toFixed(1)} MB of input; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; ${sink > 0 ? 'ok' : 'empty'})`,
  );
}

await main();
