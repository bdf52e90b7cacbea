/**
 * Tool and approval state machines (docs/event-model.md).
 *
 * Tool: started -> running -> completed | failed | denied | cancelled. First terminal wins: a
 * second terminal for the same toolCallId is ignored and recorded as an anomaly (I-A03). A
 * terminal without a start is kept as `incomplete` (what it reported stays in `reportedStatus`)
 * and flagged. Only durable events move a tool: `tool.started` with envelope status `active`
 * or an `allow` approval for the call make it `running`; `tool.progress` (live) only feeds
 * the transient progress line, so a rebuild reaches the same status as live reduction.
 *
 * Approval: requested -> settled {allow | allow-always | deny | cancelled}. Open approvals are
 * force-closed as cancelled(parent-ended) when their task settles, when the session ends and
 * on rebuild (I-A08).
 */
import type { OutputEvent, OutputEventOf } from '../events/index.js';
import { isToolSettled, type ApprovalState, type ReceiptState, type ToolState } from './state.js';
import { deleteKey, getKey, putKey, type StateWriter } from './writer.js';

// The latest timestamps parsed: consecutive events mostly share their millisecond (the
// enveloper formats it once), and Date.parse was a visible part of a tool terminal's cost.
let text0 = '';
let ms0 = Number.NaN;
let text1 = '';
let ms1 = Number.NaN;

/** Date.parse with a two-entry memo (a pure function of the text). */
function parseTime(text: string): number {
  if (text === text0) return ms0;
  if (text === text1) return ms1;
  text1 = text0;
  ms1 = ms0;
  text0 = text;
  ms0 = Date.parse(text);
  return ms0;
}

