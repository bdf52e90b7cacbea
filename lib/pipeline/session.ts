/**
 * The session pipeline as one synchronous chain of pure cores: draft -> scrub -> envelope ->
 * reduce -> (renderer, store, listeners). Producers that are not byte streams (the agent loop,
 * the native supervisor, ACP) emit drafts here; `ingest` reaches the same cores through the
 * stream adapters. Nothing reaches a renderer, a listener or the store before the scrubber.
 */
import type { EventDraft, OutputEvent } from '../events/index.js';
import { createEnveloper, type Clock } from '../events/enveloper.js';
import { initialState, reduceOwned, type ReducerState } from '../reducer/index.js';
import type { Renderer, FinishExtra } from '../render/types.js';
import type { EventStore } from '../store/index.js';

/** The scrub stage's pure core, as the pipeline drives it. */
export interface DraftScrubber {
  push(draft: EventDraft): EventDraft[];
  end(): EventDraft[];
}

/** Options of {@link createSessionPipeline}. */
export interface SessionPipelineOptions {
  sessionId: string;
  /** Default `Date.now`. */
  clock?: Clock;
  /** The scrub core; required (pass an identity only in tests of other stages). */
  scrubber: DraftScrubber;
  renderer?: Renderer<ReducerState>;
  store?: EventStore;
  /** Called after each reduce (ACP projection, batch accounting). */
  onEvent?: (event: OutputEvent, state: ReducerState) => void;
  /** Continue a stored session: its next sequence number and rebuilt state. */
  startSeq?: number;
  state?: ReducerState;
  source?: 'runtime' | 'app' | 'derived';
}

/** A running session pipeline. */
export interface SessionPipeline {
  readonly sessionId: string;
  emit(draft: EventDraft): void;
  /** The reducer state after the last event. */
  readonly state: ReducerState;
  /** Flush what the scrubber holds back (call before settling the run). */
  drain(): void;
  /** Drain, render the final summary, and wait for the store to acknowledge every event. */
  finish(extra?: FinishExtra): Promise<ReducerState>;
}

/** Create a session pipeline. */
export function createSessionPipeline(options: SessionPipelineOptions): SessionPipeline {
  const enveloper = createEnveloper({
    sessionId: options.sessionId,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.startSeq !== undefined ? { startSeq: options.startSeq } : {}),
    ...(options.source ? { source: options.source } : {}),
  });
  let state = options.state ?? initialState(options.sessionId);
  const deliver = (drafts: EventDraft[]): void => {
    for (const d of drafts) {
      const event = enveloper.wrap(d);
      state = reduceOwned(state, event);
      options.store?.append(event);
      options.renderer?.onEvent(event, state);
      options.onEvent?.(event, state);
    }
  };
  return {
    sessionId: options.sessionId,
    emit(draft) {
      deliver(options.scrubber.push(draft));
    },
    get state() {
      return state;
    },
    drain() {
      deliver(options.scrubber.end());
    },
    async finish(extra) {
      deliver(options.scrubber.end());
      options.renderer?.finish(state, extra);
      await options.store?.flushed();
      return state;
    },
  };
}
