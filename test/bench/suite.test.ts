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
import os from 'node:os';
import { ROOT, runCli } from '../helpers/cli.js';

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

describe('minicode bench --out', () => {
  it('makes the folder of the --out file and writes the results there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-out-'));
    try {
      const out = path.join(dir, 'not/yet/there/results.json');
      // --only with no such benchmark runs nothing: the suite still writes its (empty) document.
      const r = await runCli(['bench', '--json', '--only', 'no-such-benchmark', '--out', out]);
      expect(r.code).toBe(0);
      const written = JSON.parse(fs.readFileSync(out, 'utf8')) as { reports: unknown[] };
      expect(written.reports).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an --out file it cannot write before running any benchmark, with exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-out-'));
    try {
      const blocker = path.join(dir, 'a-file');
      fs.writeFileSync(blocker, '');
      const r = await runCli(['bench', '--only', 'sse-framing', '--out', path.join(blocker, 'results.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('cannot write the --out file');
      expect(r.stderr).not.toContain('bench: sse-framing');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
