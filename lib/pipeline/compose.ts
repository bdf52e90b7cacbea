/**
 * The one run pipeline every command uses, its stages joined with `joinStages` (join.ts):
 *
 *   head ─> scrub (sanitise + secrets) ─> envelope ─> settle (reduce ─> store, renderer, listeners)
 *
 * The head is either a byte stream and its decoder (`ingest`: a recorded stream, stdin) or an
 * objectMode entry that producers write batches of drafts into: the agent loop (its own events,
 * and what each network chunk of a provider response decoded to), the native supervisor, ACP.
 * `write` reports backpressure: its promise resolves once the entry has room again, which is
 * what lets a producer stop reading its socket while a slow stdout reader catches up.
 *
 * Nothing reaches the reducer, a renderer, a listener or the store before the scrub stage.
 */
import { Readable } from 'node:stream';
import type { EventDraft, OutputEvent } from '../events/index.js';
import { createEnveloper, type Clock, type RunIds } from '../events/enveloper.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import { MinicodeError } from '../errors.js';
import { initialState, reduceOwned, type ReducerState } from '../reducer/index.js';
import { batchLines } from '../render/batch-lines.js';
import type { FinishExtra, Renderer } from '../render/types.js';
import type { StoreSink } from '../store/held-events.js';
import { joinStages } from './join.js';
import type { OutputPort } from './output.js';
import {
  createDecodeStage,
  createEnvelopeStage,
  createScrubStage,
  createSettleStage,
  type DraftBatch,
  type DraftScrubber,
} from './stages.js';
import type { StreamDecoder } from '../decode/types.js';
import { definedOnly } from '../defined-only.js';

export type { DraftScrubber } from './stages.js';

/** A byte stream as the head of the pipeline. */
export interface ByteInput {
  bytes: Readable | AsyncIterable<Uint8Array>;
  makeDecoder: (onEvent: (event: EventDraft) => void) => StreamDecoder;
  /** Drafts before the first decoded one (e.g. `session.started`). */
  prefix?: EventDraft[];
}

/** Options of {@link createRunPipeline}. */
export interface RunPipelineOptions {
  sessionId: string;
  /** Default `Date.now`. */
  clock?: Clock | undefined;
  /** The scrub core; required (pass an identity only in tests of other stages). */
  scrubber: DraftScrubber;
  renderer?: Renderer<ReducerState> | undefined;
  /** Where durable events go: an open store, or events held until it is open (store/held-events.ts). */
  store?: StoreSink | undefined;
  /** Called after each reduce (ACP projection, batch accounting). */
  onEvent?: ((event: OutputEvent, state: ReducerState) => void) | undefined;
  /** The renderer's output: the settle stage waits for it to drain (backpressure). */
  output?: OutputPort | undefined;
  /** Decode this byte stream; without it, producers write drafts with `emit`/`write`. */
  input?: ByteInput | undefined;
  /** Continue a stored session: its next sequence number and rebuilt state. */
  startSeq?: number | undefined;
  state?: ReducerState | undefined;
  source?: 'runtime' | 'app' | 'derived' | undefined;
  /** Batches the entry holds before `write` reports backpressure; default 16. */
  highWaterMark?: number | undefined;
  /**
   * Called by `finish()` once every event is settled and the summary rendered, before it waits
   * for the store's acknowledgement (`batch` hands the run's slot on then).
   */
  onSettled?: (() => void) | undefined;
}

/** A running pipeline. */
export interface RunPipeline {
  readonly sessionId: string;
  /** One draft (a producer's own event); order with every other write is kept. */
  emit(draft: EventDraft, ids?: RunIds): void;
  /**
   * A batch of drafts (what one input chunk decoded to). Returns a promise when the entry is
   * full: the producer should await it before reading more input.
   */
  write(drafts: EventDraft[], ids?: RunIds): Promise<void> | undefined;
  /** The reducer state once everything written so far has been settled. */
  settled(): Promise<ReducerState>;
  /** The reducer state after the last settled event. */
  readonly state: ReducerState;
  /** End the input, render the final summary, and wait for the store to acknowledge every event. */
  finish(extra?: FinishExtra): Promise<ReducerState>;
}

/**
 * `jsonLine` of each durable event of a batch (undefined for the others), from one
 * serialisation per run of events (render/batch-lines.ts): the text the store keeps when no
 * renderer printed lines. It parses to the same event as `JSON.stringify` of it and differs
 * only where `jsonLine` escapes a character for terminals, as a printed line does.
 */
function durableLines(events: readonly OutputEvent[]): (string | undefined)[] {
  const durable: OutputEvent[] = [];
  for (let i = 0; i < events.length; i++)
    if (EVENT_REGISTRY[(events[i] as OutputEvent).type]?.durable) durable.push(events[i] as OutputEvent);
  const made = batchLines(durable);
  const lines = new Array<string | undefined>(events.length);
  for (let i = 0, k = 0; i < events.length; i++) if (events[i] === durable[k]) lines[i] = made[k++];
  return lines;
}

