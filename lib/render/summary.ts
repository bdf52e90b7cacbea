import { outputRedactor } from '../artefacts.js';
import { BATCH_SUMMARY_SCHEMA, SCHEMA_NAME } from '../events/schema-name.js';
import { displayText, oneLine } from './display-text.js';
import type { FinishExtra } from './types.js';
import type { RunView, ToolCounts } from './view.js';
import { definedOnly } from '../defined-only.js';

/** The run summary every renderer prints: reducer figures plus what only the caller knows. */
export interface SummaryView extends RunView {
  readonly ok: boolean;
  readonly verify?: { active: true; ok: boolean; command: string };
  readonly cacheHitRatio?: number;
}

/**
 * Combine the reducer's run figures with the caller's extras. `ok` is true only for a
 * completed run; `verify` is kept only on a success summary and only when it ran (seed
 * automation-ci: absent, never null, and never on a failure summary). A run that stopped before
 * its first turn (`extra.error`) is a failure with that error.
 */
export function projectSummary(run: RunView, extra: FinishExtra = {}): SummaryView {
  if (extra.error) return { ...run, outcome: 'failed', error: errorLine(extra.error), ok: false };
  if (extra.interrupted) return { ...run, error: errorLine(extra.interrupted), ok: false };
  if (extra.notStored) return { ...run, error: errorLine(extra.notStored), ok: false };
  const ok = run.outcome === 'completed';
  const result = extra.result !== undefined ? { hasResult: true, result: extra.result } : {};
  const verify =
    ok && extra.verify
      ? { verify: { active: true as const, ok: extra.verify.ok, command: oneLine(extra.verify.command) } }
      : {};
  const cache = extra.cacheHitRatio !== undefined ? { cacheHitRatio: extra.cacheHitRatio } : {};
  return { ...run, ...result, ok, ...verify, ...cache };
}

/**
 * An error as the summary shows it: message and action on one line each, as a setup failure's,
 * scrubbed like event output (they quote input: a `--model` value, a URL with its password).
 */
function errorLine(error: NonNullable<FinishExtra['error']>): NonNullable<FinishExtra['error']> {
  const redact = outputRedactor();
  const line: NonNullable<FinishExtra['error']> = definedOnly({
    category: error.category,
    code: error.code,
    message: redact(oneLine(error.message, 2000)),
  });
  if (error.action !== undefined) line.action = redact(oneLine(error.action, 2000));
  return line;
}

/** The `exec --json` terminal record (docs/exec.md). Field order is fixed for readable logs. */
export interface JsonSummary {
  schema: typeof SCHEMA_NAME;
  type: 'summary';
  ok: boolean;
  outcome?: string;
  reason?: string;
  sessionId?: string;
  durationMs?: number;
  usage?: Record<string, number>;
  costUsd?: number;
  /** Share of prompt tokens read from cache (0..1, 3 decimals); absent when unknown. */
  cacheHitRatio?: number;
  tools?: ToolCounts;
  filesChanged?: string[];
  result?: unknown;
  verify?: { active: true; ok: boolean; command: string };
  /** `code` is the stable `MINICODE_E_*` (or provider) code when there is one. */
  error?: { category: string; code?: string; message: string; action?: string };
  prompt?: string;
  /** Native runs: the agents that ran, in order; `agent` is the one that finished. */
  agent?: string;
  agents?: string[];
}

/** The summary record of a run. */
export function jsonSummary(summary: SummaryView): JsonSummary {
  const record: JsonSummary = { schema: SCHEMA_NAME, type: 'summary', ok: summary.ok, outcome: summary.outcome };
  if (summary.reason !== undefined) record.reason = summary.reason;
  record.sessionId = summary.sessionId;
  if (summary.durationMs !== undefined) record.durationMs = summary.durationMs;
  record.usage = { ...summary.usage } as Record<string, number>;
  if (summary.costUsd !== undefined) record.costUsd = summary.costUsd;
  if (summary.cacheHitRatio !== undefined) record.cacheHitRatio = Number(summary.cacheHitRatio.toFixed(3));
  record.tools = { ...summary.tools };
  record.filesChanged = [...summary.filesChanged];
  if (summary.hasResult) record.result = summary.result;
  if (summary.agents !== undefined && summary.agents.length > 0) {
    record.agent = summary.agents[summary.agents.length - 1] as string;
    record.agents = [...summary.agents];
  }
  if (summary.ok && summary.verify) record.verify = summary.verify;
  if (!summary.ok) record.error = summary.error ?? { category: 'AGENT_ERROR', message: `run ended ${summary.outcome}` };
  return record;
}

/** The error of a setup failure (no provider, bad flag, bad config). */
export interface SetupFailure {
  category: string;
  /** The stable error code (`MINICODE_E_NO_PROVIDER`, ...). */
  code?: string;
  message: string;
  action?: string;
  /** The prompt the run was given, when there was one. */
  prompt?: string;
}

/**
 * The single `ok:false` summary line a setup failure still prints on stdout, so the stream is
 * never empty (seed automation-ci); the human message goes to stderr and the exit code is 1.
 */
export function setupFailureSummary(failure: SetupFailure): JsonSummary {
  const record: JsonSummary = {
    schema: SCHEMA_NAME,
    type: 'summary',
    ok: false,
    outcome: 'failed',
    error: errorLine(failure),
  };
  // The prompt never reached the pipeline's scrub stage: it is scrubbed here as it would have been.
  if (failure.prompt !== undefined) record.prompt = outputRedactor()(displayText(failure.prompt));
  return record;
}

/** `batch --json`'s one `ok:false` summary line of a failure before any line ran (its error as given). */
export function batchFailureSummary(error: NonNullable<FinishExtra['error']>): {
  type: 'batch.summary';
  schema: typeof BATCH_SUMMARY_SCHEMA;
  ok: false;
  error: NonNullable<FinishExtra['error']>;
} {
  return { type: 'batch.summary', schema: BATCH_SUMMARY_SCHEMA, ok: false, error };
}
