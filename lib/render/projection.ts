import type { FileDiff, OutputEvent, OutputEventOf, Visibility } from '../events/index.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { foldAttachments } from './attachments.js';
import { displayText, oneLine } from './display-text.js';
import { displayStatus, type DisplayStatus } from './status.js';
import type { Verbosity } from './types.js';
import type { ApprovalView, StateView, ToolView } from './view.js';
import { definedOnly } from '../defined-only.js';

/**
 * The one policy projection (seed output-event-model §1: reducer -> presentation state ->
 * policy projection -> renderer). For each event it decides, at a verbosity, whether a person
 * sees a settled fact (printed once, append-only) or a live update (redrawn, never stored), and
 * it fills both from reducer state rather than from the event alone: a tool's status,
 * duration, name and cause come from the state's settled tool, so a second terminal for the
 * same call cannot make one renderer disagree with another (I-A10).
 *
 * Visibility follows the event's `visibility` (the registry default, or the producer's
 * override), with three documented policy exceptions:
 * - `task.started` is not printed at `normal` (the user message already shows the prompt);
 * - a `diagnostic.raised` with an `action` is actionable, so shown at `normal` (seed §7); other
 *   diagnostics show from `verbose` as one line (the brief for the linear renderer);
 * - reasoning deltas at `normal` become a folded "thinking…" indicator, never their text.
 */

/** A settled fact, structured; `format.ts` turns it into plain lines. */
export type Fact =
  | { kind: 'user'; text: string }
  | { kind: 'tool.started'; tool: ToolView }
  | { kind: 'tool.finished'; tool: ToolView }
  | { kind: 'tool.call'; toolCallId: string; name: string; argumentsText: string }
  | { kind: 'anomaly'; toolCallId: string; ignored: DisplayStatus; kept: DisplayStatus }
  | { kind: 'message'; messageId: string; text: string; truncated?: string; refusal?: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'approval.requested'; approval: ApprovalView }
  | { kind: 'approval.settled'; approvalId: string; outcome: string; reason?: string }
  | {
      kind: 'task';
      status: DisplayStatus;
      taskId: string;
      reason?: string;
      detail?: string;
      durationMs?: number;
      steps?: number;
    }
  | {
      kind: 'error';
      status: DisplayStatus;
      label: string;
      category: string;
      code?: string;
      message: string;
      action?: string;
    }
  | { kind: 'diagnostic'; code: string; message: string; action?: string; where?: string }
  | { kind: 'note'; status?: DisplayStatus; label: string; text: string }
  | { kind: 'files'; changes: { path: string; kind: string; diff?: FileDiff }[] }
  | { kind: 'plan'; explanation?: string; steps: { title: string; status: 'pending' | 'in_progress' | 'completed' }[] };

/** A live update: shown while it happens, replaced by the settled fact (or nothing) later. */
export type Live =
  | { kind: 'text'; messageId: string; delta: string }
  | { kind: 'reasoning'; reasoningId: string; delta: string; folded: boolean }
  | { kind: 'tool.progress'; toolCallId: string; line: string }
  | { kind: 'task.progress'; line: string };

/** What one event projects to. Both may be absent (invisible at this verbosity). */
export interface Projection {
  readonly fact?: Fact;
  readonly live?: Live;
}

/** Options of {@link projectEvent}. */
export interface ProjectOptions {
  verbosity: Verbosity;
  /** Show reasoning text instead of the folded indicator; default false. */
  showReasoning?: boolean;
}

/** True when the event is visible at the verbosity by its own `visibility` list. */
export function isVisible(event: OutputEvent, verbosity: Visibility): boolean {
  return event.visibility.includes(verbosity);
}

const TOOL_TERMINAL = new Set(['tool.completed', 'tool.failed', 'tool.denied', 'tool.cancelled']);

/** The tool as state has it; a placeholder only if the reducer has not seen it (never expected). */
function toolOf(
  view: StateView,
  toolCallId: string,
  fallbackName: string | undefined,
  status: DisplayStatus,
): ToolView {
  return view.tool(toolCallId) ?? { toolCallId: oneLine(toolCallId), name: oneLine(fallbackName ?? 'tool'), status };
}

function lastLine(text: string): string {
  const lines = displayText(text)
    .split('\n')
    .filter((l) => l.trim() !== '');
  return oneLine(lines[lines.length - 1] ?? '');
}

