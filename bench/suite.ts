/**
 * Runs every benchmark file of bench/ in a child process of its own (a fresh heap and JIT per
 * benchmark, so one cannot skew the next), collects their JSON reports, and prints them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MinicodeError } from '../lib/errors.js';
import { formatReport, meets, type BenchReport } from './harness.js';

/** Files in bench/ that are not benchmarks. */
const NOT_BENCHMARKS = new Set(['harness', 'suite', 'write-docs', 'charts', 'main']);

/** The whole suite's JSON document. */
export interface SuiteResult {
  machine: { cpus: string; cores: number; memoryGiB: number; node: string; platform: string };
  date: string;
  quick: boolean;
  command: string;
  reports: BenchReport[];
  failures: { name: string; message: string }[];
}

/** A compiled module that exports `run` (the harness contract); helpers such as corpus loaders do not. */
const EXPORTS_RUN = /^export (?:async )?function run\(|^export \{[^}]*\brun\b[^}]*\}/m;

/**
 * Names of the benchmark files present in the compiled bench/ folder: every top-level module
 * that exports `run`, except the suite's own files. Helpers (corpus loaders, bench/support/)
 * are skipped, so adding one never makes the suite run a non-benchmark.
 */
export function listBenchmarks(dir = path.dirname(fileURLToPath(import.meta.url))): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => f.slice(0, -3))
    .filter((name) => !NOT_BENCHMARKS.has(name) && !name.startsWith('_'))
    .filter((name) => EXPORTS_RUN.test(fs.readFileSync(path.join(dir, `${name}.js`), 'utf8')))
    .sort();
}

function runOne(file: string, quick: boolean): Promise<BenchReport> {
  return new Promise((resolve, reject) => {
    const args = ['--expose-gc', file, '--json', ...(quick ? ['--quick'] : [])];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8').trim();
      const last = text.split('\n').pop() ?? '';
      if (code !== 0)
        return reject(
          new Error(`exit ${code}: ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' | ')}`),
        );
      try {
        resolve(JSON.parse(last) as BenchReport);
      } catch {
        reject(new Error(`no JSON report on stdout: ${last.slice(0, 200)}`));
      }
    });
  });
}

/**
 * Make sure `--out FILE` can be written before minutes of benchmarks run: its folder is made if
 * missing, and a file that cannot be opened for writing is a usage error (exit 2), not a crash
 * after the last benchmark. An existing file is kept until the results replace it.
 */
function prepareOut(out: string): void {
  try {
    const dir = path.dirname(path.resolve(out));
    fs.mkdirSync(dir, { recursive: true });
    if (fs.existsSync(out)) fs.closeSync(fs.openSync(out, 'a'));
    else fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MinicodeError('MINICODE_E_USAGE', `cannot write the --out file ${out}: ${reason}`, {
      action: 'name a file in a folder you can write, or leave out --out',
    });
  }
}

/**
 * Run the suite; returns the process exit code (1 when a benchmark crashed). Throws
 * MINICODE_E_USAGE, before running anything, for an `--only` name that is no benchmark. `dir` (tests) is the folder of compiled benchmarks.
 */
export async function runBenchSuite(options: {
  json: boolean;
  quick: boolean;
  only: string[];
  out?: string | undefined;
  dir?: string;
}): Promise<number> {
  const dir = options.dir ?? path.dirname(fileURLToPath(import.meta.url));
  const all = listBenchmarks(dir);
  // A misspelt name would run nothing and report "0 ratios" with exit 0.
  const unknown = options.only.filter((n) => !all.includes(n));
  if (unknown.length > 0)
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `--only: no benchmark named ${unknown.map((n) => JSON.stringify(n)).join(', ')}`,
      { action: `name some of: ${all.join(' ')}` },
    );
  const names = all.filter((n) => options.only.length === 0 || options.only.includes(n));
  if (options.out) prepareOut(options.out);
  const result: SuiteResult = {
    machine: {
      cpus: os.cpus()[0]?.model ?? 'unknown',
      cores: os.availableParallelism(),
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    date: new Date().toISOString(),
    quick: options.quick,
    command: `npm run bench --${options.quick ? ' --quick' : ''}`,
    reports: [],
    failures: [],
  };
  for (const name of names) {
    const started = Date.now();
    if (!options.json) process.stderr.write(`bench: ${name} ...\n`);
    try {
      const report = await runOne(path.join(dir, `${name}.js`), options.quick);
      result.reports.push(report);
      if (!options.json)
        process.stdout.write(formatReport(report) + `  (${((Date.now() - started) / 1000).toFixed(1)} s)\n\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result.failures.push({ name, message });
      process.stderr.write(`bench: ${name} failed: ${message}\n`);
    }
  }
  if (!options.json) {
    const ratios = result.reports.flatMap((r) => r.ratios.map((x) => ({ ...x, bench: r.name })));
    const missed = ratios.filter((r) => !meets(r));
    process.stdout.write(
      `${ratios.length} ratios, ${ratios.length - missed.length} meet their target, ${missed.length} miss it${missed.length ? ': ' + missed.map((m) => `${m.bench}/${m.label}`).join(', ') : ''}\n`,
    );
  } else {
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  if (options.out) fs.writeFileSync(options.out, JSON.stringify(result, null, 2) + '\n');
  return result.failures.length > 0 ? 1 : 0;
}
