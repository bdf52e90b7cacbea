import { z } from 'zod';
import { Fidelity, SCHEMA_NAME, Severity, Source, Status, Visibility } from './enums.js';
import { EVENT_TYPES, payloadSchemas, type EventType, type PayloadOf } from './payloads.js';

/** Envelope fields shared by every event (docs/event-model.md). */
const envelopeBase = {
  schema: z.literal(SCHEMA_NAME),
  /** Stable, deterministic: `<sessionId>:<seq>`. */
  eventId: z.string().min(1),
  /** Order of observation within the session; not causality. */
  seq: z.number().int().nonnegative(),
  timestamp: z.iso.datetime(),
  sessionId: z.string().min(1),
  turnId: z.number().int().nonnegative().optional(),
  stepId: z.number().int().nonnegative().optional(),
  /** Tool call, approval or major operation this event belongs to. */
  correlationId: z.string().min(1).optional(),
  /** Explicit causality only: retry, child tool, parent turn. */
  parentId: z.string().min(1).optional(),
  source: Source,
  severity: Severity,
  status: Status,
  visibility: z.array(Visibility).min(1),
  /** Present on events decoded from a provider or native agent. */
  fidelity: Fidelity.optional(),
};

function envelopeFor<T extends EventType>(type: T) {
  return z.object({ ...envelopeBase, type: z.literal(type), payload: payloadSchemas[type] });
}

type EnvelopeSchemas = { [K in EventType]: ReturnType<typeof envelopeFor<K>> };

/** One zod schema per event type, keyed by type. */
export const envelopeSchemas = Object.fromEntries(EVENT_TYPES.map((t) => [t, envelopeFor(t)])) as EnvelopeSchemas;

/** The `minicode.output.v1` envelope: a discriminated union keyed on `type`. */
export const OutputEventSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((t) => envelopeSchemas[t]) as unknown as [
    EnvelopeSchemas[EventType],
    ...EnvelopeSchemas[EventType][],
  ],
);

/** Envelope of one event type. */
export type OutputEventOf<T extends EventType> = z.infer<EnvelopeSchemas[T]>;
/** Any `minicode.output.v1` event. */
export type OutputEvent = { [K in EventType]: OutputEventOf<K> }[EventType];

/** Optional envelope fields a producer may set on a draft. */
export interface DraftFields {
  status?: Status;
  severity?: Severity;
  source?: Source;
  visibility?: Visibility[];
  fidelity?: Fidelity;
  turnId?: number;
  stepId?: number;
  correlationId?: string;
  parentId?: string;
}

/** What a decoder or producer emits: type, payload and optional envelope fields; the enveloper adds the rest. */
export type EventDraftOf<T extends EventType> = { type: T; payload: PayloadOf<T> } & DraftFields;
/** Any draft event. */
export type EventDraft = { [K in EventType]: EventDraftOf<K> }[EventType];