/** Project one event, already reduced into the state behind `view`. */
export function projectEvent(event: OutputEvent, view: StateView, options: ProjectOptions): Projection {
  const v = options.verbosity;
  const shown = isVisible(event, v);
  switch (event.type) {
    case 'assistant.message.delta':
      return shown
        ? { live: { kind: 'text', messageId: event.payload.messageId, delta: displayText(event.payload.delta) } }
        : {};
    case 'assistant.reasoning.delta': {
      if (v === 'machine') return {};
      const folded = !shown || (v === 'normal' && !options.showReasoning);
      return {
        live: {
          kind: 'reasoning',
          reasoningId: event.payload.reasoningId,
          delta: folded ? '' : displayText(event.payload.delta),
          folded,
        },
      };
    }
    case 'tool.progress': {
      const p = event.payload;
      return shown
        ? {
            live: { kind: 'tool.progress', toolCallId: p.toolCallId, line: lastLine(p.message ?? p.outputDelta ?? '') },
          }
        : {};
    }
    case 'task.progress':
      return shown ? { live: { kind: 'task.progress', line: oneLine(event.payload.message) } } : {};
    case 'diagnostic.raised': {
      const p = event.payload;
      if (v === 'machine') return {};
      if (!(p.action !== undefined || v !== 'normal')) return {};
      const where = p.line !== undefined ? `line ${p.line}` : p.offset !== undefined ? `offset ${p.offset}` : undefined;
      return {
        fact: definedOnly({
          kind: 'diagnostic',
          code: oneLine(p.code),
          message: oneLine(p.message),
          action: p.action !== undefined ? oneLine(p.action) : undefined,
          where: where !== undefined && v === 'debug' ? where : undefined,
        }),
      };
    }
    case 'task.started':
      if (v === 'normal' || !shown) return {};
      return { fact: { kind: 'task', status: 'running', taskId: oneLine(event.payload.taskId) } };
    default:
      break;
  }
  if (!shown || v === 'machine') return {};
  if (event.type === 'tool.started') {
    return {
      fact: { kind: 'tool.started', tool: toolOf(view, event.payload.toolCallId, event.payload.name, 'running') },
    };
  }
  if (TOOL_TERMINAL.has(event.type)) {
    const p = event.payload as { toolCallId: string; name?: string };
    const arriving = displayStatus(event.status);
    const tool = toolOf(view, p.toolCallId, p.name, arriving);
    // First terminal wins: a later terminal is an anomaly, shown as such in
    // verbose/debug and never as a second final line.
    if (tool.status !== arriving) {
      return v === 'normal'
        ? {}
        : { fact: { kind: 'anomaly', toolCallId: tool.toolCallId, ignored: arriving, kept: tool.status } };
    }
    return { fact: { kind: 'tool.finished', tool } };
  }
  const fact = factOf(event, view);
  return fact === undefined ? {} : { fact };
}

