/**
 * The records a batch writes: one per id, in `results.jsonl` when the run completed and in
 * `errors.jsonl` otherwise. A record is built once, where the run settles (this process or a
 * queue worker), and is plain JSON so it crosses Redis unchanged.
 */
import type { Usage } from '../events/index.js';
import type { CacheShare } from '../control/usage.js';
import type { RunTiming } from './timing.js';

/** The error part of an error record. */
export interface RecordError {
  category: string;
  code: string;
  message: string;
}

/** Fields every record has. */
interface RecordBase {
  id: string;
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
export function setupErrorRecord(line: { id: string; line: number; metadata?: Record<string, unknown> }, error: RecordError): ErrorRecord {
  const record: ErrorRecord = { kind: 'error', id: line.id, line: line.line, outcome: 'failed', reason: 'setup', error };
  if (line.metadata) record.metadata = line.metadata;
  return record;
}
