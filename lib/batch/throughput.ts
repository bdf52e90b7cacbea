/**
 * Throughput over time for `summary.json` and the report: the records finished in each
 * interval of a batch (completed, failed, tokens). The interval is chosen from the duration so
 * that a batch of any length gets at most {@link MAX_BUCKETS} buckets on a round step (1 s, 2 s,
 * 5 s, 10 s, ...), which keeps the summary small for a 10,000-line batch and readable as a chart.
 * Pure: offsets are milliseconds since the batch started, given by the caller.
 */

/** Most buckets in a series. */
export const MAX_BUCKETS = 60;

const STEPS_MS = [
  1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
];

/** One interval: records finished in `[startMs, startMs + intervalMs)`. */
export interface ThroughputBucket {
  startMs: number;
  completed: number;
  failed: number;
  /** Total tokens of the records finished in the interval (input + output when no total was reported). */
  tokens: number;
}

/** `summary.throughput`: the records this invocation finished, per interval. */
export interface ThroughputSeries {
  intervalMs: number;
  buckets: ThroughputBucket[];
}

/** One finished record, as the series needs it. */
export interface FinishedPoint {
  /** Milliseconds since the batch started. */
  atMs: number;
  ok: boolean;
  tokens: number;
}

/** The smallest round interval that fits `durationMs` into {@link MAX_BUCKETS} buckets. */
export function intervalFor(durationMs: number): number {
  for (const step of STEPS_MS) if (Math.ceil(Math.max(durationMs, 1) / step) <= MAX_BUCKETS) return step;
  return Math.ceil(durationMs / MAX_BUCKETS / 3_600_000) * 3_600_000;
}

/** Bucket the points; empty intervals between the first and the last are kept as zeros (a stall shows). */
export function throughputSeries(points: readonly FinishedPoint[], durationMs: number): ThroughputSeries {
  const last = points.reduce((m, p) => Math.max(m, p.atMs), 0);
  const intervalMs = intervalFor(Math.max(durationMs, last));
  if (points.length === 0) return { intervalMs, buckets: [] };
  const count = Math.floor(last / intervalMs) + 1;
  const buckets: ThroughputBucket[] = Array.from({ length: count }, (_, i) => ({
    startMs: i * intervalMs,
    completed: 0,
    failed: 0,
    tokens: 0,
  }));
  for (const p of points) {
    const b = buckets[Math.min(count - 1, Math.max(0, Math.floor(p.atMs / intervalMs)))]!;
    if (p.ok) b.completed++;
    else b.failed++;
    b.tokens += p.tokens;
  }
  return { intervalMs, buckets };
}

/** A record's tokens as the tally counts them. */
export function recordTokens(
  usage:
    | { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined }
    | undefined,
): number {
  if (!usage) return 0;
  return usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}
