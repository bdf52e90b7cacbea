/**
 * What a batch's records say as an evaluation: whether each run passed, each line's pass rate
 * over its attempts, pass@k, and how much the pass rate moved from one epoch to the next. Pure:
 * records in, figures out; `summary.json` and the report compute them the same way.
 *
 * A run passes when it completed, its verify command (when one ran) exited 0, and every scorer
 * of its `expect` passed ({@link passRule}); a failed or cancelled run never passes.
 *
 * pass@k is the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
 * Trained on Code"): for a line with n attempts of which c passed, the chance that at least one
 * of k attempts drawn without replacement passed is 1 - C(n-c, k) / C(n, k). The binomials
 * overflow a double long before n gets large, so the ratio is taken as the product
 * prod_{i=n-c+1..n} (1 - k/i), which stays in [0, 1] at every step. A batch's pass@k is the mean
 * over the lines with at least k finished attempts.
 */
import { attemptOf } from './attempts.js';
import type { BatchRecord } from './records.js';
import { latencyGroup } from './tally.js';

/** The documented rule: completed, verify passed where it ran, every scorer passed. */
export function passRule(record: Pick<BatchRecord, 'kind' | 'verify' | 'scores'>): boolean {
  if (record.kind !== 'result') return false;
  if (record.verify && !record.verify.ok) return false;
  return (record.scores ?? []).every((s) => s.passed);
}

/** Whether a record passed: its `passed` field, or the rule for records written before it existed. */
export function passedOf(record: BatchRecord): boolean {
  return typeof record.passed === 'boolean' ? record.passed : passRule(record);
}

/** Unbiased pass@k for `n` attempts with `c` passes (Chen et al. 2021); requires 0 <= c <= n and 1 <= k <= n. */
export function passAtK(n: number, c: number, k: number): number {
  if (!(k >= 1 && k <= n && c >= 0 && c <= n))
    throw new RangeError(`pass@k needs 1 <= k <= n and 0 <= c <= n (n=${n}, c=${c}, k=${k})`);
  // Fewer failures than draws: every draw of k contains a pass.
  if (n - c < k) return 1;
  let none = 1;
  for (let i = n - c + 1; i <= n; i++) none *= 1 - k / i;
  return 1 - none;
}

/** One line over its attempts. */
export interface LineEvaluation {
  id: string;
  /** Finished attempts (records). */
  runs: number;
  passed: number;
  /** passed / runs. */
  rate: number;
}

/** One epoch (attempt number) over the lines. */
export interface EpochEvaluation {
  attempt: number;
  runs: number;
  passed: number;
  rate: number;
}

/** The evaluation figures of a batch (`summary.json`'s `evaluation`). */
export interface EvaluationSummary {
  /** Most attempts of any line among the records. */
  epochs: number;
  /** Finished runs, and of them the ones that passed. */
  runs: number;
  passed: number;
  /** passed / runs over every finished run (0 when none finished). */
  passRate: number;
  /** Mean of the lines' own pass rates (each line weighs the same, whatever its attempts). */
  meanLineRate: number;
  /** pass@k for k = 1 .. epochs: the mean over lines with at least k finished attempts. */
  passAtK: Record<string, number>;
  /** Per attempt number: the pass rate of that epoch's runs. */
  byEpoch: EpochEvaluation[];
  /** The spread of the epochs' pass rates: lowest, highest, sample standard deviation (with two epochs or more). */
  spread?: { min: number; max: number; stdev: number };
  /** Lines whose attempts disagree (some passed, some not). */
  unstableLines: number;
  /** Per line, in input order. */
  lines: LineEvaluation[];
  /** Per agent and model (`provider/model`, or `agent:<name>[/model]`), when the runs span more than one; by name. */
  byGroup?: GroupEvaluation[];
}

/** The runs of one agent/model of a batch that mixes them. */
export interface GroupEvaluation {
  /** `provider/model`, or `agent:<name>` with its model (the latency groups' names). */
  group: string;
  /** Lines with a run in this group, its finished runs and of them the ones that passed. */
  lines: number;
  runs: number;
  passed: number;
  passRate: number;
  passAtK: Record<string, number>;
  /** Summed known cost of the agents' runs (USD), and the runs whose cost is unknown. */
  costUsd: number;
  costUnknownRuns: number;
}

const round = (x: number): number => Number(x.toFixed(6));

/** The evaluation of `records` (at most one per (id, attempt)); lines in the order of `order` when given, else of first appearance. */
export function evaluate(records: readonly BatchRecord[], order?: readonly string[]): EvaluationSummary {
  const lines = new Map<string, LineEvaluation>();
  for (const id of order ?? []) lines.set(id, { id, runs: 0, passed: 0, rate: 0 });
  const epochs = new Map<number, EpochEvaluation>();
  let passed = 0;
  for (const r of records) {
    const ok = passedOf(r);
    let line = lines.get(r.id);
    if (!line) lines.set(r.id, (line = { id: r.id, runs: 0, passed: 0, rate: 0 }));
    line.runs++;
    const attempt = attemptOf(r);
    let epoch = epochs.get(attempt);
    if (!epoch) epochs.set(attempt, (epoch = { attempt, runs: 0, passed: 0, rate: 0 }));
    epoch.runs++;
    if (ok) {
      line.passed++;
      epoch.passed++;
      passed++;
    }
  }
  const ran = [...lines.values()].filter((l) => l.runs > 0);
  for (const l of ran) l.rate = round(l.passed / l.runs);
  const byEpoch = [...epochs.values()].sort((a, b) => a.attempt - b.attempt);
  for (const e of byEpoch) e.rate = round(e.passed / e.runs);
  const most = Math.max(0, ...ran.map((l) => l.runs));
  const passAt: Record<string, number> = {};
  for (let k = 1; k <= most; k++) {
    const eligible = ran.filter((l) => l.runs >= k);
    passAt[String(k)] = round(eligible.reduce((sum, l) => sum + passAtK(l.runs, l.passed, k), 0) / eligible.length);
  }
  const summary: EvaluationSummary = {
    epochs: most,
    runs: records.length,
    passed,
    passRate: records.length ? round(passed / records.length) : 0,
    meanLineRate: ran.length ? round(ran.reduce((sum, l) => sum + l.passed / l.runs, 0) / ran.length) : 0,
    passAtK: passAt,
    byEpoch,
    unstableLines: ran.filter((l) => l.passed > 0 && l.passed < l.runs).length,
    lines: [...lines.values()],
  };
  const groups = new Map<string, BatchRecord[]>();
  for (const r of records) {
    const name = latencyGroup(r);
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  if (groups.size >= 2)
    summary.byGroup = [...groups.entries()]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([group, rs]) => {
        const e = evaluate(rs);
        const known = rs.filter((r) => r.costUsd !== undefined);
        return {
          group,
          lines: e.lines.length,
          runs: e.runs,
          passed: e.passed,
          passRate: e.passRate,
          passAtK: e.passAtK,
          costUsd: round(known.reduce((sum, r) => sum + r.costUsd!, 0)),
          costUnknownRuns: rs.filter((r) => r.costUsd === undefined && r.reason !== 'setup').length,
        };
      });
  if (byEpoch.length >= 2) {
    const rates = byEpoch.map((e) => e.passed / e.runs);
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    const variance = rates.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (rates.length - 1);
    summary.spread = {
      min: round(Math.min(...rates)),
      max: round(Math.max(...rates)),
      stdev: round(Math.sqrt(variance)),
    };
  }
  return summary;
}
