/**
 * The per-event format of stores written before event batches (event-batches.ts): one msgpackr
 * value per event in the `events` database under `[sessionId, seq]`. The key already holds two
 * of the envelope's fields, and `schema` and `eventId` follow from them (`eventId` is
 * `sessionId:seq`, see `eventIdFor`), so an event was written without those four. Reading
 * puts them back, in the enveloper's key order, so a stored event reads back equal to the event
 * written, field for field and in the same order. The store only reads this format now;
 * `toStored` remains as its writer's definition (tests build old stores with it).
 *
 * An event whose fields do not follow from its key (another schema, a foreign eventId) was
 * stored whole; a record that still carries `schema` reads back as it is.
 */
import { SCHEMA_NAME } from '../events/schema-name.js';
import type { OutputEvent } from '../events/index.js';

/** A stored event: the envelope without schema, eventId, seq and sessionId, or a whole envelope. */
export type StoredEvent = Omit<OutputEvent, 'schema' | 'eventId' | 'seq' | 'sessionId'> | OutputEvent;

/** What to write for `event` under the key `[event.sessionId, event.seq]`. */
export function toStored(event: OutputEvent): StoredEvent {
  if (event.schema !== SCHEMA_NAME || event.eventId !== `${event.sessionId}:${event.seq}`) return event;
  // A loop rather than a rest pattern (which V8 runs as a generic copy with a list of
  // excluded keys): the same fields in the same order, at a fraction of the cost per event.
  const record = event as unknown as Record<string, unknown>;
  const rest: Record<string, unknown> = {};
  for (const k in record) if (k !== 'schema' && k !== 'eventId' && k !== 'seq' && k !== 'sessionId') rest[k] = record[k];
  return rest as unknown as StoredEvent;
}

/** The event stored under `[sessionId, seq]`. */
export function fromStored(sessionId: string, seq: number, stored: StoredEvent): OutputEvent {
  if ('schema' in stored) return stored;
  const record = stored as unknown as Record<string, unknown>;
  // The enveloper's order: schema, eventId, seq, type, timestamp, sessionId, then the rest as written.
  const out: Record<string, unknown> = { schema: SCHEMA_NAME, eventId: `${sessionId}:${seq}`, seq, type: record.type, timestamp: record.timestamp, sessionId };
  for (const k in record) if (k !== 'type' && k !== 'timestamp') out[k] = record[k];
  return out as unknown as OutputEvent;
}
