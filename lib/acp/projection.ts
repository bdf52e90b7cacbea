import path from 'node:path';
import type { Diff, PlanEntry, SessionUpdate, ToolCallContent, ToolCallLocation } from '@agentclientprotocol/sdk';
import type { OutputEvent, OutputEventOf } from '../events/index.js';
import type { ToolKind } from './agent-port.js';
import { imagePlaceholder } from '../images/placeholder.js';

/** Options of {@link createProjector}. */
export interface ProjectorOptions {
  /** Session working directory: relative tool paths resolve against it (ACP wants absolute paths). */
  cwd: string;
  /**
   * Replay of stored events for `session/load` (default false): user messages are echoed as
   * `user_message_chunk` and final texts are sent whole, since deltas are never stored.
   */
  replay?: boolean;
  /** Closed tool call ids remembered so that a late second terminal is dropped; default 10 000. */
  maxClosedTools?: number;
}

/**
 * Turns `minicode.output.v1` events into ACP `session/update` payloads. A pure core with a
 * little state (which messages streamed, each open tool's diff, the closed tool ids, the
 * current plan), one per session; the server sends what it returns, in order.
 *
 * Tool calls follow the event model's rule, first terminal wins: once a call is completed or
 * failed, a later terminal, progress or file change for it sends nothing (ACP clients take the
 * last status they see, so a late update would overwrite the real outcome). A terminal for a
 * call that never started opens it as a `tool_call` already in its final status, as the other
 * renderers show it, instead of updating a call the client has never heard of.
 */
export interface Projector {
  project(event: OutputEvent): SessionUpdate[];
  /** Embed a client terminal in a tool call's content (kept there when the tool finishes). */
  attachTerminal(toolCallId: string, terminalId: string): SessionUpdate;
}

interface OpenTool {
  diffs: ToolCallContent[];
  terminalId?: string;
  /** The latest progress lines of the call (a child session's steps), sent whole as its content. */
  progress?: string[];
}

/** Progress lines kept per open tool call: ACP replaces a call's content on each update, so the latest lines are resent. */
const MAX_PROGRESS_LINES = 20;

type PlanSteps = OutputEventOf<'plan.created'>['payload']['steps'];

