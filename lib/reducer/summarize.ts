/**
 * A run summary computed from the evidence in the state (DESIGN.md §3: never from counters kept
 * on the side): tool counts by status, files changed, tests, findings, usage, duration, outcome.
 */
import type { ErrorInfo, Usage } from '../events/index.js';
import { copyDefined, type ReducerState, type RunOutcomeState, type ToolStatus } from './state.js';
import { getKey } from './writer.js';
import { between } from './tools.js';

/** The summary of one run, as `replay --json` and `exec --json` print it. */
export interface RunSummary {
  sessionId: string;
  outcome: RunOutcomeState;
  ok: boolean;
  reason?: string;
  error?: ErrorInfo;
  origin?: string;
  provider?: string;
  model?: string;
  agent?: string;
  startedAt?: string;
  endedAt?: string;
  /** session.ended's duration, else end (or last event) minus start; absent when unknown. */
  durationMs?: number;
  tools: { total: number; byStatus: Partial<Record<ToolStatus, number>> };
  approvals: { total: number; byOutcome: Record<string, number> };
  /** Distinct paths in order of first change, with the last kind of change. */
  filesChanged: { path: string; kind: string }[];
  tests: { runs: number; ok?: boolean; passed?: number; failed?: number; skipped?: number };
  findings: { total: number; bySeverity: Record<string, number> };
  messages: number;
  results: number;
  /** Effective usage (see UsageState); absent when no usage was ever reported. */
  usage?: Usage;
  costUsd?: number;
  errors: number;
  diagnostics: number;
  anomalies: number;
  durableEvents: number;
}

function bump(record: Record<string, number>, key: string): void {
  record[key] = (Object.prototype.hasOwnProperty.call(record, key) ? (record[key] as number) : 0) + 1;
}

function sumOptional(values: (number | undefined)[]): number | undefined {
  let total: number | undefined;
  for (const v of values) if (v !== undefined) total = (total ?? 0) + v;
  return total;
}

/** Summarise a state. Pure. */
export function summarize(state: ReducerState): RunSummary {
  const byStatus: Partial<Record<ToolStatus, number>> = {};
  for (const id of state.toolOrder) {
    const t = getKey(state.tools, id);
    if (t) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  }
  const byOutcome: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const id of state.approvalOrder) {
    const a = getKey(state.approvals, id);
    if (a) bump(byOutcome, a.outcome ?? a.status);
  }
  const files = new Map<string, string>();
  for (const f of state.files) files.set(f.path, f.kind);
  const bySeverity: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const f of state.findings) bump(bySeverity, f.severity);

  const tests: RunSummary['tests'] = { runs: state.tests.length };
  if (state.tests.length > 0) {
    tests.ok = state.tests.every((t) => t.ok);
    const passed = sumOptional(state.tests.map((t) => t.passed));
    const failed = sumOptional(state.tests.map((t) => t.failed));
    const skipped = sumOptional(state.tests.map((t) => t.skipped));
    if (passed !== undefined) tests.passed = passed;
    if (failed !== undefined) tests.failed = failed;
    if (skipped !== undefined) tests.skipped = skipped;
  }

  const session = state.session;
  const summary: RunSummary = {
    sessionId: state.sessionId,
    outcome: state.run.outcome,
    ok: state.run.outcome === 'completed',
    tools: { total: state.toolOrder.length, byStatus },
    approvals: { total: state.approvalOrder.length, byOutcome: { ...byOutcome } },
    filesChanged: [...files].map(([path, kind]) => ({ path, kind })),
    tests,
    findings: { total: state.findings.length, bySeverity: { ...bySeverity } },
    messages: state.messages.length,
    results: state.results.length,
    errors: state.errors.length,
    diagnostics: state.diagnostics.count,
    anomalies: state.anomalies.length + state.anomaliesDropped,
    durableEvents: state.durableEvents,
  };
  if (state.run.reason !== undefined) summary.reason = state.run.reason;
  if (state.run.error !== undefined) summary.error = state.run.error;
  copyDefined(summary, session, ['origin', 'provider', 'model', 'agent', 'startedAt', 'endedAt']);
  const duration = session.durationMs ?? between(session.startedAt, session.endedAt ?? state.lastTimestamp);
  if (duration !== undefined) summary.durationMs = duration;
  const usage = state.usage.reported ?? state.usage.responses;
  if (usage !== undefined) summary.usage = usage;
  if (state.usage.costUsd !== undefined) summary.costUsd = state.usage.costUsd;
  return summary;
}
