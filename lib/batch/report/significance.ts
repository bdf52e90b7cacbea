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
 */
import { attemptOf } from '../attempts.js';
import { passedOf } from '../evaluation.js';
import type { BatchRecord } from '../records.js';
import { mulberry32 } from '../../random.js';

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
  const at = (q: number): number =>
    samples.length ? samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! : 0;
  const interval: [number, number] = [round(at(0.025)), round(at(0.975))];
  const pValue = round(mcnemarExact(onlyA, onlyB));
  const rateA = pairs ? (both + onlyA) / pairs : 0;
  const rateB = pairs ? (both + onlyB) / pairs : 0;
  return {
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
}