/** Create a projector for one session. */
export function createProjector(options: ProjectorOptions): Projector {
  const replay = options.replay ?? false;
  // Message and reasoning ids that streamed deltas: their completion must not repeat the text.
  const streamed = new Set<string>();
  const tools = new Map<string, OpenTool>();
  const maxClosed = options.maxClosedTools ?? 10_000;
  if (!(maxClosed >= 1)) throw new TypeError('createProjector: maxClosedTools must be at least 1');
  // Insertion-ordered, so the oldest id is forgotten first once the bound is reached: a late
  // duplicate terminal arrives right after its first one, not thousands of calls later.
  const closed = new Set<string>();
  let plan: PlanSteps | null = null;

  const text = (
    update: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk',
    value: string,
    messageId?: string,
  ): SessionUpdate =>
    messageId === undefined
      ? { sessionUpdate: update, content: { type: 'text', text: value } }
      : { sessionUpdate: update, content: { type: 'text', text: value }, messageId };

  /** A whole text at completion, unless its deltas already went out. */
  const completion = (
    update: 'agent_message_chunk' | 'agent_thought_chunk',
    id: string,
    value: string | undefined,
  ): SessionUpdate[] => {
    const already = streamed.delete(id);
    if (already || value === undefined || value === '') return [];
    return [text(update, value, update === 'agent_message_chunk' ? id : undefined)];
  };

  const close = (toolCallId: string): void => {
    closed.add(toolCallId);
    if (closed.size > maxClosed) closed.delete(closed.values().next().value as string);
  };

  const finish = (
    toolCallId: string,
    name: string | undefined,
    status: 'completed' | 'failed',
    message: string | undefined,
    rawOutput: unknown,
  ): SessionUpdate[] => {
    if (closed.has(toolCallId)) return [];
    const open = tools.get(toolCallId);
    tools.delete(toolCallId);
    close(toolCallId);
    const content: ToolCallContent[] = [...(open?.diffs ?? [])];
    if (open?.terminalId !== undefined) content.push({ type: 'terminal', terminalId: open.terminalId });
    if (message) content.push({ type: 'content', content: { type: 'text', text: message } });
    if (!open)
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId,
          title: name ?? toolCallId,
          kind: 'other',
          status,
          content,
          rawOutput,
        },
      ];
    return [{ sessionUpdate: 'tool_call_update', toolCallId, status, content, rawOutput }];
  };

  const planUpdate = (steps: PlanSteps): SessionUpdate => ({
    sessionUpdate: 'plan',
    entries: steps.map((step): PlanEntry => ({ content: step.title, priority: 'medium', status: step.status })),
  });

  const markStep = (stepId: string, status: 'in_progress' | 'completed'): SessionUpdate[] => {
    if (!plan) return [];
    plan = plan.map((step) => (step.id === stepId ? { ...step, status } : step));
    return [planUpdate(plan)];
  };

  return {
    attachTerminal(toolCallId, terminalId) {
      const open = tools.get(toolCallId);
      if (open) open.terminalId = terminalId;
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'in_progress',
        content: [...(open?.diffs ?? []), { type: 'terminal', terminalId }],
      };
    },

    project(event) {
      switch (event.type) {
        case 'user.message.received':
          // Its images as placeholder lines: their bytes stay in the store.
          return replay
            ? [
                text(
                  'user_message_chunk',
                  [event.payload.text, ...(event.payload.images ?? []).map(imagePlaceholder)].join('\n'),
                  event.payload.messageId,
                ),
              ]
            : [];
        case 'assistant.message.delta':
          if (replay || event.payload.delta === '') return [];
          streamed.add(event.payload.messageId);
          return [text('agent_message_chunk', event.payload.delta, event.payload.messageId)];
        case 'assistant.message.completed':
        case 'assistant.message.truncated': {
          const body = event.payload.text || ('refusal' in event.payload ? event.payload.refusal : undefined);
          return completion('agent_message_chunk', event.payload.messageId, body);
        }
        case 'assistant.reasoning.delta':
          if (replay || event.payload.delta === '') return [];
          streamed.add(event.payload.reasoningId);
          return [text('agent_thought_chunk', event.payload.delta)];
        case 'assistant.reasoning.completed':
          // Redacted reasoning is opaque data, never shown.
          return completion(
            'agent_thought_chunk',
            event.payload.reasoningId,
            event.payload.redacted ? undefined : event.payload.text,
          );
        case 'tool.started': {
          const p = event.payload;
          const diffs = isEdit(p.kind, p.name) ? editDiffs(p.input, options.cwd) : [];
          tools.set(p.toolCallId, { diffs });
          const locations = toolLocations(p.locations, p.input, options.cwd);
          const update: SessionUpdate = {
            sessionUpdate: 'tool_call',
            toolCallId: p.toolCallId,
            title: p.title ?? p.name,
            kind: p.kind ?? 'other',
            // pending: the input is known but the tool may still wait for the user's approval.
            status: 'pending',
          };
          if (diffs.length > 0) update.content = diffs;
          if (locations.length > 0) update.locations = locations;
          if (p.input !== undefined) update.rawInput = p.input;
          return [update];
        }
        case 'tool.progress': {
          const open = tools.get(event.payload.toolCallId);
          if (!open) return [];
          const update: SessionUpdate = {
            sessionUpdate: 'tool_call_update',
            toolCallId: event.payload.toolCallId,
            status: 'in_progress',
          };
          // A message (a child session's step, under its `task` call) becomes the call's content.
          const message = event.payload.message;
          if (message !== undefined && message !== '') {
            const lines = [...(open.progress ?? []), message].slice(-MAX_PROGRESS_LINES);
            open.progress = lines;
            update.content = [...open.diffs, { type: 'content', content: { type: 'text', text: lines.join('\n') } }];
          }
          return [update];
        }
        case 'user.approval.settled':
          // An allowed tool now runs; the matching tool id travels as the correlation id.
          if (
            (event.payload.outcome === 'allow' || event.payload.outcome === 'allow-always') &&
            event.correlationId &&
            tools.has(event.correlationId)
          ) {
            return [{ sessionUpdate: 'tool_call_update', toolCallId: event.correlationId, status: 'in_progress' }];
          }
          return [];
        case 'tool.completed': {
          const p = event.payload;
          return finish(
            p.toolCallId,
            p.name,
            'completed',
            p.output ?? p.summary,
            p.receipt ? { summary: p.summary, receipt: p.receipt } : { summary: p.summary },
          );
        }
        case 'tool.failed': {
          const p = event.payload;
          return finish(p.toolCallId, p.name, 'failed', p.output ? `${p.message}\n${p.output}` : p.message, {
            cause: p.cause,
            message: p.message,
          });
        }
        // ACP has no "denied" or "cancelled" tool status: both are failed, with the reason shown.
        case 'tool.denied':
          return finish(event.payload.toolCallId, event.payload.name, 'failed', `Denied: ${event.payload.reason}`, {
            denied: true,
            reason: event.payload.reason,
          });
        case 'tool.cancelled':
          return finish(event.payload.toolCallId, event.payload.name, 'failed', `Cancelled: ${event.payload.reason}`, {
            cancelled: true,
            reason: event.payload.reason,
          });
        case 'file.changed': {
          const id = event.payload.toolCallId;
          if (id === undefined || !tools.has(id)) return [];
          const locations = event.payload.changes.map(
            (c): ToolCallLocation => ({ path: path.resolve(options.cwd, c.path) }),
          );
          return [{ sessionUpdate: 'tool_call_update', toolCallId: id, locations }];
        }
        case 'plan.created':
        case 'plan.updated':
          plan = event.payload.steps;
          return [planUpdate(plan)];
        case 'plan.step.started':
          return markStep(event.payload.stepId, 'in_progress');
        case 'plan.step.completed':
          return markStep(event.payload.stepId, 'completed');
        default:
          return [];
      }
    },
  };
}