/** Milliseconds between two ISO timestamps; absent when either is missing or unparsable. */
export function between(start: string | undefined, end: string | undefined): number | undefined {
  if (start === undefined || end === undefined) return undefined;
  const ms = parseTime(end) - parseTime(start);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function withToolAnomaly(tool: ToolState, kind: string): ToolState {
  return { ...tool, anomalies: [...(tool.anomalies ?? []), kind] };
}

export function onToolStarted(w: StateWriter, e: OutputEventOf<'tool.started'>): void {
  const p = e.payload;
  const existing = getKey(w.s.tools, p.toolCallId);
  if (existing) {
    const kind = isToolSettled(existing.status) ? 'start-after-terminal' : 'duplicate-start';
    w.anomaly({ kind, seq: e.seq, type: e.type, id: p.toolCallId });
    // A late start still tells us what the call was; keep the terminal status it already has.
    const filled = withToolAnomaly({ ...existing }, kind);
    filled.name ??= p.name;
    if (filled.kind === undefined && p.kind !== undefined) filled.kind = p.kind;
    if (filled.title === undefined && p.title !== undefined) filled.title = p.title;
    if (filled.startedAt === undefined) filled.startedAt = e.timestamp;
    putKey(w.record('tools'), p.toolCallId, filled);
    return;
  }
  const tool: ToolState = {
    toolCallId: p.toolCallId,
    name: p.name,
    status: e.status === 'active' ? 'running' : 'started',
    startedAt: e.timestamp,
  };
  if (p.kind !== undefined) tool.kind = p.kind;
  if (p.title !== undefined) tool.title = p.title;
  if (p.executor !== undefined) tool.executor = p.executor;
  if (p.parentToolCallId !== undefined) tool.parentToolCallId = p.parentToolCallId;
  putKey(w.record('tools'), p.toolCallId, tool);
  w.list('toolOrder').push(p.toolCallId);
}

type ToolTerminal = OutputEventOf<'tool.completed' | 'tool.failed' | 'tool.denied' | 'tool.cancelled'>;
const TERMINAL_STATUS = {
  'tool.completed': 'completed',
  'tool.failed': 'failed',
  'tool.denied': 'denied',
  'tool.cancelled': 'cancelled',
} as const;

export function onToolTerminal(w: StateWriter, e: ToolTerminal): void {
  const p = e.payload;
  const id = p.toolCallId;
  const status = TERMINAL_STATUS[e.type];
  const existing = getKey(w.s.tools, id);
  if (existing && isToolSettled(existing.status)) {
    w.anomaly({ kind: 'second-terminal', seq: e.seq, type: e.type, id, detail: `kept ${existing.status}` });
    putKey(w.record('tools'), id, withToolAnomaly(existing, 'second-terminal'));
    return;
  }
  let tool: ToolState;
  if (!existing) {
    w.anomaly({ kind: 'terminal-without-start', seq: e.seq, type: e.type, id });
    tool = { toolCallId: id, status: 'incomplete', reportedStatus: status, anomalies: ['terminal-without-start'] };
    w.list('toolOrder').push(id);
  } else {
    // Owned: edit in place (the same keys in the same order as the copy would have).
    tool = w.owned ? existing : { ...existing };
    tool.status = status;
  }
  tool.endedAt = e.timestamp;
  if (p.name !== undefined) tool.name ??= p.name;
  const payloadDuration = 'durationMs' in p ? p.durationMs : undefined;
  const duration = payloadDuration ?? between(tool.startedAt, e.timestamp);
  if (duration !== undefined) tool.durationMs = duration;
  switch (e.type) {
    case 'tool.completed':
      tool.summary = e.payload.summary;
      copyOutcome(tool, e.payload);
      break;
    case 'tool.failed':
      tool.cause = e.payload.cause;
      tool.message = e.payload.message;
      if (e.payload.hint !== undefined) tool.hint = e.payload.hint;
      copyOutcome(tool, e.payload);
      break;
    case 'tool.denied':
    case 'tool.cancelled':
      tool.reason = e.payload.reason;
      break;
  }
  putKey(w.record('tools'), id, tool);
  if (getKey(w.s.live.toolProgress, id) !== undefined) deleteKey(w.live('toolProgress'), id);
}

function copyOutcome(tool: ToolState, p: OutputEventOf<'tool.completed' | 'tool.failed'>['payload']): void {
  if (p.output !== undefined) tool.output = p.output;
  if (p.expandRef !== undefined) tool.expandRef = p.expandRef;
  if (p.receipt !== undefined) {
    const receipt: ReceiptState = {};
    const from = p.receipt as Record<string, unknown>;
    // Object.keys rather than Object.entries: no [key, value] pair per field of every tool terminal.
    const keys = Object.keys(from);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const v = from[k];
      if (v !== undefined) (receipt as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
    }
    tool.receipt = receipt;
  }
}

export function onApprovalRequested(w: StateWriter, e: OutputEventOf<'user.approval.requested'>): void {
  const p = e.payload;
  if (getKey(w.s.approvals, p.approvalId)) {
    w.anomaly({ kind: 'duplicate-start', seq: e.seq, type: e.type, id: p.approvalId });
    return;
  }
  const approval: ApprovalState = {
    approvalId: p.approvalId,
    status: 'requested',
    action: p.action,
    requestedAt: e.timestamp,
  };
  if (p.toolCallId !== undefined) approval.toolCallId = p.toolCallId;
  if (p.toolName !== undefined) approval.toolName = p.toolName;
  // The parent is the most recently started open task (approvals carry no task id of their own).
  const parent = w.s.openTasks[w.s.openTasks.length - 1];
  if (parent !== undefined) approval.taskId = parent;
  putKey(w.record('approvals'), p.approvalId, approval);
  w.list('approvalOrder').push(p.approvalId);
}

export function onApprovalSettled(w: StateWriter, e: OutputEventOf<'user.approval.settled'>): void {
  const p = e.payload;
  const existing = getKey(w.s.approvals, p.approvalId);
  if (existing?.status === 'settled') {
    w.anomaly({
      kind: 'second-terminal',
      seq: e.seq,
      type: e.type,
      id: p.approvalId,
      detail: `kept ${existing.outcome}`,
    });
    return;
  }
  let approval: ApprovalState;
  if (!existing) {
    w.anomaly({ kind: 'settle-without-request', seq: e.seq, type: e.type, id: p.approvalId });
    approval = { approvalId: p.approvalId, status: 'settled' };
    w.list('approvalOrder').push(p.approvalId);
  } else {
    approval = { ...existing, status: 'settled' };
  }
  approval.outcome = p.outcome;
  approval.settledAt = e.timestamp;
  if (p.reason !== undefined) approval.reason = p.reason;
  putKey(w.record('approvals'), p.approvalId, approval);
  // An allowed call is now executing.
  if ((p.outcome === 'allow' || p.outcome === 'allow-always') && approval.toolCallId !== undefined) {
    const tool = getKey(w.s.tools, approval.toolCallId);
    if (tool?.status === 'started') putKey(w.record('tools'), tool.toolCallId, { ...tool, status: 'running' });
  }
}

/**
 * Force-close open approvals as cancelled(parent-ended). `taskId` limits it to the approvals of
 * one task (and those with no task); without it every open approval closes.
 */
export function forceCloseApprovals(w: StateWriter, at: string | undefined, taskId?: string): void {
  for (const id of w.s.approvalOrder) {
    const a = getKey(w.s.approvals, id);
    if (!a || a.status !== 'requested') continue;
    if (taskId !== undefined && a.taskId !== undefined && a.taskId !== taskId) continue;
    const closed: ApprovalState = { ...a, status: 'settled', outcome: 'cancelled', reason: 'parent-ended' };
    if (at !== undefined) closed.settledAt = at;
    putKey(w.record('approvals'), id, closed);
  }
}

/** Mark every open tool `incomplete` (the session ended or the process stopped before its terminal). */
export function closeOpenTools(w: StateWriter, at: string | undefined, e?: OutputEvent): void {
  for (const id of w.s.toolOrder) {
    const t = getKey(w.s.tools, id);
    if (!t || isToolSettled(t.status)) continue;
    if (e) w.anomaly({ kind: 'open-at-session-end', seq: e.seq, type: e.type, id });
    const closed: ToolState = { ...t, status: 'incomplete', reason: e ? 'session-ended' : 'interrupted' };
    if (at !== undefined) closed.endedAt = at;
    putKey(w.record('tools'), id, closed);
  }
}
