/**
 * Is B's pass rate really different from A's? Two runs over the same lines are paired: each line
 * was tried by both, so the comparison looks at the lines whose outcome differs, not at two
 * independent percentages.
 *
 * - McNemar's exact test on the paired pass/fail outcomes (each (id, attempt) run in both): with b
 *   the pairs A passed and B failed and c the reverse, under "no difference" each discordant pair
 *   is a fair coin, so the two-sided p-value is min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(b + c, 1/2).
 * - A paired bootstrap of the difference in pass rate (B − A) over the lines: 2,000 resamples of
 *   the lines with replacement (a line carries all its attempts), from a fixed seed so the same
 *   records give the same interval; the 95% interval is the 2.5th and 97.5th percentiles.
 *
 * The difference is called significant when the interval does not contain 0 and p < 0.05.
 *
 * Cost and latency are compared the same way ({@link compareMeasure}): each line's value is the
 * mean over its attempts present in both runs (the agent's `costUsd`, never a grader's; the run's
 * own `durationMs`), the figures are the medians over those lines
 * in A and in B and B − A, and the 95% interval is the same paired bootstrap over lines (the
 * same lines drawn for A and B in each resample) of the difference of the medians. A measure's
 * difference is significant when its interval does not contain 0.
 */
import { attemptOf } from '../attempts.js';
import { passedOf } from '../evaluation.js';
import type { BatchRecord } from '../records.js';
import { mulberry32 } from '../../random.js';
import { ms } from './svg.js';

/** Resamples of the bootstrap, and its seed. */
export const BOOTSTRAP_RESAMPLES = 2000;
export const BOOTSTRAP_SEED = 20261207;

/** The paired comparison of two runs' pass/fail outcomes. */
export interface PairedComparison {
  /** Lines with at least one attempt in both runs. */
  lines: number;
  /** (id, attempt) runs in both. */
  pairs: number;
  /** Pairs both passed, only A passed, only B passed, neither passed. */
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
  /** Pass rates over the paired runs, and B − A. */
  rateA: number;
  rateB: number;
  difference: number;
  /** 95% paired-bootstrap interval of the difference (over lines). */
  interval: [number, number];
  /** McNemar's exact two-sided p-value. */
  pValue: number;
  significant: boolean;
  /** Ids whose pass rate went down from A to B, worst first. */
  regressed: string[];
  /** The agents' cost per line (USD), over the lines whose cost is known in both runs; absent when none. */
  cost?: MeasureComparison;
  /** The run's own time per line (ms, `durationMs`), over the lines timed in both runs; absent when none. */
  latency?: MeasureComparison;
}

/** A paired comparison of one measure per line (cost, latency). */
export interface MeasureComparison {
  /** Lines with the measure in both runs. */
  lines: number;
  /** Medians over those lines of each line's mean over its attempts. */
  medianA: number;
  medianB: number;
  /** medianB − medianA. */
  difference: number;
  /** 95% paired-bootstrap interval of the difference of the medians (over lines). */
  interval: [number, number];
  /** The interval does not contain 0. */
  significant: boolean;
}

/** Two-sided exact McNemar p-value for b and c discordant pairs. */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // P(X <= k) for X ~ Binomial(n, 1/2), the terms built in logarithms so a large n does not overflow.
  let logTerm = -n * Math.LN2;
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

const round = (x: number): number => Number(x.toFixed(6));

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const mid = n >> 1;
  return n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const byValue = (x: number, y: number): number => x - y;

/** The 2.5th and 97.5th percentiles of sorted samples (the bootstrap's 95% interval). */
function percentileInterval(samples: readonly number[], rounded = round): [number, number] {
  const at = (q: number): number =>
    samples.length ? samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! : 0;
  return [rounded(at(0.025)), rounded(at(0.975))];
}

/** Eight significant digits: a cost of a hundredth of a cent keeps its precision. */
const precise = (x: number): number => Number(x.toPrecision(8));

/**
 * Compare one measure of two runs' records, paired by (id, attempt) and summarised per line (see
 * the header); undefined when no line has the measure in both runs.
 */
