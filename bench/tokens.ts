/**
 * bench/tokens: exact o200k token counting throughput (gpt-tokenizer, the floor every estimate
 * is judged against) and the density heuristic's throughput and error table against exact
 * counts, on real files: this repo's `lib/**\/*.ts`, `.js`, `.json` and `.md` files from
 * node_modules, LICENSE texts (English prose) and the zh-cn/ja/ko TypeScript diagnostic
 * messages (CJK). The error table compares the default (measured) densities with the seed's
 * (code/JSON 2.4 chars per token, prose 4, CJK 1 token per char).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  DEFAULT_DENSITIES,
  classify,
  estimateTextTokens,
  type ContentKind,
  type DensityTable,
} from '../lib/control/density.js';
import { countBounded } from '../lib/control/exact-count.js';
import { interleave, measurement, throughput, type BenchOptions, type BenchReport, runIfMain } from './harness.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';

const ROOT = repoRoot(import.meta.url);
const NM = path.join(ROOT, 'node_modules');

/** The seed's densities, for comparison. */
const SEED_DENSITIES: DensityTable = {
  code: 2.4,
  json: 2.4,
  jsonIndented: 2.4,
  prose: 4,
  cjkTokensPerChar: 1,
  perMessage: 4,
};

interface Sample {
  group: 'repo .ts' | 'node_modules .js' | 'node_modules .json' | 'node_modules .md' | 'LICENSE prose' | 'CJK messages';
  name: string;
  text: string;
}

function walk(dir: string, ext: string, out: string[], limit: number): void {
  if (out.length >= limit || !fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (out.length >= limit) return;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, ext, out, limit);
    else if (entry.name.endsWith(ext) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.min.js')) out.push(p);
  }
}

function read(p: string, max = 200_000): string {
  return fs.readFileSync(p, 'utf8').slice(0, max);
}

/** Real files, picked deterministically (sorted walk, fixed packages). */
function loadSamples(quick: boolean): Sample[] {
  const n = quick ? 8 : 25;
  const samples: Sample[] = [];
  const ts: string[] = [];
  walk(path.join(ROOT, 'lib'), '.ts', ts, n * 2);
  for (const p of ts) samples.push({ group: 'repo .ts', name: path.relative(ROOT, p), text: read(p) });
  const js: string[] = [];
  for (const pkg of [
    'commander/lib',
    'zod/v4/core',
    'piscina/dist',
    'chalk/source',
    'semver/classes',
    'ajv/dist/compile',
  ])
    walk(path.join(NM, pkg), '.js', js, js.length + Math.ceil(n / 3));
  for (const p of js.slice(0, n))
    samples.push({ group: 'node_modules .js', name: path.relative(NM, p), text: read(p) });
  const json = [
    '@agentclientprotocol/sdk/schema/v1/schema.json',
    'typescript/lib/typesMap.json',
    'typescript/package.json',
    'vitest/package.json',
    'zod/package.json',
    'ajv/lib/refs/json-schema-draft-07.json',
    'ajv/lib/refs/data.json',
    'fast-check/package.json',
  ];
  for (const p of json)
    if (fs.existsSync(path.join(NM, p)))
      samples.push({ group: 'node_modules .json', name: p, text: read(path.join(NM, p)) });
  const md = [
    'commander/Readme.md',
    'picomatch/README.md',
    'semver/README.md',
    'lmdb/README.md',
    'chalk/readme.md',
    'fast-check/README.md',
    'gpt-tokenizer/README.md',
    'tinybench/README.md',
  ];
  for (const p of md)
    if (fs.existsSync(path.join(NM, p)))
      samples.push({ group: 'node_modules .md', name: p, text: read(path.join(NM, p)) });
  for (const p of [
    'ajv/LICENSE',
    'bullmq/LICENSE',
    'commander/LICENSE',
    'typescript/LICENSE.txt',
    'node-addon-api/LICENSE.md',
    'vite/LICENSE.md',
  ]) {
    if (fs.existsSync(path.join(NM, p)))
      samples.push({ group: 'LICENSE prose', name: p, text: read(path.join(NM, p), 60_000) });
  }
  for (const lang of ['zh-cn', 'zh-tw', 'ja', 'ko']) {
    const p = path.join(NM, 'typescript/lib', lang, 'diagnosticMessages.generated.json');
    if (!fs.existsSync(p)) continue;
    // The translated message texts only: real CJK prose with code identifiers mixed in.
    const values = Object.values(JSON.parse(fs.readFileSync(p, 'utf8')) as Record<string, string>);
    samples.push({
      group: 'CJK messages',
      name: `typescript ${lang} diagnostics`,
      text: values.slice(0, quick ? 300 : 1500).join('\n'),
    });
  }
  return samples;
}