/** Whether a tool edits files, by kind or, for producers that set none, by name. */
function isEdit(kind: ToolKind | undefined, name: string): boolean {
  return kind === 'edit' || (kind === undefined && /(edit|write|patch)/i.test(name));
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'filename'] as const;
const OLD_KEYS = ['old_string', 'oldText', 'old_text', 'old_str', 'oldString'] as const;
const NEW_KEYS = ['new_string', 'newText', 'new_text', 'new_str', 'newString'] as const;

function pick(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Diff content for an edit tool's input: `{path, old_string, new_string}` (and its spellings),
 * `{path, edits: [{old, new}...]}`, or a whole-file write `{path, content}` (no old text).
 * Inputs of any other shape give no diff: the tool call still shows its raw input.
 */
export function editDiffs(input: unknown, cwd: string): ToolCallContent[] {
  const record = asRecord(input);
  if (!record) return [];
  const file = pick(record, PATH_KEYS);
  if (file === undefined) return [];
  const absolute = path.resolve(cwd, file);
  const diff = (oldText: string | undefined, newText: string): ToolCallContent => {
    const d: Diff = oldText === undefined ? { path: absolute, newText } : { path: absolute, oldText, newText };
    return { type: 'diff', ...d };
  };
  const newText = pick(record, NEW_KEYS);
  if (newText !== undefined) return [diff(pick(record, OLD_KEYS), newText)];
  if (Array.isArray(record.edits)) {
    return record.edits.flatMap((edit) => {
      const e = asRecord(edit);
      const next = e ? pick(e, NEW_KEYS) : undefined;
      return e && next !== undefined ? [diff(pick(e, OLD_KEYS), next)] : [];
    });
  }
  const content = pick(record, ['content', 'text']);
  return content === undefined ? [] : [diff(undefined, content)];
}

function toolLocations(
  given: { path: string; line?: number | undefined }[] | undefined,
  input: unknown,
  cwd: string,
): ToolCallLocation[] {
  if (given && given.length > 0) {
    return given.map((l) =>
      l.line === undefined ? { path: path.resolve(cwd, l.path) } : { path: path.resolve(cwd, l.path), line: l.line },
    );
  }
  const record = asRecord(input);
  const file = record ? pick(record, PATH_KEYS) : undefined;
  return file === undefined ? [] : [{ path: path.resolve(cwd, file) }];
}
