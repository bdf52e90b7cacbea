/**
 * The records a batch writes: one per id, in `results.jsonl` when the run completed and in
 * `errors.jsonl` otherwise. A record is built once, where the run settles (this process or a
 * queue worker), and is plain JSON so it crosses Redis unchanged.
 */
import type { Usage } from '../events/index.js';
import type { CacheShare } from '../control/usage.js';
import type { RunTiming } from './timing.js';
import type { LimitKind } from '../providers/common/errors.js';

/** The error part of an error record. */
export interface RecordError {
  category: string;
  code: string;
  message: string;
  /** The provider's HTTP status, when the failure was an answer (decides whether a retry may help). */
  httpStatus?: number;
  /**
   * Whether waiting may help, as the provider layer classified the failure (`RETRYABLE`,
   * `ACTION_REQUIRED` for an exhausted usage quota or spend limit, ...); absent when the run's
   * error had none (a setup failure, a native agent).
   */
  recoverability?: string;
  /** The provider limit the failure was (`rate-limit`, `overloaded`, `usage-quota`, `context-length`), by the provider error classification. */
  limit?: LimitKind;
}

/** One scorer's verdict on a run (lib/batch/scorers.ts). */
export interface ScoreResult {
  /** `equals`, `includes`, `regex`, `jsonSchema` or `model`. */
  scorer: string;
  passed: boolean;
  /** The model grader's score on its scale. */
  score?: number;
  /** Why it failed, or the grader's reasoning (scrubbed, cut). */
  detail?: string;
  /** The model grader's own session (in the store of the machine that ran it). */
  sessionId?: string;
  /** The model grader's own cost (USD), absent when unknown; not in the run's `costUsd`. */
  costUsd?: number;
  /** The model grader's own usage; not in the run's `usage`. */
  usage?: Usage;
  /** The scorer could not give a verdict (the grader failed or answered no verdict): `passed` is false. */
  error?: { code: string; message: string };
}

/** A transient failure that was retried (the record keeps each one). */
export interface RetriedFailure {
  error: RecordError;
  sessionId?: string;
  durationMs?: number;
  /** What that try cost (USD), when known: the batch's cost counts it. */
  costUsd?: number;
  /** The wait before the next try (ms). */
  waitedMs: number;
}

/** Fields every record has. */
interface RecordBase {
  id: string;
  /** Which run of the line this is (1 .. epochs); absent in records written before epochs existed (attempt 1). */
  attempt?: number;
  /** The run passed: completed, verify passed where it ran, every scorer passed (lib/batch/evaluation.ts). */
  passed?: boolean;
  /** The line's `expect` scorers, each one's verdict. */
  scores?: ScoreResult[];
  /** Transient failures retried before this record (`--retries`), oldest first. */
  retries?: RetriedFailure[];
  /** Line number in the input file. */
  line: number;
  /** `completed`, `failed` or `cancelled` (the session's outcome). */
  outcome: string;
  /** The termination reason (`completed`, `provider`, `budget_exceeded`, ...). */
  reason: string;
  usage?: Usage;
  /** Estimated USD; absent when unknown (never zero for unknown). */
  costUsd?: number;
  /** Prompt tokens and the part read from the provider's cache; absent when unknown. */
  cache?: CacheShare;
  durationMs?: number;
  /** Session id in the store of the machine that ran it. */
  sessionId?: string;
  /** Native agent, when the line named one. */
  agent?: string;
  /** Lines with `fallback`: every agent that ran, in order (the last one finished the line). */
  agents?: string[];
  metadata?: Record<string, unknown>;
  /** Provider retries after 429/529 during the run. */
  backoffs?: number;
  /** Which worker ran it (distributed mode). */
  worker?: string;
  /** `sha256:<hex>` of the run's effective system prompt (written part and instructions): `batch report --compare` groups by it. */
  systemPromptDigest?: string;
  /** Provider and model the line ran with, when known (the summary's latency groups). */
  provider?: string;
  model?: string;
  /** Latency breakdown (see lib/batch/timing.ts). */
  timing?: RunTiming;
  /** Output tokens over model-stream seconds. */
  outputTokensPerSecond?: number;
  /** The line's verify command's result (a failed verify is an outcome, the record stays where the run put it). */
  verify?: LineVerify;
  /** `OUT/patches/<id>.diff`: the line's changes to its isolated workspace, relative to OUT. */
  patch?: string;
  /** The isolated workspace, when kept (`--keep-workspaces`). */
  workspace?: string;
}

/** What the line's verify command gave. */
export interface LineVerify {
  ok: boolean;
  exitCode?: number;
  durationMs: number;
  /** The last lines of its output, credentials scrubbed. */
  outputTail: string;
}

/** A completed run (`results.jsonl`). */
export interface ResultRecord extends RecordBase {
  kind: 'result';
  finalText: string;
  /** The `submit_result` JSON, when the model called it. */
  result?: unknown;
}

/** A run that did not complete, or could not start (`errors.jsonl`). */
export interface ErrorRecord extends RecordBase {
  kind: 'error';
  error: RecordError;
}

/** Either record. */
export type BatchRecord = ResultRecord | ErrorRecord;

/** An error record for a run that could not even start (setup failure, internal error). */
export function setupErrorRecord(
  line: { id: string; line: number; attempt?: number; metadata?: Record<string, unknown> },
  error: RecordError,
): ErrorRecord {
  const record: ErrorRecord = {
    kind: 'error',
    id: line.id,
    line: line.line,
    outcome: 'failed',
    reason: 'setup',
    error,
  };
  if (line.attempt !== undefined) record.attempt = line.attempt;
  if (line.metadata) record.metadata = line.metadata;
  return record;
}
