/**
 * A run summary computed from the evidence in the state: tool counts by status, files changed,
 * tests, findings, usage, duration, outcome. The counts the state keeps for items that left
 * memory (`retired`, `counts`, the aggregates) are folded by the reducer from the same events,
 * never set from the side, so a summary of a long session equals one over every item.
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
  /** The agent that ran last (after handoffs, the one that finished). */
  agent?: string;
  /** Every native agent that ran, in order, when there was at least one. */
  agents?: string[];
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

/** Summarise a state. Pure. */
export function summarize(state: ReducerState): RunSummary {
  const retired = state.retired;
  const byStatus: Partial<Record<ToolStatus, number>> = { ...retired.tools.byStatus };
  for (const id of state.toolOrder) {
    const t = getKey(state.tools, id);
    if (t) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  }
  const byOutcome: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [k, v] of Object.entries(retired.approvals.byOutcome)) byOutcome[k] = v;
  for (const id of state.approvalOrder) {
    const a = getKey(state.approvals, id);
    if (a) bump(byOutcome, a.outcome ?? a.status);
  }
  const tests: RunSummary['tests'] = { ...state.testTotals };

  const session = state.session;
  const summary: RunSummary = {
    sessionId: state.sessionId,
    outcome: state.run.outcome,
    ok: state.run.outcome === 'completed',
    tools: { total: state.toolOrder.length + retired.tools.total, byStatus },
    approvals: { total: state.approvalOrder.length + retired.approvals.total, byOutcome: { ...byOutcome } },
    filesChanged: state.files.map((f) => ({ path: f.path, kind: f.kind })),
    tests,
    findings: { total: state.counts.findings, bySeverity: { ...state.findingsBySeverity } },
    messages: state.counts.messages,
    results: state.counts.results,
    errors: state.counts.errors,
    diagnostics: state.diagnostics.count,
    anomalies: state.anomalies.length + state.anomaliesDropped,
    durableEvents: state.durableEvents,
  };
  if (state.run.reason !== undefined) summary.reason = state.run.reason;
  if (state.run.error !== undefined) summary.error = state.run.error;
  copyDefined(summary, session, ['origin', 'provider', 'model', 'agent', 'startedAt', 'endedAt']);
  if (session.agents !== undefined) summary.agents = [...session.agents];
  const duration = session.durationMs ?? between(session.startedAt, session.endedAt ?? state.lastTimestamp);
  if (duration !== undefined) summary.durationMs = duration;
  const usage = state.usage.reported ?? state.usage.responses;
  if (usage !== undefined) summary.usage = usage;
  if (state.usage.costUsd !== undefined) summary.costUsd = state.usage.costUsd;
  return summary;
}
