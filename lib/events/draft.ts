/**
 * `draft()` on its own: runtime producers import it from here (with the registry from
 * `registry.js`) so that emitting events does not build the zod envelope schemas, which only
 * validation and the JSON Schema need. `envelope.ts` (and so the events index) re-exports it.
 */
import type { DraftFields, EventDraftOf } from './envelope.js';
import type { EventType, PayloadOf } from './payloads.js';

/** Build a draft with its payload type checked against the type name. */
export function draft<T extends EventType>(type: T, payload: PayloadOf<T>, fields?: DraftFields): EventDraftOf<T> {
  return { type, payload, ...fields } as EventDraftOf<T>;
}