/** The summary's fields of the store's failure to acknowledge a run's events. */
function errorFieldsOf(error: unknown): NonNullable<FinishExtra['notStored']> {
  if (error instanceof MinicodeError)
    return definedOnly({
      category: error.category,
      code: error.code,
      message: error.message,
      action: error.action || undefined,
    });
  return {
    category: 'FILESYSTEM_ERROR',
    code: 'MINICODE_E_STORE',
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Create the pipeline and start it. */
export function createRunPipeline(options: RunPipelineOptions): RunPipeline {
  const enveloper = createEnveloper({
    sessionId: options.sessionId,
    clock: options.clock,
    startSeq: options.startSeq,
    source: options.source,
  });
  let state = options.state ?? initialState(options.sessionId);
  const { store, renderer, onEvent } = options;
  const linesOf =
    renderer?.linesOf?.bind(renderer) ??
    (renderer?.lineOf ? (events: readonly OutputEvent[]) => events.map((e) => renderer.lineOf?.(e)) : undefined);
  const settle = createSettleStage({
    settle(events) {
      // The JSONL lines the renderer prints, made once for it and the store, for the whole
      // batch before reducing it (one serialisation of the batch, see render/batch-lines.ts),
      // so the reducer's loop runs without it in between (each loop keeps its code and data hot).
      // Without them (a human renderer, or none), the store's text of the batch's durable
      // events is made the same way rather than by one JSON.stringify per event.
      const lines = linesOf?.(events);
      const stored = lines ?? (store ? durableLines(events) : undefined);
      for (let i = 0; i < events.length; i++) {
        const event = events[i] as OutputEvent;
        const line = lines?.[i];
        state = reduceOwned(state, event);
        if (store) store.append(event, stored?.[i]);
        renderer?.onEvent(event, state, line);
        onEvent?.(event, state);
      }
    },
    output: options.output,
  });
  const input = options.input;
  // Without a byte input the scrub stage itself is the entry producers write into: a stage of
  // its own in front of it would only pass batches on, and each stage costs a short session
  // its construction, a pipe, a hop per batch and the end's propagation.
  const scrub = createScrubStage(options.scrubber, input ? {} : { entryBatches: options.highWaterMark ?? 16 });
  const entry = input ? undefined : scrub;
  const head: NodeJS.ReadWriteStream[] = input
    ? [
        (input.bytes instanceof Readable
          ? input.bytes
          : Readable.from(input.bytes)) as unknown as NodeJS.ReadWriteStream,
        createDecodeStage(input.makeDecoder, input.prefix ? { prefix: input.prefix } : {}),
        scrub,
      ]
    : [scrub];
  const done = joinStages([...head, createEnvelopeStage(enveloper), settle]);
  // A failure is surfaced by finish(); it is never an unhandled rejection while producers write.
  let failed = false;
  done.catch(() => {
    failed = true;
  });

  const enter = (batch: DraftBatch): boolean => {
    if (!entry) throw new Error('createRunPipeline: this pipeline decodes its input; it takes no drafts');
    // After a stage failed, finish() reports the failure; after finish() the run is settled and
    // its summary rendered, so a straggler (a late tool callback) has nowhere to go.
    if (failed || entry.writableEnded) return true;
    return entry.write(batch);
  };
  let drain: Promise<void> | undefined;
  return {
    sessionId: options.sessionId,
    emit(draft, ids) {
      enter(ids ? { drafts: [draft], ids } : { drafts: [draft] });
    },
    write(drafts, ids) {
      if (drafts.length === 0) return undefined;
      if (enter(ids ? { drafts, ids } : { drafts })) return undefined;
      drain ??= new Promise<void>((resolve) => {
        const release = (): void => {
          drain = undefined;
          entry?.off('drain', release);
          entry?.off('close', release);
          resolve();
        };
        entry?.once('drain', release);
        entry?.once('close', release);
      });
      return drain;
    },
    settled() {
      if (!entry || failed || entry.writableEnded)
        return done.then(
          () => state,
          () => state,
        );
      return new Promise<ReducerState>((resolve) => {
        // A barrier: resolves when the settle stage reaches it, or when the pipeline stops.
        enter({ drafts: [], done: () => resolve(state) });
        done.then(
          () => resolve(state),
          () => resolve(state),
        );
      });
    },
    get state() {
      return state;
    },
    async finish(extra) {
      entry?.end();
      await done;
      options.onSettled?.();
      // The summary follows the store's acknowledgement, so that it can say the run's events
      // were not stored (a full disk): a summary saying ok of events that are lost would be a lie.
      // This session's events only: other sessions sharing the store need not be waited for.
      let storeError: unknown;
      try {
        await store?.flushed(options.sessionId);
      } catch (error) {
        storeError = error;
      }
      renderer?.finish(state, storeError === undefined ? extra : { ...extra, notStored: errorFieldsOf(storeError) });
      if (storeError !== undefined) throw storeError;
      return state;
    },
  };
}
