/**
 * The pure reducer: `(state, event) -> state` (I-A05). No clock, no randomness, no I/O: every
 * time it records comes from event timestamps. The input state is never mutated; collections
 * an event does not touch are shared with the next state.
 */
import type { OutputEvent } from '../events/index.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import {
  appendLive,
  onDiagnostic,
  onMessageFinal,
  onPlan,
  onPlanStep,
  onProviderToolCall,
  onReasoning,
  onResponseUsage,
  onToolProgress,
  onUsageReported,
} from './content.js';
import { onFilesChanged, onFinding, onTest } from './evidence.js';
import { retireSettled } from './retire.js';
import {
  activateTasks,
  onAgentHandoff,
  onAgentIdentified,
  onResponseCompleted,
  onResponseStarted,
  onSessionEnded,
  onSessionStarted,
  onTaskStarted,
  onTaskTerminal,
  partialTasks,
} from './run.js';
import type { ReducerState } from './state.js';
import { onApprovalRequested, onApprovalSettled, onToolStarted, onToolTerminal } from './tools.js';
import { StateWriter } from './writer.js';

/**
 * Fold one event into the state and return the next state; the input is left untouched. Cost:
 * the size of the collections the event touches (a tool event copies the tools record), so a
 * consumer that folds a long session and never keeps old states should use {@link reduceOwned}
 * (a property test checks both give the same state, byte for byte).
 */
export function reduce(state: ReducerState, event: OutputEvent): ReducerState {
  const w = new StateWriter(state, false);
  apply(w, event);
  return w.s;
}

/**
 * Fold one event into a state the caller owns, mutating it in place (used by rebuild, whose
 * intermediate states nobody else sees). Gives the same result as {@link reduce}.
 */
export function reduceOwned(state: ReducerState, event: OutputEvent): ReducerState {
  apply(new StateWriter(state, true), event);
  return state;
}

function apply(w: StateWriter, e: OutputEvent): void {
  if (e.sessionId !== w.s.sessionId) {
    w.anomaly({ kind: 'foreign-session', seq: e.seq, type: e.type, detail: e.sessionId });
    return;
  }
  const info = EVENT_REGISTRY[e.type];
  if (!info.durable) {
    applyLive(w, e);
    return;
  }
  w.s.durableEvents += 1;
  w.s.lastSeq = e.seq;
  w.s.lastTimestamp = e.timestamp;
  if (!e.type.startsWith('task.') && !e.type.startsWith('session.') && w.s.openTasks.length > 0) activateTasks(w);
  applyDurable(w, e);
  retireSettled(w);
}

function applyDurable(w: StateWriter, e: OutputEvent): void {
  switch (e.type) {
    case 'session.started':
      return onSessionStarted(w, e);
    case 'session.ended':
      return onSessionEnded(w, e);
    case 'agent.session.identified':
      return onAgentIdentified(w, e);
    case 'agent.handoff':
      return onAgentHandoff(w, e);
    case 'user.message.received':
      w.recent('userMessages', { messageId: e.payload.messageId, text: e.payload.text });
      return;
    case 'user.approval.requested':
      return onApprovalRequested(w, e);
    case 'user.approval.settled':
      return onApprovalSettled(w, e);
    case 'task.started':
      return onTaskStarted(w, e);
    case 'task.completed':
    case 'task.failed':
    case 'task.cancelled':
      return onTaskTerminal(w, e);
    case 'plan.created':
    case 'plan.updated':
      return onPlan(w, e);
    case 'plan.step.started':
    case 'plan.step.completed':
      return onPlanStep(w, e);
    case 'assistant.message.completed':
      return onMessageFinal(w, e);
    case 'assistant.message.truncated':
      onMessageFinal(w, e);
      partialTasks(w);
      return;
    case 'assistant.reasoning.completed':
      return onReasoning(w, e);
    case 'assistant.tool_call.completed':
      return onProviderToolCall(w, e);
    case 'model.response.started':
      return onResponseStarted(w, e);
    case 'model.response.completed':
      onResponseUsage(w, e.payload.usage);
      return onResponseCompleted(w, e);
    case 'context.compacted': {
      const p = e.payload;
      const c: ReducerState['compactions'][number] = { reason: p.reason, strategy: p.strategy };
      if (p.beforeTokens !== undefined) c.beforeTokens = p.beforeTokens;
      if (p.afterTokens !== undefined) c.afterTokens = p.afterTokens;
      w.recent('compactions', c);
      return;
    }
    case 'tool.started':
      return onToolStarted(w, e);
    case 'tool.completed':
    case 'tool.failed':
    case 'tool.denied':
    case 'tool.cancelled':
      return onToolTerminal(w, e);
    case 'file.changed':
      return onFilesChanged(w, e);
    case 'test.completed':
      return onTest(w, e);
    case 'finding.detected':
      return onFinding(w, e);
    case 'result.produced': {
      const r = { source: e.payload.source, result: e.payload.result };
      w.recent('results', r);
      if (r.source === 'submit_result') w.s.submitted = r;
      return;
    }
    case 'checkpoint.created':
      w.recent('checkpoints', e.payload.checkpointId);
      return;
    case 'diagnostic.raised':
      return onDiagnostic(w, e);
    case 'error.raised':
      w.recent('errors', e.payload.error);
      return;
    case 'recovery.started':
    case 'recovery.completed':
    case 'recovery.failed': {
      const r = w.s.recoveries;
      const key = e.type === 'recovery.started' ? 'started' : e.type === 'recovery.completed' ? 'completed' : 'failed';
      w.s.recoveries = { ...r, [key]: r[key] + 1 };
      if (e.type === 'recovery.failed') w.recent('errors', e.payload.cause);
      return;
    }
    case 'usage.reported':
      return onUsageReported(w, e);
    case 'limit.reached': {
      const p = e.payload;
      const l: ReducerState['limits'][number] = { kind: p.kind };
      if (p.message !== undefined) l.message = p.message;
      if (p.retryAfterMs !== undefined) l.retryAfterMs = p.retryAfterMs;
      if (p.resetAt !== undefined) l.resetAt = p.resetAt;
      w.recent('limits', l);
      return;
    }
    default:
      return;
  }
}

/** Live events only touch `state.live`; durable state never depends on them. */
function applyLive(w: StateWriter, e: OutputEvent): void {
  switch (e.type) {
    case 'assistant.message.delta':
      return appendLive(w, 'messages', e.payload.messageId, e.payload.delta);
    case 'assistant.reasoning.delta':
      return appendLive(w, 'reasoning', e.payload.reasoningId, e.payload.delta);
    case 'tool.progress':
      return onToolProgress(w, e);
    case 'task.progress':
      return w.setLive('taskProgress', e.payload.message);
    default:
      return;
  }
}
