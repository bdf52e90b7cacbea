/**
 * The text `jsonLine` writes for an envelope's fields before its payload, made by concatenation
 * instead of `JSON.stringify`: `{"schema":...,"visibility":[...]` and the optional fields, up to
 * (not including) `,"payload":`. It is the same text byte for byte, or undefined when the event
 * is not shaped as the enveloper builds it (lib/events/enveloper.ts): every field, in that
 * order, of the type the output would need; the caller then serialises the event whole.
 *
 * Most of the text repeats from event to event: the session id, the timestamp of the current
 * millisecond, and per event type its source, severity, status and visibility. Those pieces
 * are kept from the previous events; only the sequence number is written fresh each time.
 */
import { SCHEMA_NAME } from '../events/schema-name.js';
import { jsonLine } from './json-line.js';

/** The key order `JSON.stringify` writes for an envelope built by the enveloper. */
const ORDER = [
  'schema',
  'eventId',
  'seq',
  'type',
  'timestamp',
  'sessionId',
  'source',
  'severity',
  'status',
  'visibility',
  'turnId',
  'stepId',
  'correlationId',
  'parentId',
  'fidelity',
  'payload',
] as const;
const OPTIONAL: readonly boolean[] = ORDER.map((key) => key === 'turnId' || key === 'stepId' || key === 'correlationId' || key === 'parentId' || key === 'fidelity');

/** Per event type: the fields the pieces were made from, and the pieces. */
interface TypePieces {
  sessionId: string;
  source: unknown;
  severity: unknown;
  status: unknown;
  visibility: readonly unknown[];
  /** `,"type":"<type>","timestamp":` */
  type: string;
  /** `,"sessionId":...,"visibility":[...]` */
  fields: string;
}

/** Bound of the per-type memo (there are about 60 event types). */
const MAX_TYPES = 256;

/** Whether `for...in` visits the keys of `event` in {@link ORDER}, the optional ones allowed missing, and no others. */
function shapedAsEnveloped(event: object): boolean {
  let i = 0;
  for (const key in event) {
    while (i < ORDER.length && ORDER[i] !== key) {
      if (!OPTIONAL[i]) return false;
      i++;
    }
    if (i === ORDER.length) return false;
    i++;
  }
  return i === ORDER.length;
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function sameStrings(list: unknown, kept: readonly unknown[]): boolean {
  if (!Array.isArray(list) || list.length !== kept.length) return false;
  for (let i = 0; i < kept.length; i++) if (list[i] !== kept[i]) return false;
  return true;
}

/** A maker of envelope heads with its own memo of the repeated pieces. */
export function createEnvelopeHeads(): (event: object) => string | undefined {
  let sessionId: string | undefined;
  /** `{"schema":"<name>","eventId":"<session id>` without the closing quote. */
  let open = '';
  let timestamp: string | undefined;
  let timestampJson = '';
  let turnId: unknown;
  let stepId: unknown;
  let ids = '';
  const types = new Map<unknown, TypePieces>();

  const piecesOf = (e: Record<string, unknown>): TypePieces | undefined => {
    const kept = types.get(e.type);
    if (kept !== undefined && kept.sessionId === e.sessionId && kept.source === e.source && kept.severity === e.severity && kept.status === e.status && sameStrings(e.visibility, kept.visibility))
      return kept;
    const { type, source, severity, status, visibility } = e;
    if (typeof type !== 'string' || typeof source !== 'string' || typeof severity !== 'string' || typeof status !== 'string' || !Array.isArray(visibility)) return undefined;
    for (const v of visibility) if (typeof v !== 'string') return undefined;
    const pieces: TypePieces = {
      sessionId: e.sessionId as string,
      source,
      severity,
      status,
      visibility: [...visibility],
      type: `,"type":${jsonLine(type)},"timestamp":`,
      fields: `,"sessionId":${jsonLine(e.sessionId)},"source":${jsonLine(source)},"severity":${jsonLine(severity)},"status":${jsonLine(status)},"visibility":${jsonLine(visibility)}`,
    };
    if (types.size >= MAX_TYPES) types.clear();
    types.set(type, pieces);
    return pieces;
  };

  return (event) => {
    if (!shapedAsEnveloped(event)) return undefined;
    const e = event as Record<string, unknown>;
    const { seq, eventId } = e;
    if (e.schema !== SCHEMA_NAME || !isFiniteNumber(seq) || typeof e.sessionId !== 'string' || typeof eventId !== 'string' || typeof e.timestamp !== 'string') return undefined;
    const session = e.sessionId;
    if (session !== sessionId) {
      sessionId = session;
      open = `{"schema":${jsonLine(SCHEMA_NAME)},"eventId":${jsonLine(session).slice(0, -1)}`;
    }
    if (e.timestamp !== timestamp) {
      timestamp = e.timestamp;
      timestampJson = jsonLine(timestamp);
    }
    const pieces = piecesOf(e);
    if (pieces === undefined) return undefined;
    const seqText = `${seq}`;
    // The enveloper's ids are `<session>:<seq>`: then the escaped session id is reused.
    const derived = eventId.length === session.length + 1 + seqText.length && eventId.startsWith(session) && eventId.charCodeAt(session.length) === 0x3a && eventId.endsWith(seqText);
    let head = derived ? `${open}:${seqText}","seq":${seqText}` : `{"schema":${jsonLine(SCHEMA_NAME)},"eventId":${jsonLine(eventId)},"seq":${seqText}`;
    head += `${pieces.type}${timestampJson}${pieces.fields}`;
    if (e.turnId !== turnId || e.stepId !== stepId) {
      if ((e.turnId !== undefined && !isFiniteNumber(e.turnId)) || (e.stepId !== undefined && !isFiniteNumber(e.stepId))) return undefined;
      turnId = e.turnId;
      stepId = e.stepId;
      ids = `${turnId === undefined ? '' : `,"turnId":${turnId}`}${stepId === undefined ? '' : `,"stepId":${stepId}`}`;
    }
    head += ids;
    const { correlationId, parentId, fidelity } = e;
    if (correlationId !== undefined) {
      if (typeof correlationId !== 'string') return undefined;
      head += `,"correlationId":${jsonLine(correlationId)}`;
    }
    if (parentId !== undefined) {
      if (typeof parentId !== 'string') return undefined;
      head += `,"parentId":${jsonLine(parentId)}`;
    }
    if (fidelity !== undefined) {
      if (typeof fidelity !== 'string') return undefined;
      head += fidelity === 'native' ? ',"fidelity":"native"' : `,"fidelity":${jsonLine(fidelity)}`;
    }
    return head;
  };
}
