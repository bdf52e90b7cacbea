/**
 * Final semantic content and evidence: messages, reasoning, provider tool calls, plan, files,
 * tests, findings, results, usage, limits, errors, diagnostics. Plus the live streaming text,
 * which is transient: a completed or truncated message removes its streaming entry, and a
 * rebuild (which sees no deltas) never turns streamed text into a final message.
 */
import type { OutputEventOf, Usage } from '../events/index.js';
import { USAGE_FIELDS } from '../events/usage-fields.js';
import {
  MAX_ARGUMENTS_CHARS,
  MAX_LIVE_CHARS,
  type MessageState,
  type ProviderToolCallState,
  type ReasoningState,
} from './state.js';
import { deleteKey, getKey, putKey, type StateWriter } from './writer.js';

const USAGE_KEYS = USAGE_FIELDS;

/** Add usage field by field; a field absent on both sides stays absent (unknown, never 0). */
export function addUsage(a: Usage | undefined, b: Usage): Usage {
  const out: Usage = {};
  for (const k of USAGE_KEYS) {
    const x = a?.[k];
    const y = b[k];
    if (y !== undefined) out[k] = (x ?? 0) + y;
    else if (x !== undefined) out[k] = x;
  }
  return out;
}

/** Replace usage field by field with cumulative totals; a field the report lacks keeps its last known value. */
export function replaceUsage(a: Usage | undefined, b: Usage): Usage {
  const out: Usage = {};
  for (const k of USAGE_KEYS) {
    const v = b[k] ?? a?.[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function hasAny(u: Usage): boolean {
  return USAGE_KEYS.some((k) => u[k] !== undefined);
}

export function onUsageReported(w: StateWriter, e: OutputEventOf<'usage.reported'>): void {
  const p = e.payload;
  const u = { ...w.s.usage };
  u.reported = p.cumulative ? replaceUsage(u.reported, p.usage) : addUsage(u.reported, p.usage);
  if (p.costUsd !== undefined) u.costUsd = p.cumulative ? p.costUsd : (u.costUsd ?? 0) + p.costUsd;
  else if (hasAny(p.usage)) u.unpricedReports += 1;
  w.s.usage = u;
}

export function onResponseUsage(w: StateWriter, usage: Usage | undefined): void {
  if (!usage || !hasAny(usage)) return;
  w.s.usage = { ...w.s.usage, responses: addUsage(w.s.usage.responses, usage) };
}

export function onMessageFinal(
  w: StateWriter,
  e: OutputEventOf<'assistant.message.completed' | 'assistant.message.truncated'>,
): void {
  const p = e.payload;
  const m: MessageState = {
    messageId: p.messageId,
    status: e.type === 'assistant.message.completed' ? 'completed' : 'truncated',
    text: p.text,
    at: e.timestamp,
  };
  if (e.type === 'assistant.message.completed' && e.payload.refusal !== undefined) m.refusal = e.payload.refusal;
  if (e.type === 'assistant.message.truncated') m.reason = e.payload.reason;
  if (p.textRef !== undefined) m.textRef = p.textRef;
  w.recent('messages', m);
  if (getKey(w.s.live.messages, p.messageId) !== undefined) deleteKey(w.live('messages'), p.messageId);
}

export function onReasoning(w: StateWriter, e: OutputEventOf<'assistant.reasoning.completed'>): void {
  const p = e.payload;
  const r: ReasoningState = { reasoningId: p.reasoningId };
  if (p.text !== undefined) r.text = p.text;
  if (p.redacted !== undefined) r.redacted = p.redacted;
  if (p.signature !== undefined || p.data !== undefined || p.dataRef !== undefined) r.opaque = true;
  w.recent('reasoning', r);
  if (getKey(w.s.live.reasoning, p.reasoningId) !== undefined) deleteKey(w.live('reasoning'), p.reasoningId);
}

export function onProviderToolCall(w: StateWriter, e: OutputEventOf<'assistant.tool_call.completed'>): void {
  const p = e.payload;
  const call: ProviderToolCallState = {
    toolCallId: p.toolCallId,
    name: p.name,
    argumentsText:
      p.argumentsText.length > MAX_ARGUMENTS_CHARS ? p.argumentsText.slice(0, MAX_ARGUMENTS_CHARS) : p.argumentsText,
  };
  if (p.argumentsText.length > MAX_ARGUMENTS_CHARS) call.argumentsTruncated = true;
  if (p.executor !== undefined) call.executor = p.executor;
  if (p.argumentsError !== undefined) call.argumentsError = p.argumentsError;
  w.recent('providerToolCalls', call);
}

export function onPlan(w: StateWriter, e: OutputEventOf<'plan.created' | 'plan.updated'>): void {
  w.s.plan = { planId: e.payload.planId, steps: e.payload.steps.map((s) => ({ ...s })) };
}

export function onPlanStep(w: StateWriter, e: OutputEventOf<'plan.step.started' | 'plan.step.completed'>): void {
  const plan = w.s.plan;
  if (!plan || plan.planId !== e.payload.planId) return;
  const status = e.type === 'plan.step.started' ? 'in_progress' : 'completed';
  w.s.plan = { ...plan, steps: plan.steps.map((s) => (s.id === e.payload.stepId ? { ...s, status } : s)) };
}

export function onDiagnostic(w: StateWriter, e: OutputEventOf<'diagnostic.raised'>): void {
  const d = w.s.diagnostics;
  const byCode = { ...d.byCode };
  putKey(byCode, e.payload.code, (getKey(byCode, e.payload.code) ?? 0) + 1);
  w.s.diagnostics = { count: d.count + 1, byCode };
}

/** Append to a transient streaming text, bounded by {@link MAX_LIVE_CHARS}. */
export function appendLive(w: StateWriter, key: 'messages' | 'reasoning', id: string, delta: string): void {
  const prev = getKey(w.s.live[key], id) ?? '';
  if (prev.length >= MAX_LIVE_CHARS) {
    if (!w.s.live.capped) w.setLive('capped', true);
    return;
  }
  // V8 concatenation builds a rope, so repeated appends stay linear; the cap bounds memory.
  const next = prev.length + delta.length > MAX_LIVE_CHARS ? (prev + delta).slice(0, MAX_LIVE_CHARS) : prev + delta;
  putKey(w.live(key), id, next);
}

export function onToolProgress(w: StateWriter, e: OutputEventOf<'tool.progress'>): void {
  const line = e.payload.message ?? lastLine(e.payload.outputDelta);
  if (line !== undefined) putKey(w.live('toolProgress'), e.payload.toolCallId, line);
}

function lastLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.replace(/\s+$/, '');
  const line = trimmed.slice(trimmed.lastIndexOf('\n') + 1);
  return line.length > 200 ? line.slice(0, 200) : line;
}
