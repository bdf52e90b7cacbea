/** Decode helpers and a compact summary of decoded events, for table-driven tests. */
import type { EventDraft } from '../../lib/events/index.js';
import { PROVIDER_DECODERS } from '../../lib/providers/index.js';

/** Decode `chunks` with the named decoder; returns every draft in order. */
export function decode(format: string, chunks: (Uint8Array | string)[]): EventDraft[] {
  const factory = PROVIDER_DECODERS[format];
  if (!factory) throw new Error(`no decoder ${format}`);
  const events: EventDraft[] = [];
  const d = factory({ onEvent: (e) => events.push(e) });
  for (const c of chunks) d.feed(c);
  d.end();
  return events;
}

/** What a person checks about a decoded response. */
export interface Summary {
  text: string;
  toolCalls: { name: string; arguments: unknown }[];
  usage: unknown;
  outcome: string | undefined;
  stopReason: string | undefined;
  errors: string[];
  refusal?: string;
  reasoning: boolean;
  diagnostics: string[];
}

/** Summarise decoded events: final text (completed + truncated messages), tool calls, usage, outcome. */
export function summarise(events: EventDraft[]): Summary {
  const text: string[] = [];
  const toolCalls: Summary['toolCalls'] = [];
  const errors: string[] = [];
  const diagnostics: string[] = [];
  let outcome: string | undefined;
  let stopReason: string | undefined;
  let usage: unknown;
  let refusal: string | undefined;
  let reasoning = false;
  for (const e of events) {
    switch (e.type) {
      case 'assistant.message.completed':
        text.push(e.payload.text);
        if (e.payload.refusal) refusal = e.payload.refusal;
        break;
      case 'assistant.message.truncated':
        text.push(e.payload.text);
        break;
      case 'assistant.tool_call.completed':
        toolCalls.push({ name: e.payload.name, arguments: e.payload.arguments });
        break;
      case 'assistant.reasoning.completed':
        reasoning = true;
        break;
      case 'error.raised':
        errors.push(e.payload.error.code);
        break;
      case 'diagnostic.raised':
        diagnostics.push(e.payload.code);
        break;
      case 'model.response.completed':
        outcome = e.payload.outcome;
        stopReason = e.payload.stopReason;
        usage = e.payload.usage;
        break;
      default:
        break;
    }
  }
  const s: Summary = { text: text.join(''), toolCalls, usage, outcome, stopReason, errors, reasoning, diagnostics };
  if (refusal !== undefined) s.refusal = refusal;
  return s;
}
