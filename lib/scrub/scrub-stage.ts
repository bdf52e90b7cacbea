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
import type { DraftFields, EventDraft } from '../events/index.js';
import { createSanitizer, sanitizeText, type Sanitizer } from './terminal-sanitizer.js';
import { buildRuleTable, createRedactor, createTextRedactor, type Redactor } from './secret-redactor.js';
import { credentialSecretsFromEnv } from './credential-rule.js';
import type { NamedSecret } from './env-secrets.js';
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

/**
 * Payload keys shown on one line (tool names, paths, commands): line breaks are escaped visibly.
 * A switch rather than a `Set`: this is asked for every string field, and the keys are
 * internalised strings, so each case is a pointer comparison where `Set.prototype.has` was a
 * builtin call and a hash lookup.
 */
function isSingleLineKey(key: string): boolean {
  switch (key) {
    case 'name':
    case 'toolName':
    case 'path':
    case 'title':
    case 'command':
    case 'action':
    case 'cwd':
    case 'model':
    case 'provider':
    case 'agent':
      return true;
    default:
      return false;
  }
}
const CONTENT_REF = /^sha256:[0-9a-f]{64}$/;
/** Sanitiser options, allocated once rather than per string. */
const SINGLE_LINE = { singleLine: true } as const;
const MULTI_LINE = { singleLine: false } as const;

/** Longest string {@link createEventScrubber} remembers the scrubbed form of, and how many it remembers per mode. */
const MEMO_MAX_LENGTH = 48;
const MEMO_ENTRIES = 1024;

type DeltaType =
  | 'assistant.message.delta'
  | 'assistant.reasoning.delta'
  | 'assistant.tool_call.delta'
  | 'tool.progress';

interface Channel {
  type: DeltaType;
  id: string;
  fields: DraftFields;
  /** `id` scrubbed, once per channel rather than once per delta. */
  scrubbedId: string;
  sanitizer: Sanitizer;
  redactor: Redactor;
}

/** Channel key prefix by delta type (the closing events below use the same keys). */
const KEY_PREFIX: Record<DeltaType, string> = {
  'assistant.message.delta': 'm:',
  'assistant.reasoning.delta': 'r:',
  'assistant.tool_call.delta': 'c:',
  'tool.progress': 't:',
};

