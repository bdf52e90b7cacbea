/**
 * Latency percentiles for `summary.json`. One method, nearest-rank: the p-th percentile of n
 * sorted values is the value at rank ceil(p/100 * n) (1-based), so it is always an observed
 * value, never an interpolation (the same answer a reader gets by sorting and counting).
 */
import type { BatchRecord } from './records.js';

/** p50/p90/p99/max of one measure, over `count` records that had it. */
export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Latency of a set of records. */
export interface LatencyGroup {
  firstTokenMs?: Percentiles;
  totalMs?: Percentiles;
}

/** `summary.latency`: overall and per `provider/model` (or native agent). */
export interface LatencySummary extends LatencyGroup {
  byModel: Record<string, LatencyGroup>;
}

/** The nearest-rank percentile of ascending `sorted` (non-empty), p in (0, 100]. */
export function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Percentiles of unsorted values; undefined when empty. */
export function percentiles(values: readonly number[]): Percentiles | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: nearestRank(sorted, 50),
    p90: nearestRank(sorted, 90),
    p99: nearestRank(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}

/** Collects the two measures per group as records arrive (two numbers per record). */
export interface LatencyCollector {
  add(record: BatchRecord, group: string): void;
  summary(): LatencySummary;
}

/** An empty collector. */
export function createLatencyCollector(): LatencyCollector {
  const groups = new Map<string, { first: number[]; total: number[] }>();
  const all = { first: [] as number[], total: [] as number[] };
  const groupOf = (name: string): { first: number[]; total: number[] } => {
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { first: [], total: [] }));
    return g;
  };
  const toGroup = (g: { first: number[]; total: number[] }): LatencyGroup => {
    const out: LatencyGroup = {};
    const first = percentiles(g.first);
    const total = percentiles(g.total);
    if (first) out.firstTokenMs = first;
    if (total) out.totalMs = total;
    return out;
  };
  return {
    add(record, group) {
      const t = record.timing;
      if (!t) return;
      const g = groupOf(group);
      if (t.firstTokenMs !== undefined) {
        all.first.push(t.firstTokenMs);
        g.first.push(t.firstTokenMs);
      }
      all.total.push(t.totalMs);
      g.total.push(t.totalMs);
    },
    summary() {
      const byModel: Record<string, LatencyGroup> = {};
      for (const [name, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) byModel[name] = toGroup(g);
      return { ...toGroup(all), byModel };
    },
  };
}
