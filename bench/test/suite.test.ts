/**
 * Smoke test of the benchmark suite's shape: every benchmark module exports `run`, and
 * `listBenchmarks()` finds exactly those modules in the compiled bench/ folder (helpers such as
 * corpus loaders are not run as benchmarks). No benchmark is run here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listBenchmarks, runBenchSuite } from '../suite.js';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../../test/helpers/cli.js';

const DIST_BENCH = path.join(ROOT, 'bench/dist/bench');

/** `npm run bench -- ARGS` without the builds: the compiled entry of this package. */
function runBench(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(DIST_BENCH, 'main.js'), ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const SOURCE_BENCH = path.join(ROOT, 'bench');
const NOT_BENCHMARKS = ['harness', 'suite', 'write-docs', 'charts', 'main', 'vitest.config'];

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
    for (const name of ['pipeline', 'provider-decode', 'sse-framing', 'tokens', 'offload'])
      expect(benchmarks).toContain(name);
  });

  it.each(benchmarks)('bench/%s.ts exports run()', async (name) => {
    const mod = (await import(pathToFileURL(path.join(SOURCE_BENCH, `${name}.ts`)).href)) as { run?: unknown };
    expect(typeof mod.run).toBe('function');
  });

  it.skipIf(!fs.existsSync(DIST_BENCH))('listBenchmarks() finds every compiled benchmark and no helper', () => {
    const compiled = benchmarks.filter((n) => fs.existsSync(path.join(DIST_BENCH, `${n}.js`)));
    expect(listBenchmarks(DIST_BENCH)).toEqual(compiled);
    expect(listBenchmarks(DIST_BENCH)).not.toContain('main');
  });
});

describe('npm run bench -- --out', () => {
  it('makes the folder of the --out file and writes the results there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-out-'));
    try {
      // A folder holding one stand-in benchmark (its own process, one JSON report): no real benchmark runs.
      const benches = path.join(dir, 'bench');
      fs.mkdirSync(benches);
      fs.writeFileSync(path.join(benches, 'package.json'), '{"type":"module"}\n');
      const report = { name: 'stand-in', ratios: [] };
      fs.writeFileSync(
        path.join(benches, 'stand-in.js'),
        `export function run() {}\nconsole.log(${JSON.stringify(JSON.stringify(report))});\n`,
      );
      const out = path.join(dir, 'not/yet/there/results.json');
      const write = process.stdout.write;
      process.stdout.write = () => true;
      const code = await runBenchSuite({ json: true, quick: true, only: [], out, dir: benches }).finally(() => {
        process.stdout.write = write;
      });
      expect(code).toBe(0);
      const written = JSON.parse(fs.readFileSync(out, 'utf8')) as { reports: unknown[]; failures: unknown[] };
      expect(written).toMatchObject({ reports: [report], failures: [] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an --only name that is no benchmark (exit 2), naming the benchmarks, before running any', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-out-'));
    try {
      const out = path.join(dir, 'results.json');
      const r = runBench(['--json', '--only', 'sse-framing', 'no-such-benchmark', '--out', out]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({
        ok: false,
        error: { code: 'MINICODE_E_USAGE', message: '--only: no benchmark named "no-such-benchmark"' },
      });
      expect(r.stderr).toContain('sse-framing');
      expect(r.stderr).not.toContain('bench: sse-framing ...');
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an --out file it cannot write before running any benchmark, with exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-out-'));
    try {
      const blocker = path.join(dir, 'a-file');
      fs.writeFileSync(blocker, '');
      const r = runBench(['--only', 'sse-framing', '--out', path.join(blocker, 'results.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('cannot write the --out file');
      expect(r.stderr).not.toContain('bench: sse-framing');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