/** Create the event scrubber core. Options are checked here; see {@link EventScrubberOptions}. */
export function createEventScrubber(options: EventScrubberOptions = {}): EventScrubber {
  const maxOpen = options.maxOpenChannels ?? 4096;
  if (!(maxOpen >= 1)) throw new TypeError('createEventScrubber: maxOpenChannels must be at least 1');
  const secrets = options.secrets ?? credentialSecretsFromEnv(options.env ?? process.env);
  // One table for every redactor of this scrubber: the dispatch is compiled once.
  const rules = buildRuleTable(secrets, options.rules);
  const redactWhole = createTextRedactor(rules);
  const channels = new Map<string, Channel>();

  /**
   * Short strings scrubbed lately, by mode: ids, names, kinds and statuses recur from event to
   * event (a tool call's id is in its start, its terminal and both correlation ids), and a map
   * lookup costs less than the two scans. Scrubbing is a pure function of the text and the
   * mode, so a remembered result is the result. Bounded: cleared when full.
   */
  const memoMulti = new Map<string, string>();
  const memoSingle = new Map<string, string>();

  function scrubString(text: string, singleLine = false): string {
    if (text.length > MEMO_MAX_LENGTH) return redactWhole(sanitizeText(text, singleLine ? SINGLE_LINE : MULTI_LINE));
    const memo = singleLine ? memoSingle : memoMulti;
    let out = memo.get(text);
    if (out === undefined) {
      out = redactWhole(sanitizeText(text, singleLine ? SINGLE_LINE : MULTI_LINE));
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      memo.set(text, out);
    }
    return out;
  }

  /**
   * The value with every string scrubbed. Copy on change: a plain object or array in which
   * nothing changed comes back as it is, and only the path to a changed string is copied.
   * Copying every payload whole was about a third of this stage's time in bench/pipeline.ts
   * (allocation and the garbage collection after it), and almost no field changes. Sharing is
   * safe because events are values: no stage, renderer or store mutates a payload once it is
   * emitted (the reducer copies what it keeps, and opaque fields were always shared).
   */
  function scrubValue(value: unknown, key: string | undefined, parentType: string): unknown {
    if (typeof value === 'string') {
      if (key === 'ref' && CONTENT_REF.test(value)) return value;
      return scrubString(value, key !== undefined && isSingleLineKey(key));
    }
    if (Array.isArray(value)) {
      // A plain array in which nothing changes comes back without building a copy; on the
      // first change (rare) the copy is made by `map` (holes stay holes), which
      // scrubs the elements again (scrubbing is pure, so the result is the same).
      if (Object.getPrototypeOf(value) === Array.prototype) {
        let i = 0;
        for (; i < value.length; i++) {
          const v: unknown = value[i];
          if (scrubValue(v, key, parentType) !== v) break;
        }
        if (i === value.length) return value;
      }
      return value.map((v) => scrubValue(v, key, parentType));
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (Object.getPrototypeOf(value) === Object.prototype && unchangedRecord(record, parentType)) return value;
      // Anything but a plain object is rebuilt as one (never returned as it is).
      let out: Record<string, unknown> | undefined = Object.getPrototypeOf(value) === Object.prototype ? undefined : {};
      const opaque = parentType === 'assistant.reasoning.completed';
      // Object.keys rather than Object.entries: the same own enumerable keys in the same order,
      // without a [key, value] array per field (this runs for every field of every event).
      const keys = Object.keys(value);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const v = record[k];
        const s = opaque && (k === 'signature' || k === 'data') ? v : scrubValue(v, k, '');
        if (out === undefined) {
          // An own `__proto__` key always takes the copying path, where it becomes an own data property again.
          if (s === v && k !== '__proto__') continue;
          out = {};
          for (let j = 0; j < i; j++) out[keys[j] as string] = record[keys[j] as string];
        }
        out[k] = s;
      }
      return out ?? value;
    }
    return value;
  }

  /**
   * Whether scrubbing leaves every field of a plain object as it is (the answer for almost
   * every payload), decided by a for-in walk: V8 reads the fields through the object's enum
   * cache there, where `record[k]` over `Object.keys` is a megamorphic keyed load per field
   * (plus an array per object), and that was most of this walk's own time. for-in also visits
   * inherited enumerable keys (only were Object.prototype polluted): a field it reports as
   * changed only sends the object down the exact path above, which looks at own keys alone,
   * and an own key is never skipped, so the answer "unchanged" is always exact.
   */
  function unchangedRecord(record: Record<string, unknown>, parentType: string): boolean {
    const opaque = parentType === 'assistant.reasoning.completed';
    for (const k in record) {
      // An own `__proto__` key always takes the copying path (see scrubValue).
      if (k === '__proto__') return false;
      if (opaque && (k === 'signature' || k === 'data')) continue;
      const v = record[k];
      if (scrubValue(v, k, '') !== v) return false;
    }
    return true;
  }

  function scrubDraft(d: EventDraft): EventDraft {
    return scrubEnvelope(d, scrubValue(d.payload, undefined, d.type));
  }

  /**
   * The draft with its envelope strings scrubbed and `payload` (already scrubbed) in place.
   * When nothing changed (the same payload, no envelope string changed) a plain draft comes
   * back as it is, as scrubValue does for payloads: most events have nothing to scrub, and a
   * copy of every draft was a good part of this stage's allocation.
   */
  function scrubEnvelope(d: EventDraft, payload: unknown): EventDraft {
    const correlationId = d.correlationId === undefined ? undefined : scrubString(d.correlationId);
    const parentId = d.parentId === undefined ? undefined : scrubString(d.parentId);
    if (
      payload === d.payload &&
      correlationId === d.correlationId &&
      parentId === d.parentId &&
      Object.getPrototypeOf(d) === Object.prototype
    )
      return d;
    const out = { ...d, payload } as EventDraft;
    if (correlationId !== undefined) out.correlationId = correlationId;
    if (parentId !== undefined) out.parentId = parentId;
    return out;
  }

  /**
   * Whether a delta's payload can go out as it is: its keys are exactly `idKey` and `textKey`
   * and neither value changed (nothing held, nothing redacted). Otherwise the payload is
   * rebuilt from the two fields only (other payload fields are not carried).
   */
  function unchangedDelta(payload: object, idKey: string, id: string, textKey: string, text: string): boolean {
    const p = payload as Record<string, unknown>;
    if (p[idKey] !== id || p[textKey] !== text || Object.getPrototypeOf(p) !== Object.prototype) return false;
    let keys = 0;
    for (const k in p) {
      if (k !== idKey && k !== textKey) return false;
      keys++;
    }
    return keys === 2;
  }

  function fieldsOf(d: EventDraft): DraftFields {
    const { type: _type, payload: _payload, ...fields } = d;
    return fields;
  }

  function channelFor(key: string, type: DeltaType, id: string, d: EventDraft): Channel {
    let ch = channels.get(key);
    if (ch === undefined) {
      ch = {
        type,
        id,
        fields: fieldsOf(d),
        scrubbedId: scrubString(id),
        sanitizer: createSanitizer(),
        redactor: createRedactor({ rules }),
      };
      channels.set(key, ch);
    }
    return ch;
  }

  /** Deltas flushed by closing channels while one draft is handled; they go out before it. */
  const flushed: EventDraft[] = [];

  /** The output of one push: the flushed deltas, then `event`. */
  function emit(event: EventDraft): EventDraft[] {
    if (flushed.length === 0) return [event];
    const out = flushed.splice(0);
    out.push(event);
    return out;
  }

  /** The delta carrying whatever a channel still holds, or nothing (into `flushed`). */
  function close(key: string): void {
    const ch = channels.get(key);
    if (ch === undefined) return;
    channels.delete(key);
    if (ch === recent) recent = undefined;
    const tail = ch.redactor.push(ch.sanitizer.end()) + ch.redactor.end();
    if (tail.length > 0) flushed.push(deltaEvent(ch, tail));
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

  /**
   * The channel of the previous delta. Deltas of one channel mostly come in runs, so this
   * spares building the `m:<id>` key and two map lookups per delta; `close` clears it.
   */
  let recent: Channel | undefined;

  /** The channel's scrubbed text for this delta; the channel's scrubbed id is left in `lastId`. */
  let lastId = '';
  function streamDelta(type: DeltaType, id: string, d: EventDraft, text: string): string {
    let ch = recent;
    if (ch === undefined || ch.type !== type || ch.id !== id) {
      const key = `${KEY_PREFIX[type]}${id}`;
      if (!channels.has(key) && channels.size >= maxOpen) {
        const oldest = channels.keys().next().value;
        if (oldest !== undefined) close(oldest);
      }
      ch = recent = channelFor(key, type, id, d);
    }
    lastId = ch.scrubbedId;
    return ch.redactor.push(ch.sanitizer.push(text));
  }

  return {
    push(d: EventDraft): EventDraft[] {
      // A delta's payload is rebuilt (or kept, see unchangedDelta) from its id and text, so only
      // the envelope strings need scrubbing here; the id was scrubbed when the channel opened.
      switch (d.type) {
        case 'assistant.message.delta': {
          const p = d.payload;
          const delta = streamDelta(d.type, p.messageId, d, p.delta);
          return emit(
            scrubEnvelope(d, unchangedDelta(p, 'messageId', lastId, 'delta', delta) ? p : { messageId: lastId, delta }),
          );
        }
        case 'assistant.reasoning.delta': {
          const p = d.payload;
          const delta = streamDelta(d.type, p.reasoningId, d, p.delta);
          return emit(
            scrubEnvelope(
              d,
              unchangedDelta(p, 'reasoningId', lastId, 'delta', delta) ? p : { reasoningId: lastId, delta },
            ),
          );
        }
        case 'assistant.tool_call.delta': {
          const p = d.payload;
          const delta = streamDelta(d.type, p.toolCallId, d, p.delta);
          return emit(
            scrubEnvelope(
              d,
              unchangedDelta(p, 'toolCallId', lastId, 'delta', delta) ? p : { toolCallId: lastId, delta },
            ),
          );
        }
        case 'tool.progress': {
          if (d.payload.outputDelta === undefined) break;
          const outputDelta = streamDelta(d.type, d.payload.toolCallId, d, d.payload.outputDelta);
          const rest = scrubDraft({ ...d, payload: { ...d.payload, outputDelta: '' } });
          return emit({ ...rest, payload: { ...(rest.payload as object), outputDelta } } as EventDraft);
        }
        // A closing event with no channel open (every event of a source without deltas, as the
        // native decoders are) builds no key: the key's concatenation, and the hash of it in
        // the lookup, were most of this switch's time over the Codex stream.
        case 'assistant.message.completed':
        case 'assistant.message.truncated':
          if (channels.size > 0) close(`m:${d.payload.messageId}`);
          break;
        case 'assistant.reasoning.completed':
          if (channels.size > 0) close(`r:${d.payload.reasoningId}`);
          break;
        case 'assistant.tool_call.completed':
          if (channels.size > 0) close(`c:${d.payload.toolCallId}`);
          break;
        case 'tool.completed':
        case 'tool.failed':
        case 'tool.cancelled':
        case 'tool.denied':
          if (channels.size > 0) close(`t:${d.payload.toolCallId}`);
          break;
        default:
          break;
      }
      return emit(scrubDraft(d));
    },
    end(): EventDraft[] {
      for (const key of [...channels.keys()]) close(key);
      return flushed.splice(0);
    },
  };
}
