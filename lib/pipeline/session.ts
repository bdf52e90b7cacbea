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
  /**
   * Emit several drafts (e.g. all that one input chunk decoded to): the same events, states and
   * output as emitting them one by one, but each stage runs over the whole batch in turn
   * (scrub all, envelope all, then reduce/store/render each), which keeps one stage's code and
   * data hot instead of switching between five stages per event (~10% of the pipeline's time
   * in bench/pipeline.ts). An `onEvent` listener must not emit into the same pipeline while a
   * batch is being delivered (its events would be numbered after the whole batch).
   */
  emitAll(drafts: readonly EventDraft[]): void;
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
  const { scrubber, store, renderer, onEvent } = options;
  const settle = (event: OutputEvent): void => {
    state = reduceOwned(state, event);
    store?.append(event);
    renderer?.onEvent(event, state);
    onEvent?.(event, state);
  };
  const deliver = (drafts: EventDraft[]): void => {
    for (let i = 0; i < drafts.length; i++) settle(enveloper.wrap(drafts[i] as EventDraft));
  };
  return {
    sessionId: options.sessionId,
    emit(draft) {
      deliver(scrubber.push(draft));
    },
    emitAll(drafts) {
      // Stage by stage; sequence numbers are assigned in the same order as by emit().
      const events: OutputEvent[] = [];
      for (let i = 0; i < drafts.length; i++) {
        const scrubbed = scrubber.push(drafts[i] as EventDraft);
        for (let j = 0; j < scrubbed.length; j++) events.push(enveloper.wrap(scrubbed[j] as EventDraft));
      }
      for (let i = 0; i < events.length; i++) settle(events[i] as OutputEvent);
    },
    get state() {
      return state;
    },
    drain() {
      deliver(scrubber.end());
    },
    async finish(extra) {
      deliver(scrubber.end());
      renderer?.finish(state, extra);
      await store?.flushed();
      return state;
    },
  };
}