export function compareMeasure(
  a: readonly BatchRecord[],
  b: readonly BatchRecord[],
  measure: (record: BatchRecord) => number | undefined,
): MeasureComparison | undefined {
  const key = (r: BatchRecord): string => `${r.id}\u0000${attemptOf(r)}`;
  const inB = new Map(b.map((r) => [key(r), r]));
  const perLine = new Map<string, { a: number; b: number; n: number }>();
  for (const ra of a) {
    const rb = inB.get(key(ra));
    const va = measure(ra);
    const vb = rb ? measure(rb) : undefined;
    if (va === undefined || vb === undefined) continue;
    const line = perLine.get(ra.id) ?? { a: 0, b: 0, n: 0 };
    line.a += va;
    line.b += vb;
    line.n++;
    perLine.set(ra.id, line);
  }
  const lines = [...perLine.values()].map((l) => ({ a: l.a / l.n, b: l.b / l.n }));
  if (lines.length === 0) return undefined;
  const medianA = median(lines.map((l) => l.a).sort(byValue));
  const medianB = median(lines.map((l) => l.b).sort(byValue));
  const rand = mulberry32(BOOTSTRAP_SEED);
  const samples: number[] = [];
  const xa = new Array<number>(lines.length);
  const xb = new Array<number>(lines.length);
  for (let s = 0; s < BOOTSTRAP_RESAMPLES; s++) {
    for (let i = 0; i < lines.length; i++) {
      const pick = lines[Math.floor(rand() * lines.length)]!;
      xa[i] = pick.a;
      xb[i] = pick.b;
    }
    samples.push(median(xb.sort(byValue)) - median(xa.sort(byValue)));
  }
  samples.sort(byValue);
  const [low, high] = percentileInterval(samples, precise);
  return {
    lines: lines.length,
    medianA: precise(medianA),
    medianB: precise(medianB),
    difference: precise(medianB - medianA),
    interval: [low, high],
    significant: low > 0 || high < 0,
  };
}

/** The agent's cost of a record (a grader's is apart, in its scores). */
export const costOf = (r: BatchRecord): number | undefined => r.costUsd;
/** The run's own time of a record (not `timing.totalMs`, which holds the wait for a slot: it depends on the line's place in its batch). */
export const latencyOf = (r: BatchRecord): number | undefined => r.durationMs;

/** Compare run A's records with run B's, paired by (id, attempt). */
export function comparePaired(a: readonly BatchRecord[], b: readonly BatchRecord[]): PairedComparison {
  const key = (r: BatchRecord): string => `${r.id}\u0000${attemptOf(r)}`;
  const inB = new Map(b.map((r) => [key(r), r]));
  const perLine = new Map<string, { a: number; b: number; n: number }>();
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  let neither = 0;
  for (const ra of a) {
    const rb = inB.get(key(ra));
    if (!rb) continue;
    const pa = passedOf(ra);
    const pb = passedOf(rb);
    if (pa && pb) both++;
    else if (pa) onlyA++;
    else if (pb) onlyB++;
    else neither++;
    const line = perLine.get(ra.id) ?? { a: 0, b: 0, n: 0 };
    line.a += pa ? 1 : 0;
    line.b += pb ? 1 : 0;
    line.n++;
    perLine.set(ra.id, line);
  }
  const pairs = both + onlyA + onlyB + neither;
  const lines = [...perLine.entries()];
  const diffs = lines.map(([, l]) => ({ d: l.b - l.a, n: l.n }));
  const rand = mulberry32(BOOTSTRAP_SEED);
  const samples: number[] = [];
  if (diffs.length > 0) {
    for (let s = 0; s < BOOTSTRAP_RESAMPLES; s++) {
      let d = 0;
      let n = 0;
      for (let i = 0; i < diffs.length; i++) {
        const pick = diffs[Math.floor(rand() * diffs.length)]!;
        d += pick.d;
        n += pick.n;
      }
      samples.push(d / n);
    }
    samples.sort((x, y) => x - y);
  }
  const interval = percentileInterval(samples);
  const pValue = round(mcnemarExact(onlyA, onlyB));
  const rateA = pairs ? (both + onlyA) / pairs : 0;
  const rateB = pairs ? (both + onlyB) / pairs : 0;
  const out: PairedComparison = {
    lines: lines.length,
    pairs,
    both,
    onlyA,
    onlyB,
    neither,
    rateA: round(rateA),
    rateB: round(rateB),
    difference: round(rateB - rateA),
    interval,
    pValue,
    significant: pValue < 0.05 && (interval[0] > 0 || interval[1] < 0),
    regressed: lines
      .filter(([, l]) => l.b < l.a)
      .sort((x, y) => x[1].b / x[1].n - x[1].a / x[1].n - (y[1].b / y[1].n - y[1].a / y[1].n))
      .map(([id]) => id),
  };
  const cost = compareMeasure(a, b, costOf);
  if (cost) out.cost = cost;
  const latency = compareMeasure(a, b, latencyOf);
  if (latency) out.latency = latency;
  return out;
}

/** Cost and latency of a comparison as sentences (plain text; the Markdown and the page both show them). */
export function measureSentences(c: PairedComparison): string[] {
  const out: string[] = [];
  const signed = (x: number, f: (n: number) => string): string => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${f(Math.abs(x))}`;
  const sentence = (label: string, m: MeasureComparison, f: (n: number) => string): string =>
    `${label} per line, median over ${m.lines} lines: A ${f(m.medianA)}, B ${f(m.medianB)}, B − A ${signed(m.difference, f)} (95% paired bootstrap interval ${signed(m.interval[0], f)} to ${signed(m.interval[1], f)}): ${m.significant ? 'a significant difference' : 'no significant difference'}.`;
  if (c.cost) out.push(sentence('Cost', c.cost, (n) => `$${n.toFixed(n !== 0 && n < 0.01 ? 5 : 4)}`));
  if (c.latency) out.push(sentence('Run time', c.latency, ms));
  return out;
}
