/**
 * Smoke test of the benchmark suite's shape: every benchmark module exports `run`, and
 * `listBenchmarks()` finds exactly those modules in the compiled bench/ folder (helpers such as
 * corpus loaders are not run as benchmarks). No benchmark is run here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listBenchmarks } from '../../bench/suite.js';
import { ROOT } from '../helpers/cli.js';

const DIST_BENCH = path.join(ROOT, 'dist/bench');
const SOURCE_BENCH = path.join(ROOT, 'bench');
const NOT_BENCHMARKS = ['harness', 'suite', 'write-docs', 'charts', 'provider-corpus'];

/** The top-level bench/*.ts modules, without extension. */
function sourceModules(): string[] {
  return fs
    .readdirSync(SOURCE_BENCH)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

describe('the benchmark suite', () => {
  const benchmarks = sourceModules().filter((n) => !NOT_BENCHMARKS.includes(n));

  it('has the end-to-end and per-stage benchmarks', () => {
    for (const name of ['pipeline', 'provider-decode', 'sse-framing', 'tokens', 'offload']) expect(benchmarks).toContain(name);
  });

  it.each(benchmarks)('bench/%s.ts exports run()', async (name) => {
    const mod = (await import(pathToFileURL(path.join(SOURCE_BENCH, `${name}.ts`)).href)) as { run?: unknown };
    expect(typeof mod.run).toBe('function');
  });

  it.skipIf(!fs.existsSync(DIST_BENCH))('listBenchmarks() finds every compiled benchmark and no helper', () => {
    const compiled = benchmarks.filter((n) => fs.existsSync(path.join(DIST_BENCH, `${n}.js`)));
    expect(listBenchmarks(DIST_BENCH)).toEqual(compiled);
    expect(listBenchmarks(DIST_BENCH)).not.toContain('provider-corpus');
  });
});
