/**
 * The shared benchmark harness. Every file in `bench/` exports `run(options)` returning a
 * {@link BenchReport}; `npm run bench` runs them all and `bench/write-docs.ts` turns the JSON
 * into docs/benchmarks.md. Ratios are computed from medians measured in the same process run:
 * the machine is shared and noisy, so absolute times are context only.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

/** Options every benchmark accepts. */
export interface BenchOptions {
  /** Fewer rounds and smaller inputs, for `--quick` (the whole quick suite stays under 3 minutes). */
  quick: boolean;
}

/** One measured quantity: several rounds of the same work. */
export interface Measurement {
  label: string;
  /** Unit of `samples`, e.g. `MB/s`, `events/s`, `ms`. */
  unit: string;
  /** One value per round. */
  samples: number[];
  median: number;
  min: number;
  max: number;
  /** true when a larger value is better (throughput); false for times and sizes. */
  higherIsBetter: boolean;
}

/** A ratio between two measurements of the same run (medians). */
export interface Ratio {
  label: string;
  value: number;
  /** The target the issue sets, e.g. `>= 1.5`; absent when there is none. */
  target?: { op: '>=' | '<='; value: number };
  /** Unit of an absolute figure checked against a target (e.g. `ms`); absent for a true ratio (`x`). */
  unit?: string;
}

/** A ratio's value with its unit: `1.50x` for ratios, `7.84 ms` for absolute figures. */
export function ratioValue(r: Ratio): string {
  return r.unit !== undefined ? `${r.value.toFixed(2)} ${r.unit}`.trimEnd() : `${r.value.toFixed(2)}x`;
}

/** What one benchmark file reports. */
export interface BenchReport {
  name: string;
  title: string;
  /** What is measured and against which peer or floor. */
  description: string;
  measurements: Measurement[];
  ratios: Ratio[];
  notes?: string[];
}

/** The middle value (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Build a measurement from samples. */
export function measurement(label: string, unit: string, samples: number[], higherIsBetter = true): Measurement {
  return {
    label,
    unit,
    samples,
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    higherIsBetter,
  };
}

/** Time `fn` once, in milliseconds. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Time `fn` once in milliseconds of CPU time of this process (all threads: GC helpers included). */
export async function cpuTimeOnce(fn: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

type GcFunction = (options?: { type?: 'major' | 'minor' }) => void;
let gcFn: GcFunction | null | undefined;
/**
 * V8's `gc([{type}])`, or undefined when it cannot be had. `--expose-gc` can be turned
 * on at run time; the `gc` function then appears in new contexts (a documented V8 flag, a
 * well-known Node idiom), so benchmarks need no extra node flags.
 */
export function gcFunction(): GcFunction | undefined {
  if (gcFn === undefined) {
    const g = (globalThis as { gc?: GcFunction }).gc;
    if (typeof g === 'function') gcFn = g;
    else {
      try {
        v8.setFlagsFromString('--expose-gc');
        const fn = vm.runInNewContext('gc') as unknown;
        gcFn = typeof fn === 'function' ? (fn as GcFunction) : null;
      } catch {
        gcFn = null;
      }
    }
  }
  return gcFn ?? undefined;
}

/** How {@link interleave} times its rounds. */
export interface InterleaveOptions {
  /**
   * `wall` (default): elapsed time. `cpu`: CPU time of the process, which a shared machine
   * inflates far less (time spent descheduled while other processes run is not counted).
   */
  clock?: 'wall' | 'cpu';
  /**
   * Collect the young generation (untimed) before every timed call, so that no competitor pays
   * for the garbage another one left behind (an allocation-heavy peer otherwise bills its GC to
   * whoever runs after it). Minor only: a full GC every round also frees the hidden classes
   * (maps) the optimised code relies on, so every round would start deoptimised, which is
   * nothing like a steady stream (measured: 3-4x slower for our decoders). Default false.
   */
  collectBetween?: boolean;
  /**
   * Keep running warm-up rounds (beyond `warmup`) until this many milliseconds have passed, so
   * that every competitor is measured in its steady state: code that goes through several
   * provider decoders and regexps keeps getting faster for a few seconds of JIT work, far longer
   * than a plain `JSON.parse` loop needs. Default 0.
   */
  warmupMs?: number;
}

/**
 * Run several competitors in interleaved rounds (A B C, A B C, ...) so that a noisy
 * neighbour hurts all of them alike; returns the elapsed milliseconds per competitor.
 */
export async function interleave(
  rounds: number,
  competitors: Record<string, () => unknown>,
  warmup = 1,
  options: InterleaveOptions = {},
): Promise<Record<string, number[]>> {
  const names = Object.keys(competitors);
  const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const time = options.clock === 'cpu' ? cpuTimeOnce : timeOnce;
  const gc = options.collectBetween ? gcFunction() : undefined;
  const warmUntil = performance.now() + (options.warmupMs ?? 0);
  for (let r = 0; r < warmup || performance.now() < warmUntil; r++) {
    for (const name of names) await (competitors[name] as () => unknown)();
  }
  for (let r = 0; r < rounds; r++) {
    for (const name of names) {
      gc?.({ type: 'minor' });
      (out[name] as number[]).push(await time(competitors[name] as () => unknown));
    }
  }
  return out;
}

/** Convert elapsed ms samples to a throughput for `amount` units of work per round. */
export function throughput(msSamples: number[], amount: number): number[] {
  return msSamples.map((ms) => amount / (ms / 1000));
}

/** Ratio of two measurements' medians. */
export function ratio(label: string, a: Measurement, b: Measurement, target?: Ratio['target']): Ratio {
  const r: Ratio = { label, value: a.median / b.median };
  if (target) r.target = target;
  return r;
}

/** A compact number for tables: 1.23M, 45.6k, 789, 1.23, 0.0123. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const abs = Math.abs(n);
  if (abs >= 1e6) return (n / 1e6).toFixed(2) + 'M';
  if (abs >= 1e4) return (n / 1e3).toFixed(1) + 'k';
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

/** Print a report as plain text tables. */
export function formatReport(report: BenchReport): string {
  const lines = [`## ${report.title}`, report.description, ''];
  for (const m of report.measurements) {
    lines.push(
      `  ${m.label.padEnd(48)} median ${fmt(m.median).padStart(9)} ${m.unit}  (min ${fmt(m.min)}, max ${fmt(m.max)}, n=${m.samples.length})`,
    );
  }
  for (const r of report.ratios) {
    const target = r.target ? `  target ${r.target.op} ${r.target.value} ${meets(r) ? 'met' : 'NOT met'}` : '';
    lines.push(`  ratio ${r.label.padEnd(42)} ${ratioValue(r)}${target}`);
  }
  for (const note of report.notes ?? []) lines.push(`  note: ${note}`);
  return lines.join('\n') + '\n';
}

/** Whether a ratio meets its target (true when it has none). */
export function meets(r: Ratio): boolean {
  if (!r.target) return true;
  return r.target.op === '>=' ? r.value >= r.target.value : r.value <= r.target.value;
}

/** Run a benchmark's `run` when its file is executed directly: `node bench/dist/bench/x.js [--quick] [--json]`. */
export async function runIfMain(metaUrl: string, run: (o: BenchOptions) => Promise<BenchReport>): Promise<void> {
  if (!process.argv[1] || pathToFileURL(process.argv[1]).href !== metaUrl) return;
  const report = await run({ quick: process.argv.includes('--quick') });
  process.stdout.write(process.argv.includes('--json') ? JSON.stringify(report) + '\n' : formatReport(report));
}
