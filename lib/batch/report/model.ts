/**
 * The figures a report shows, computed from the records (the evidence) with the batch's own
 * tally, so the report and `summary.json` agree by construction. What only the running batch
 * knew (total ids, pending, duration, throughput on its clock) comes from `summary.json`; a
 * batch without one (still running, killed) gets throughput from the records' `timing.totalMs`.
 */
import { percentiles, type LatencySummary, type Percentiles } from '../latency.js';
import type { BatchRecord } from '../records.js';
import { addRecord, createTally, latencyGroup, type Tally } from '../tally.js';
import { recordTokens, throughputSeries, type ThroughputSeries } from '../throughput.js';
import type { LoadedBatch } from './load.js';
import { evaluate, type EvaluationSummary } from '../evaluation.js';
import type { TranscriptEntry } from './transcripts.js';

/** Per provider/model figures. */
export interface ModelRow {
  group: string;
  lines: number;
  completed: number;
  costUsd: number;
  /** Runs whose cost is unknown (not counted in `costUsd`). */
  costUnknown: number;
  tokens: number;
  verifyPassed: number;
  verifyFailed: number;
}

/** One run, ready to draw. */
export interface RunView {
  dir: string;
  records: BatchRecord[];
  prompts: Map<string, string>;
  /** Patch text by the records' `patch` path. */
  patches: Map<string, string>;
  /** Each run's conversation by session id, from the store; a session the store does not hold is absent. */
  transcripts: Map<string, TranscriptEntry[]>;
  /** Where the transcripts were looked for (said when one is missing). */
  storeDir?: string;
  unreadable: number;
  /** Ids in the input (summary), else the records. */
  total: number;
  completed: number;
  failed: number;
  pending: number;
  tally: Tally;
  latency: LatencySummary;
  /** Output tokens per second over the records that had it. */
  outputTokensPerSecond?: Percentiles;
  throughput: ThroughputSeries;
  /** From summary.json when present. */
  durationMs?: number;
  runsPerSecond?: number;
  byModel: ModelRow[];
  totalMsValues: number[];
  firstTokenMsValues: number[];
  /** Pass rates, pass@k and the spread between epochs, from the records. */
  evaluation: EvaluationSummary;
}

/** Build the view of one loaded output directory (with the transcripts found in the store, when looked for). */
export function buildRunView(
  loaded: LoadedBatch,
  found: { transcripts?: Map<string, TranscriptEntry[]>; storeDir?: string } = {},
): RunView {
  const tally = createTally();
  const groups = new Map<string, ModelRow>();
  const tps: number[] = [];
  const totalMsValues: number[] = [];
  const firstTokenMsValues: number[] = [];
  const records = [...loaded.records].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.id.localeCompare(b.id));
  for (const r of records) {
    addRecord(tally, r);
    const name = latencyGroup(r);
    let g = groups.get(name);
    if (!g)
      groups.set(
        name,
        (g = {
          group: name,
          lines: 0,
          completed: 0,
          costUsd: 0,
          costUnknown: 0,
          tokens: 0,
          verifyPassed: 0,
          verifyFailed: 0,
        }),
      );
    g.lines++;
    if (r.kind === 'result') g.completed++;
    g.costUsd += r.costUsd ?? 0;
    if (r.costUsd === undefined && r.reason !== 'setup') g.costUnknown++;
    g.tokens += recordTokens(r.usage);
    if (r.verify) r.verify.ok ? g.verifyPassed++ : g.verifyFailed++;
    if (typeof r.outputTokensPerSecond === 'number') tps.push(r.outputTokensPerSecond);
    if (r.timing) {
      totalMsValues.push(r.timing.totalMs);
      if (r.timing.firstTokenMs !== undefined) firstTokenMsValues.push(r.timing.firstTokenMs);
    }
  }
  const s = loaded.summary;
  const total = typeof s?.total === 'number' ? Math.max(s.total, records.length) : records.length;
  const throughput =
    s?.throughput && Array.isArray(s.throughput.buckets) && typeof s.throughput.intervalMs === 'number'
      ? s.throughput
      : throughputSeries(
          records
            .filter((r) => r.timing)
            .map((r) => ({ atMs: r.timing!.totalMs, ok: r.kind === 'result', tokens: recordTokens(r.usage) })),
          Math.max(0, ...totalMsValues),
        );
  const view: RunView = {
    dir: loaded.dir,
    records,
    prompts: loaded.prompts,
    patches: loaded.patches,
    transcripts: found.transcripts ?? new Map(),
    unreadable: loaded.unreadable,
    total,
    completed: tally.completed,
    failed: tally.failed,
    pending: Math.max(0, total - tally.completed - tally.failed),
    tally,
    latency: tally.latency.summary(),
    throughput,
    byModel: [...groups.values()].sort((a, b) => a.group.localeCompare(b.group)),
    totalMsValues,
    firstTokenMsValues,
    evaluation: evaluate(records),
  };
  const p = percentiles(tps);
  if (p) view.outputTokensPerSecond = p;
  if (found.storeDir !== undefined) view.storeDir = found.storeDir;
  if (typeof s?.durationMs === 'number') view.durationMs = s.durationMs;
  if (typeof s?.rates?.runsPerSecond === 'number') view.runsPerSecond = s.rates.runsPerSecond;
  return view;
}

/** Verify rate of a view, undefined when nothing was verified. */
export function verifyRate(view: RunView): number | undefined {
  const n = view.tally.verifyPassed + view.tally.verifyFailed;
  return n > 0 ? view.tally.verifyPassed / n : undefined;
}