function factOf(event: OutputEvent, view: StateView): Fact | undefined {
  switch (event.type) {
    case 'user.message.received':
      // Images show as a placeholder line each (name, dimensions, type): their bytes are in the content store.
      return {
        kind: 'user',
        text: [
          foldAttachments(displayText(event.payload.text)),
          ...(event.payload.images ?? []).map((i) => displayText(imagePlaceholder(i))),
        ].join('\n'),
      };
    case 'assistant.message.completed': {
      const p = event.payload;
      return definedOnly({
        kind: 'message',
        messageId: oneLine(p.messageId),
        text: displayText(p.text),
        refusal: p.refusal !== undefined ? displayText(p.refusal) : undefined,
      });
    }
    case 'assistant.message.truncated':
      return {
        kind: 'message',
        messageId: oneLine(event.payload.messageId),
        text: displayText(event.payload.text),
        truncated: event.payload.reason,
      };
    case 'assistant.reasoning.completed':
      return event.payload.text === undefined
        ? { kind: 'note', label: 'thinking', text: '(reasoning not shown by the provider)' }
        : { kind: 'reasoning', text: displayText(event.payload.text) };
    case 'assistant.tool_call.completed': {
      const p = event.payload;
      return {
        kind: 'tool.call',
        toolCallId: oneLine(p.toolCallId),
        name: oneLine(p.name),
        argumentsText: oneLine(p.argumentsText),
      };
    }
    case 'user.approval.requested': {
      const p = event.payload;
      const open = view.openApprovals().find((a) => a.approvalId === p.approvalId);
      const options = (p.options ?? []).map((o) => oneLine(o));
      const diff = p.diff ? { diff: p.diff } : {};
      if (open) return { kind: 'approval.requested', approval: { ...open, options, ...diff } };
      return {
        kind: 'approval.requested',
        approval: definedOnly({
          approvalId: oneLine(p.approvalId),
          toolCallId: p.toolCallId !== undefined ? oneLine(p.toolCallId) : undefined,
          toolName: p.toolName !== undefined ? oneLine(p.toolName) : undefined,
          action: oneLine(p.action),
          options,
          ...diff,
        }),
      };
    }
    case 'user.approval.settled':
      return definedOnly({
        kind: 'approval.settled',
        approvalId: oneLine(event.payload.approvalId),
        outcome: event.payload.outcome,
        reason: event.payload.reason !== undefined ? oneLine(event.payload.reason) : undefined,
      });
    case 'task.completed':
      return {
        kind: 'task',
        status: 'completed',
        taskId: oneLine(event.payload.taskId),
        ...optional('durationMs', event.payload.durationMs),
        ...optional('steps', event.payload.steps),
      };
    case 'task.failed': {
      const e = event.payload.error;
      return {
        kind: 'task',
        status: 'failed',
        taskId: oneLine(event.payload.taskId),
        reason: event.payload.reason,
        detail: `${e.category}: ${oneLine(e.message)}${e.action ? ` (${oneLine(e.action)})` : ''}`,
        ...optional('durationMs', event.payload.durationMs),
      };
    }
    case 'task.cancelled':
      return definedOnly({
        kind: 'task',
        status: 'cancelled',
        taskId: oneLine(event.payload.taskId),
        reason: event.payload.reason,
        detail: event.payload.message !== undefined ? oneLine(event.payload.message) : undefined,
        ...optional('durationMs', event.payload.durationMs),
      });
    case 'error.raised': {
      const e = event.payload.error;
      return definedOnly({
        kind: 'error',
        status: 'failed',
        label: 'error',
        category: e.category,
        code: oneLine(e.code),
        message: oneLine(e.message),
        action: e.action !== undefined ? oneLine(e.action) : undefined,
      });
    }
    case 'recovery.failed': {
      const e = event.payload.cause;
      return definedOnly({
        kind: 'error',
        status: 'failed',
        label: `recovery ${event.payload.strategy}`,
        category: e.category,
        code: oneLine(e.code),
        message: oneLine(e.message),
        action: e.action !== undefined ? oneLine(e.action) : undefined,
      });
    }
    default:
      return noteOf(event);
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Everything else is a one-line note. */
function noteOf(event: OutputEvent): Fact | undefined {
  switch (event.type) {
    case 'file.changed':
      return {
        kind: 'files',
        changes: event.payload.changes.map((c) => definedOnly({ path: oneLine(c.path), kind: c.kind, diff: c.diff })),
      };
    case 'test.completed': {
      const p = event.payload;
      const counts = [
        p.passed !== undefined ? `${p.passed} passed` : '',
        p.failed !== undefined ? `${p.failed} failed` : '',
        p.skipped !== undefined ? `${p.skipped} skipped` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return {
        kind: 'note',
        status: p.ok ? 'completed' : 'failed',
        label: 'tests',
        text: [p.command ? oneLine(p.command) : '', counts].filter(Boolean).join(': '),
      };
    }
    case 'finding.detected':
      return {
        kind: 'note',
        label: 'finding',
        text: `[${oneLine(event.payload.severity)}] ${oneLine(event.payload.category)}: ${oneLine(event.payload.summary)}`,
      };
    case 'result.produced':
      return { kind: 'note', label: 'result', text: oneLine(JSON.stringify(event.payload.result) ?? 'null') };
    case 'plan.created':
    case 'plan.updated':
      return definedOnly({
        kind: 'plan',
        steps: event.payload.steps.map((s) => ({ title: oneLine(s.title), status: s.status })),
        explanation: event.payload.explanation ? oneLine(event.payload.explanation) : undefined,
      });
    case 'plan.step.started':
      return {
        kind: 'note',
        status: 'running',
        label: 'step',
        text: oneLine(event.payload.title ?? event.payload.stepId),
      };
    case 'plan.step.completed':
      return {
        kind: 'note',
        status: 'completed',
        label: 'step',
        text: oneLine(event.payload.title ?? event.payload.stepId),
      };
    case 'checkpoint.created':
      return { kind: 'note', label: 'checkpoint', text: checkpointText(event.payload) };
    case 'context.compacted': {
      const p = event.payload;
      const tokens =
        p.beforeTokens !== undefined && p.afterTokens !== undefined
          ? `: ${p.beforeTokens} -> ${p.afterTokens} tokens`
          : '';
      const images = p.removedImages
        ? `; ${p.removedImages} image${p.removedImages === 1 ? '' : 's'} replaced by placeholders`
        : '';
      return { kind: 'note', label: 'compacted', text: `${p.reason}, ${p.strategy}${tokens}${images}` };
    }
    case 'recovery.started': {
      const p = event.payload;
      return {
        kind: 'note',
        status: 'running',
        label: 'recovering',
        text: `${p.strategy}${p.attempt !== undefined ? ` #${p.attempt}` : ''}: ${oneLine(p.reason)}`,
      };
    }
    case 'recovery.completed':
      return {
        kind: 'note',
        status: 'recovered',
        label: 'recovery',
        text: `${event.payload.strategy}${event.payload.result ? `: ${oneLine(event.payload.result)}` : ''}`,
      };
    case 'agent.handoff': {
      const p = event.payload;
      return {
        kind: 'note',
        label: 'handoff',
        text: `${oneLine(p.from)} -> ${oneLine(p.to)}: ${p.reason}${p.cause.message ? ` (${oneLine(p.cause.message)})` : ''}`,
      };
    }
    case 'hook.completed':
    case 'hook.failed': {
      const p = event.payload;
      const what = p.toolName ? `${p.hookEvent} ${oneLine(p.toolName)}` : p.hookEvent;
      const how = p.outcome === 'success' ? (p.decision ?? 'ok') : p.outcome;
      const detail = p.reason ?? p.message ?? (p.outcome === 'error' ? p.stderr : undefined);
      const status: DisplayStatus =
        p.outcome === 'success' ? 'completed' : p.outcome === 'blocked' ? 'denied' : 'failed';
      return {
        kind: 'note',
        status,
        label: 'hook',
        text: `${what}: ${how} (${oneLine(p.command)}, ${p.durationMs} ms)${detail ? `: ${oneLine(detail)}` : ''}`,
      };
    }
    case 'limit.reached': {
      const p = event.payload;
      return { kind: 'note', label: 'limit', text: `${p.kind}${p.message ? `: ${oneLine(p.message)}` : ''}` };
    }
    default:
      // Debug-only types (session, model response, usage, agent identity, tool-call streaming):
      // the payload as one capped JSON line.
      return { kind: 'note', label: event.type, text: oneLine(JSON.stringify(event.payload) ?? '') };
  }
}

/**
 * Facts to print when the run ends: tools that never settled (the reducer's settled view shows
 * them interrupted) and whose final line was not printed yet. Every human renderer prints
 * them, so each tool gets exactly one final line, agreeing with the summary's counts.
 */
export function projectFinish(view: StateView, printed: ReadonlySet<string>): Fact[] {
  return view
    .settledTools()
    .filter((tool) => tool.status === 'interrupted' && !printed.has(tool.toolCallId))
    .map((tool) => ({ kind: 'tool.finished', tool }));
}

/** A checkpoint's note: its id, then what it left out (the first few paths, and how many in all). */
function checkpointText(p: OutputEventOf<'checkpoint.created'>['payload']): string {
  const parts = [oneLine(p.checkpointId.slice(0, 12))];
  if (p.skipped && p.skipped.length > 0) {
    const shown = p.skipped.slice(0, 3).map((s) => `${oneLine(s.path)} (${s.reason})`);
    const total = p.skippedCount ?? p.skipped.length;
    parts.push(`skipped ${total}: ${shown.join(', ')}${total > shown.length ? ', ...' : ''}`);
  }
  return parts.join(' - ');
}