interface Row {
  group: string;
  files: number;
  chars: number;
  exact: number;
  estimate: number;
  seed: number;
  meanAbsPct: number;
  seedMeanAbsPct: number;
  kinds: Partial<Record<ContentKind, number>>;
}

function pct(est: number, exact: number): number {
  return ((est - exact) / exact) * 100;
}

function errorTable(samples: Sample[]): Row[] {
  const rows = new Map<string, Row>();
  for (const s of samples) {
    if (!s.text) continue;
    const exact = countBounded(s.text, countTokens);
    const estimate = estimateTextTokens(s.text, DEFAULT_DENSITIES);
    const seed = estimateTextTokens(s.text, SEED_DENSITIES);
    const row = rows.get(s.group) ?? {
      group: s.group,
      files: 0,
      chars: 0,
      exact: 0,
      estimate: 0,
      seed: 0,
      meanAbsPct: 0,
      seedMeanAbsPct: 0,
      kinds: {},
    };
    row.files++;
    row.chars += s.text.length;
    row.exact += exact;
    row.estimate += estimate;
    row.seed += seed;
    row.meanAbsPct += Math.abs(pct(estimate, exact));
    row.seedMeanAbsPct += Math.abs(pct(seed, exact));
    const kind = classify(s.text);
    row.kinds[kind] = (row.kinds[kind] ?? 0) + 1;
    rows.set(s.group, row);
  }
  for (const r of rows.values()) {
    r.meanAbsPct /= r.files;
    r.seedMeanAbsPct /= r.files;
  }
  return [...rows.values()];
}

/** Format the error table as Markdown lines. */
export function formatErrorTable(rows: Row[]): string[] {
  const lines = [
    '| sample | files | classified as | chars/token (exact) | exact tokens | estimate error (sum) | mean abs error per file | seed table error (sum) | seed mean abs error |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const kinds = Object.entries(r.kinds)
      .map(([k, n]) => `${k}×${n}`)
      .join(' ');
    lines.push(
      `| ${r.group} | ${r.files} | ${kinds} | ${(r.chars / r.exact).toFixed(2)} | ${r.exact} | ${pct(r.estimate, r.exact).toFixed(1)}% | ${r.meanAbsPct.toFixed(1)}% | ${pct(r.seed, r.exact).toFixed(1)}% | ${r.seedMeanAbsPct.toFixed(1)}% |`,
    );
  }
  return lines;
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const samples = loadSamples(options.quick);
  const rows = errorTable(samples);
  const corpus = samples.map((s) => s.text).join('\n');
  const mb = Buffer.byteLength(corpus) / 1e6;
  const rounds = options.quick ? 3 : 5;
  const times = await interleave(rounds, {
    exact: () => countTokens(corpus),
    bounded: () => countBounded(corpus, countTokens),
    heuristic: () => {
      for (const s of samples) estimateTextTokens(s.text);
    },
  });
  const exact = measurement('exact o200k countTokens (gpt-tokenizer)', 'MB/s', throughput(times.exact as number[], mb));
  const bounded = measurement(
    'exact, long runs sliced (countBounded)',
    'MB/s',
    throughput(times.bounded as number[], mb),
  );
  const heuristic = measurement(
    'density heuristic (estimateTextTokens)',
    'MB/s',
    throughput(times.heuristic as number[], mb),
  );
  return {
    name: 'tokens',
    title: 'Token counting: exact o200k vs the density heuristic',
    description: `Corpus: ${samples.length} real files, ${mb.toFixed(2)} MB. Error = (estimate - exact) / exact.`,
    measurements: [exact, bounded, heuristic],
    ratios: [{ label: 'heuristic speed / exact', value: heuristic.median / exact.median }],
    notes: formatErrorTable(rows),
  };
}

await runIfMain(import.meta.url, run);
