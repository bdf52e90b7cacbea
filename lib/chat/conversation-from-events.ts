/**
 * The conversation to send to the model, rebuilt from a session's durable events (what
 * `minicode --resume` continues from). Deltas are not stored, so only what settled counts:
 * user messages, completed assistant messages, the tool calls the model made
 * (`assistant.tool_call.completed`) and each call's terminal event, turned into the same
 * tool-result text the agent loop sends (`outcomeContent`). Reasoning items are not rebuilt:
 * providers accept earlier turns without them.
 */
import type { ConversationMessage, ToolCallPart, ToolMessage, AssistantMessage } from '../agent/conversation.js';
import type { OutputEvent } from '../events/index.js';

/** What a call without a stored terminal (the process stopped mid-tool) tells the model. */
export const MISSING_RESULT = 'Cancelled: the run was stopped';

interface AssistantEntry {
  kind: 'assistant';
  texts: string[];
  calls: ToolCallPart[];
  results: Map<string, ToolMessage>;
}

type Entry = { kind: 'user'; text: string } | AssistantEntry;

function toolResult(event: OutputEvent, name: string): ToolMessage | undefined {
  switch (event.type) {
    case 'tool.completed':
      return { role: 'tool', toolCallId: event.payload.toolCallId, name, content: event.payload.output ?? event.payload.summary };
    case 'tool.failed': {
      const p = event.payload;
      const parts = [`Error: ${p.message}`];
      if (p.hint) parts.push(`Hint: ${p.hint}`);
      if (p.output) parts.push(p.output);
      return { role: 'tool', toolCallId: p.toolCallId, name, content: parts.join('\n'), isError: true };
    }
    case 'tool.denied':
      return { role: 'tool', toolCallId: event.payload.toolCallId, name, content: `Denied: ${event.payload.reason}`, isError: true };
    case 'tool.cancelled':
      return { role: 'tool', toolCallId: event.payload.toolCallId, name, content: MISSING_RESULT, isError: true };
    default:
      return undefined;
  }
}

/**
 * Rebuild the neutral conversation from stored events (in sequence order). Every tool call
 * gets exactly one result, in call order, right after the assistant message that made it.
 */
export function conversationFromEvents(events: Iterable<OutputEvent>): ConversationMessage[] {
  const entries: Entry[] = [];
  // One assistant message per (turn, step): a step is one provider response.
  const byStep = new Map<string, AssistantEntry>();
  const owner = new Map<string, AssistantEntry>();
  const step = (e: OutputEvent): AssistantEntry => {
    const key = `${e.turnId ?? 0}:${e.stepId ?? 0}`;
    let entry = byStep.get(key);
    if (!entry) {
      entry = { kind: 'assistant', texts: [], calls: [], results: new Map() };
      byStep.set(key, entry);
      entries.push(entry);
    }
    return entry;
  };
  for (const e of events) {
    if (e.type === 'user.message.received') entries.push({ kind: 'user', text: e.payload.text });
    else if (e.type === 'assistant.message.completed') step(e).texts.push(e.payload.text);
    else if (e.type === 'assistant.tool_call.completed') {
      const entry = step(e);
      entry.calls.push({ id: e.payload.toolCallId, name: e.payload.name, argumentsText: e.payload.argumentsText });
      owner.set(e.payload.toolCallId, entry);
    } else if (e.type.startsWith('tool.')) {
      const id = (e.payload as { toolCallId?: string }).toolCallId;
      const entry = id === undefined ? undefined : owner.get(id);
      const call = entry?.calls.find((c) => c.id === id);
      const result = call ? toolResult(e, call.name) : undefined;
      // First terminal wins, as in the reducer.
      if (entry && result && !entry.results.has(result.toolCallId)) entry.results.set(result.toolCallId, result);
    }
  }
  const out: ConversationMessage[] = [];
  for (const entry of entries) {
    if (entry.kind === 'user') {
      out.push({ role: 'user', text: entry.text });
      continue;
    }
    const text = entry.texts.join('');
    if (text === '' && entry.calls.length === 0) continue;
    const message: AssistantMessage = { role: 'assistant', ...(text ? { text } : {}), ...(entry.calls.length ? { toolCalls: entry.calls } : {}) };
    out.push(message);
    for (const call of entry.calls) {
      out.push(entry.results.get(call.id) ?? { role: 'tool', toolCallId: call.id, name: call.name, content: MISSING_RESULT, isError: true });
    }
  }
  return out;
}
