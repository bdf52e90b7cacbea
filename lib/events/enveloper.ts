import { SCHEMA_NAME } from './schema-name.js';
import type { EventDraft, OutputEvent } from './envelope.js';
import { EVENT_REGISTRY } from './registry.js';

/** Injected clock: returns epoch milliseconds. Defaults to `Date.now`. */
export type Clock = () => number;

/** Options of {@link createEnveloper}. */
export interface EnveloperOptions {
  sessionId: string;
  /** Default `Date.now`. */
  clock?: Clock | undefined;
  /** First sequence number; default 0 (a resumed session continues its sequence). */
  startSeq?: number | undefined;
  /** Default source for drafts that set none; default `runtime`. */
  source?: 'runtime' | 'app' | 'derived' | undefined;
}

/** Deterministic event id: session + sequence. */
export function eventIdFor(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`;
}

/** The run position a producer stamps on its drafts (the agent loop's turn and step). */
export interface RunIds {
  turnId?: number;
  stepId?: number;
}

/** Wraps drafts into `minicode.output.v1` envelopes with sequence, id, timestamp and registry defaults. */
export interface Enveloper {
  /** Wrap one draft; `ids` fill the draft's `turnId`/`stepId` where it sets none. */
  wrap(draft: EventDraft, ids?: RunIds): OutputEvent;
  /** The next sequence number to be assigned. */
  readonly nextSeq: number;
}

/** Create the envelope stage's pure core. Same drafts and clock give the same envelopes. */
export function createEnveloper(options: EnveloperOptions): Enveloper {
  if (!options.sessionId) throw new TypeError('createEnveloper: sessionId is required');
  const clock = options.clock ?? Date.now;
  const defaultSource = options.source ?? 'runtime';
  let seq = options.startSeq ?? 0;
  // Consecutive events mostly share a millisecond: format its ISO string once (a Date and
  // toISOString per event were a visible share of the pipeline in bench/pipeline.ts).
  let lastMs = Number.NaN;
  let lastIso = '';
  const isoAt = (ms: number): string => {
    if (ms !== lastMs) {
      lastIso = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastIso;
  };
  return {
    get nextSeq() {
      return seq;
    },
    wrap(d, ids) {
      const info = EVENT_REGISTRY[d.type];
      const s = seq++;
      const event: Record<string, unknown> = {
        schema: SCHEMA_NAME,
        eventId: eventIdFor(options.sessionId, s),
        seq: s,
        type: d.type,
        timestamp: isoAt(clock()),
        sessionId: options.sessionId,
        source: d.source ?? defaultSource,
        severity: d.severity ?? info.severity,
        status: d.status ?? info.status,
        visibility: d.visibility ?? (info.visibility as OutputEvent['visibility']),
      };
      const turnId = d.turnId ?? ids?.turnId;
      if (turnId !== undefined) event.turnId = turnId;
      const stepId = d.stepId ?? ids?.stepId;
      if (stepId !== undefined) event.stepId = stepId;
      if (d.correlationId !== undefined) event.correlationId = d.correlationId;
      if (d.parentId !== undefined) event.parentId = d.parentId;
      if (d.fidelity !== undefined) event.fidelity = d.fidelity;
      event.payload = d.payload;
      return event as OutputEvent;
    },
  };
}
