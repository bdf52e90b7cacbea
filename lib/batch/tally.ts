/**
 * Batch accounting computed from the records (docs/event-model.md: summaries come from evidence):
 * the records already in the output directory plus those this invocation appends. Pure
 * accumulation; the progress display and `summary.json` both read it.
 */
import type { Usage } from '../events/index.js';
import { USAGE_FIELDS } from '../events/usage-fields.js';
import { createLatencyCollector, type LatencyCollector } from './latency.js';
import type { BatchRecord, ScoreResult } from './records.js';

/** Summed usage: the three headline counts always present, the rest once any record had them. */
export type TallyUsage = { inputTokens: number; outputTokens: number; totalTokens: number } & Omit<
  Usage,
  'inputTokens' | 'outputTokens' | 'totalTokens'
>;

/** Running totals over records. */
export interface Tally {
  completed: number;
  failed: number;
  usage: TallyUsage;
  /** Sum of known costs. */
  costUsd: number;
  /** Records whose cost is unknown (so `costUsd` is a lower bound when > 0). */
  costUnknown: number;
  /** Records whose cost is known (a price table matched their model). */
  costKnown: number;
  /** Prompt tokens and cache reads of the records that reported cache fields. */
  cache: { prompt: number; read: number };
  /** Records with usage but no cache fields (their hit ratio is unknown). */
  cacheUnknown: number;
  /** 429/529 answers the runs backed off from. */
  backoffs: number;
  /** Sum of run durations (ms). */
  runMs: number;
  /** Error records by code. */
  errorsByCode: Record<string, number>;
  /** Records whose verify command passed / failed. */
  verifyPassed: number;
  verifyFailed: number;
  /** First-token and total latencies, overall and per provider/model. */
  latency: LatencyCollector;
  /** The model graders' runs, apart from the agents' (`costUsd` and `usage` above leave them out). */
  grading: GradingTally;
}

/** The model scorers' grader runs over the records (summary.json's `grading`). */
export interface GradingTally {
  /** Model scorer verdicts, and of them the scorer errors (no verdict). */
  graded: number;
  errors: number;
  costUsd: number;
  /** Grader runs whose cost is unknown (then costUsd is a lower bound). */
  costUnknownRuns: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/** The latency group of a record: `provider/model`, or the native agent. */
export function latencyGroup(record: BatchRecord): string {
  if (record.agent) return `agent:${record.agent}${record.model ? `/${record.model}` : ''}`;
  return `${record.provider ?? 'default'}/${record.model ?? 'default'}`;
}

/** An empty tally. */
export function createTally(): Tally {
  return {
    completed: 0,
    failed: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    costUsd: 0,
    costUnknown: 0,
    costKnown: 0,
    cache: { prompt: 0, read: 0 },
    cacheUnknown: 0,
    backoffs: 0,
    runMs: 0,
    errorsByCode: Object.create(null) as Record<string, number>,
    verifyPassed: 0,
    verifyFailed: 0,
    latency: createLatencyCollector(),
    grading: {
      graded: 0,
      errors: 0,
      costUsd: 0,
      costUnknownRuns: 0,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    },
  };
}

const USAGE_KEYS = USAGE_FIELDS;

/** Add one record (mutates and returns the tally). */
export function addRecord(tally: Tally, record: BatchRecord): Tally {
  if (record.kind === 'result') tally.completed++;
  else {
    tally.failed++;
    tally.errorsByCode[record.error.code] = (tally.errorsByCode[record.error.code] ?? 0) + 1;
  }
  if (record.usage) {
    for (const key of USAGE_KEYS) {
      const v = record.usage[key];
      if (v !== undefined)
        (tally.usage as Record<string, number>)[key] =
          ((tally.usage as Record<string, number | undefined>)[key] ?? 0) + v;
    }
    if (record.usage.totalTokens === undefined)
      tally.usage.totalTokens += (record.usage.inputTokens ?? 0) + (record.usage.outputTokens ?? 0);
  }
  if (record.cache) {
    tally.cache.prompt += record.cache.prompt;
    tally.cache.read += record.cache.read;
  } else if (record.usage) tally.cacheUnknown++;
  if (record.costUsd !== undefined) {
    tally.costUsd += record.costUsd;
    tally.costKnown++;
  } else if (record.reason !== 'setup') tally.costUnknown++;
  // Tries retried before this record were paid for too.
  for (const retried of record.retries ?? []) tally.costUsd += retried.costUsd ?? 0;
  tally.backoffs += record.backoffs ?? 0;
  tally.runMs += record.durationMs ?? 0;
  if (record.verify) {
    if (record.verify.ok) tally.verifyPassed++;
    else tally.verifyFailed++;
  }
  tally.latency.add(record, latencyGroup(record));
  for (const score of record.scores ?? []) if (score.scorer === 'model') addGrading(tally.grading, score);
  return tally;
}

function addGrading(grading: GradingTally, score: ScoreResult): void {
  grading.graded++;
  if (score.error) grading.errors++;
  // A grader that never ran (set-up failed, run not completed) has no session to have paid for.
  if (score.sessionId === undefined) return;
  if (score.costUsd !== undefined) grading.costUsd += score.costUsd;
  else grading.costUnknownRuns++;
  const u = score.usage;
  if (!u) return;
  grading.usage.inputTokens += u.inputTokens ?? 0;
  grading.usage.outputTokens += u.outputTokens ?? 0;
  grading.usage.totalTokens += u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}

/**
 * A batch's cost as a person reads it: `$0.0123`, `cost unknown (20 runs)` when no run's cost is
 * known (never `$0.0000`), `≥ $0.0123 (cost unknown for 3 runs)` when some are known.
 */
export function costText(costUsd: number, known: number, unknown: number): string {
  if (unknown === 0) return `$${costUsd.toFixed(4)}`;
  const runs = `${unknown} ${unknown === 1 ? 'run' : 'runs'}`;
  if (known === 0) return `cost unknown (${runs})`;
  return `≥ $${costUsd.toFixed(4)} (cost unknown for ${runs})`;
}
