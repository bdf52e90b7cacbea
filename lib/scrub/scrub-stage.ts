/**
 * The scrub stage: every string of every event draft is sanitised (terminal sequences, then)
 * redacted (secrets), in that order, because a colour code or a zero-width character inside
 * a token would otherwise defeat the secret rules.
 *
 * Streaming text channels keep their own sanitiser and redactor, keyed by event type and id,
 * so that a secret or an escape split across deltas is still caught:
 *   assistant.message.delta    (messageId)   closed by assistant.message.completed/truncated
 *   assistant.reasoning.delta  (reasoningId) closed by assistant.reasoning.completed
 *   assistant.tool_call.delta  (toolCallId)  closed by assistant.tool_call.completed
 *   tool.progress.outputDelta  (toolCallId)  closed by tool.completed/failed/cancelled/denied
 * Text a channel holds back goes out in its next delta; before the closing event (and at
 * `end()`) the rest is flushed as one more delta of the same channel. Because the scrubbers give
 * the same output whatever the chunking, the concatenation of a channel's scrubbed deltas equals
 * the scrubbed completed text.
 *
 * Everything else is scrubbed whole. Opaque fields are left as they are: the reasoning
 * `signature` and `data` (sent back to the provider verbatim) and a ContentRef's `ref` digest.
 */
import { Transform } from 'node:stream';
import type { DraftFields, EventDraft } from '../events/index.js';
import { createSanitizer, sanitizeText, type Sanitizer } from './terminal-sanitizer.js';
import { buildRuleTable, createRedactor, type Redactor } from './secret-redactor.js';
import { credentialSecretsFromEnv, type NamedSecret } from './env-secrets.js';
import type { SecretRule } from './rule-types.js';

/** Options of {@link createEventScrubber}. */
export interface EventScrubberOptions {
  /** Exact values to mask. Default: the credential variables of `env`. */
  secrets?: readonly NamedSecret[];
  /** Environment read for credential values when `secrets` is absent. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Format rules. Default: the built-in table. */
  rules?: readonly SecretRule[];
  /** Most streaming channels open at once; the oldest is flushed past it. Default 4096. */
  maxOpenChannels?: number;
}

/** The pure core of the scrub stage. */
export interface EventScrubber {
  push(draft: EventDraft): EventDraft[];
  end(): EventDraft[];
}

/** Payload keys shown on one line (tool names, paths, commands): line breaks are escaped visibly. */
const SINGLE_LINE_KEYS = new Set(['name', 'toolName', 'path', 'title', 'command', 'action', 'cwd', 'model', 'provider', 'agent']);
const CONTENT_REF = /^sha256:[0-9a-f]{64}$/;

type DeltaType = 'assistant.message.delta' | 'assistant.reasoning.delta' | 'assistant.tool_call.delta' | 'tool.progress';

interface Channel {
  type: DeltaType;
  id: string;
  fields: DraftFields;
  /** `id` scrubbed, once per channel rather than once per delta. */
  scrubbedId: string;
  sanitizer: Sanitizer;
  redactor: Redactor;
}

const ENVELOPE_STRING_FIELDS = ['correlationId', 'parentId'] as const;

/** Create the event scrubber core. Options are checked here; see {@link EventScrubberOptions}. */
export function createEventScrubber(options: EventScrubberOptions = {}): EventScrubber {
  const maxOpen = options.maxOpenChannels ?? 4096;
  if (!(maxOpen >= 1)) throw new TypeError('createEventScrubber: maxOpenChannels must be at least 1');
  const secrets = options.secrets ?? credentialSecretsFromEnv(options.env ?? process.env);
  // One table for every redactor of this scrubber: the dispatch is compiled once.
  const rules = buildRuleTable(secrets, options.rules);
  const channels = new Map<string, Channel>();

  function scrubString(text: string, singleLine = false): string {
    const r = createRedactor({ rules });
    return r.push(sanitizeText(text, { singleLine })) + r.end();
  }

  function scrubValue(value: unknown, key: string | undefined, parentType: string): unknown {
    if (typeof value === 'string') {
      if (key === 'ref' && CONTENT_REF.test(value)) return value;
      return scrubString(value, key !== undefined && SINGLE_LINE_KEYS.has(key));
    }
    if (Array.isArray(value)) return value.map((v) => scrubValue(v, key, parentType));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (parentType === 'assistant.reasoning.completed' && (k === 'signature' || k === 'data')) out[k] = v;
        else out[k] = scrubValue(v, k, '');
      }
      return out;
    }
    return value;
  }

  function scrubDraft(d: EventDraft): EventDraft {
    return scrubEnvelope(d, scrubValue(d.payload, undefined, d.type));
  }

  /** The draft with its envelope strings scrubbed and `payload` (already scrubbed) in place. */
  function scrubEnvelope(d: EventDraft, payload: unknown): EventDraft {
    const out = { ...d, payload } as EventDraft;
    for (const f of ENVELOPE_STRING_FIELDS) {
      const v = d[f];
      if (v !== undefined) out[f] = scrubString(v);
    }
    return out;
  }

  function fieldsOf(d: EventDraft): DraftFields {
    const { type: _type, payload: _payload, ...fields } = d;
    return fields;
  }

  function channelFor(key: string, type: DeltaType, id: string, d: EventDraft): Channel {
    let ch = channels.get(key);
    if (ch === undefined) {
      ch = { type, id, fields: fieldsOf(d), scrubbedId: scrubString(id), sanitizer: createSanitizer(), redactor: createRedactor({ rules }) };
      channels.set(key, ch);
    }
    return ch;
  }

  /** The delta carrying whatever a channel still holds, or nothing. */
  function close(key: string, out: EventDraft[]): void {
    const ch = channels.get(key);
    if (ch === undefined) return;
    channels.delete(key);
    const tail = ch.redactor.push(ch.sanitizer.end()) + ch.redactor.end();
    if (tail.length > 0) out.push(deltaEvent(ch, tail));
  }

  function deltaEvent(ch: Channel, text: string): EventDraft {
    const fields = ch.fields;
    const id = ch.scrubbedId;
    switch (ch.type) {
      case 'assistant.message.delta':
        return { ...fields, type: ch.type, payload: { messageId: id, delta: text } };
      case 'assistant.reasoning.delta':
        return { ...fields, type: ch.type, payload: { reasoningId: id, delta: text } };
      case 'assistant.tool_call.delta':
        return { ...fields, type: ch.type, payload: { toolCallId: id, delta: text } };
      case 'tool.progress':
        return { ...fields, type: ch.type, payload: { toolCallId: id, outputDelta: text } };
    }
  }

  /** The channel's scrubbed text for this delta; the channel's scrubbed id is left in `lastId`. */
  let lastId = '';
  function streamDelta(key: string, type: DeltaType, id: string, d: EventDraft, text: string, out: EventDraft[]): string {
    if (!channels.has(key) && channels.size >= maxOpen) {
      const oldest = channels.keys().next().value;
      if (oldest !== undefined) close(oldest, out);
    }
    const ch = channelFor(key, type, id, d);
    lastId = ch.scrubbedId;
    return ch.redactor.push(ch.sanitizer.push(text));
  }

  return {
    push(d: EventDraft): EventDraft[] {
      const out: EventDraft[] = [];
      switch (d.type) {
        case 'assistant.message.delta': {
          const delta = streamDelta(`m:${d.payload.messageId}`, d.type, d.payload.messageId, d, d.payload.delta, out);
          // The payload is rebuilt whole (other payload fields are not carried), so only the
          // envelope strings need scrubbing here; the id was scrubbed when the channel opened.
          out.push(scrubEnvelope(d, { messageId: lastId, delta }));
          return out;
        }
        case 'assistant.reasoning.delta': {
          const delta = streamDelta(`r:${d.payload.reasoningId}`, d.type, d.payload.reasoningId, d, d.payload.delta, out);
          // The payload is rebuilt whole (other payload fields are not carried), so only the
          // envelope strings need scrubbing here; the id was scrubbed when the channel opened.
          out.push(scrubEnvelope(d, { reasoningId: lastId, delta }));
          return out;
        }
        case 'assistant.tool_call.delta': {
          const delta = streamDelta(`c:${d.payload.toolCallId}`, d.type, d.payload.toolCallId, d, d.payload.delta, out);
          // The payload is rebuilt whole (other payload fields are not carried), so only the
          // envelope strings need scrubbing here; the id was scrubbed when the channel opened.
          out.push(scrubEnvelope(d, { toolCallId: lastId, delta }));
          return out;
        }
        case 'tool.progress': {
          if (d.payload.outputDelta === undefined) break;
          const outputDelta = streamDelta(`t:${d.payload.toolCallId}`, d.type, d.payload.toolCallId, d, d.payload.outputDelta, out);
          const rest = scrubDraft({ ...d, payload: { ...d.payload, outputDelta: '' } });
          out.push({ ...rest, payload: { ...(rest.payload as object), outputDelta } } as EventDraft);
          return out;
        }
        case 'assistant.message.completed':
        case 'assistant.message.truncated':
          close(`m:${d.payload.messageId}`, out);
          break;
        case 'assistant.reasoning.completed':
          close(`r:${d.payload.reasoningId}`, out);
          break;
        case 'assistant.tool_call.completed':
          close(`c:${d.payload.toolCallId}`, out);
          break;
        case 'tool.completed':
        case 'tool.failed':
        case 'tool.cancelled':
        case 'tool.denied':
          close(`t:${d.payload.toolCallId}`, out);
          break;
        default:
          break;
      }
      out.push(scrubDraft(d));
      return out;
    },
    end(): EventDraft[] {
      const out: EventDraft[] = [];
      for (const key of [...channels.keys()]) close(key, out);
      return out;
    },
  };
}

/** Options of {@link createScrubStage}: those of the core. */
export type ScrubStageOptions = EventScrubberOptions;

/**
 * The scrub stage as an objectMode Transform: EventDraft in, EventDraft out (a closing event
 * may be preceded by one flushed delta). A thin adapter over {@link createEventScrubber}.
 */
export function createScrubStage(options: ScrubStageOptions = {}): Transform {
  const core = createEventScrubber(options);
  return new Transform({
    objectMode: true,
    transform(draft: EventDraft, _encoding, callback) {
      for (const d of core.push(draft)) this.push(d);
      callback();
    },
    flush(callback) {
      for (const d of core.end()) this.push(d);
      callback();
    },
  });
}
