/**
 * Thin `node:stream` adapters around the pipeline's pure cores (decoder, scrubber, enveloper,
 * reducer). Stages pass batches: what one input chunk (or one producer write) gave, as one
 * objectMode hop, instead of one hop per event. A batch may carry the producer's run ids
 * (applied by the envelope stage) and a `done` callback the settle stage calls once the batch is
 * reduced, which is how a producer waits for the pipeline to catch up.
 */
import { Transform, Writable, type TransformCallback, type TransformOptions } from 'node:stream';
import type { EventDraft, OutputEvent } from '../events/index.js';
import type { Enveloper, RunIds } from '../events/enveloper.js';
import type { OutputPort } from './output.js';
import type { StreamDecoder } from '../decode/types.js';
import { definedOnly } from '../defined-only.js';

/** Drafts on their way to the envelope stage. */
export interface DraftBatch {
  drafts: EventDraft[];
  /** Fill `turnId`/`stepId` of drafts that set none. */
  ids?: RunIds;
  /** Called once every event of the batch has been settled (a barrier when `drafts` is empty). */
  done?: () => void;
}

/** Envelopes on their way to the settle stage. */
export interface EventBatch {
  events: OutputEvent[];
  done?: () => void;
}

/** The scrub stage's pure core, as the pipeline drives it. */
export interface DraftScrubber {
  push(draft: EventDraft): EventDraft[];
  end(): EventDraft[];
}

/**
 * Batches a stage holds before it stops taking more. A batch is one input chunk's worth of
 * events, so a few are enough to keep the stages busy; more only grows what a stalled reader
 * leaves in memory.
 */
const STAGE_BATCHES = 2;

/**
 * Objects in, objects out; `map` returns undefined to drop a batch. `bytesIn` (the decode
 * stage): the writable side buffers by bytes, not by chunk count; `inBatches`: batches the
 * writable side holds (default {@link STAGE_BATCHES}).
 */
function objectTransform<In, Out>(
  map: (batch: In) => Out | undefined,
  flush?: () => Out | undefined,
  bytesIn = false,
  inBatches = STAGE_BATCHES,
): Transform {
  return new Transform(
    definedOnly<TransformOptions>({
      writableObjectMode: !bytesIn,
      readableObjectMode: true,
      readableHighWaterMark: STAGE_BATCHES,
      writableHighWaterMark: bytesIn ? undefined : inBatches,
      transform(batch: In, _encoding: BufferEncoding, callback: TransformCallback) {
        let out: Out | undefined;
        try {
          out = map(batch);
        } catch (error) {
          callback(error as Error);
          return;
        }
        if (out !== undefined) this.push(out);
        callback();
      },
      flush(callback: TransformCallback) {
        let out: Out | undefined;
        try {
          out = flush?.();
        } catch (error) {
          callback(error as Error);
          return;
        }
        if (out !== undefined) this.push(out);
        callback();
      },
    }),
  );
}

/**
 * The decode stage: raw bytes in, one {@link DraftBatch} per input chunk out. `prefix` drafts
 * (e.g. `session.started`) go out before the first decoded event.
 */
export function createDecodeStage(
  makeDecoder: (onEvent: (event: EventDraft) => void) => StreamDecoder,
  options: { prefix?: EventDraft[] } = {},
): Transform {
  let pending: EventDraft[] = options.prefix ? [...options.prefix] : [];
  const decoder = makeDecoder((event) => pending.push(event));
  const take = (): DraftBatch | undefined => {
    if (pending.length === 0) return undefined;
    const drafts = pending;
    pending = [];
    return { drafts };
  };
  return objectTransform<Buffer, DraftBatch>(
    (chunk) => {
      decoder.feed(chunk);
      return take();
    },
    () => {
      decoder.end();
      return take();
    },
    true,
  );
}

/**
 * The scrub stage: every draft sanitised and redacted before anything else sees it.
 * `entryBatches`: when producers write into this stage directly (the pipeline's entry), the
 * batches it holds before `write` reports backpressure; default {@link STAGE_BATCHES}.
 */
export function createScrubStage(scrubber: DraftScrubber, options: { entryBatches?: number } = {}): Transform {
  let lastIds: RunIds | undefined;
  return objectTransform<DraftBatch, DraftBatch>(
    (batch) => {
      lastIds = batch.ids;
      const drafts: EventDraft[] = [];
      for (let i = 0; i < batch.drafts.length; i++) {
        const scrubbed = scrubber.push(batch.drafts[i] as EventDraft);
        for (let j = 0; j < scrubbed.length; j++) drafts.push(scrubbed[j] as EventDraft);
      }
      if (drafts.length === 0 && !batch.done) return undefined;
      return definedOnly({ drafts, ids: batch.ids, done: batch.done });
    },
    () => {
      // Text the scrubber still holds belongs to the last producer position seen.
      const drafts = scrubber.end();
      return drafts.length > 0 ? definedOnly({ drafts, ids: lastIds }) : undefined;
    },
    false,
    options.entryBatches ?? STAGE_BATCHES,
  );
}

/** The envelope stage: drafts -> `minicode.output.v1` envelopes (sequence, id, timestamp, run ids). */
export function createEnvelopeStage(enveloper: Enveloper): Transform {
  return objectTransform<DraftBatch, EventBatch>((batch) => {
    const events = new Array<OutputEvent>(batch.drafts.length);
    for (let i = 0; i < batch.drafts.length; i++) events[i] = enveloper.wrap(batch.drafts[i] as EventDraft, batch.ids);
    return batch.done ? { events, done: batch.done } : { events };
  });
}

/** Options of {@link createSettleStage}. */
export interface SettleStageOptions {
  /** Reduce, store, render and notify the events of one batch, in order. */
  settle: (events: readonly OutputEvent[]) => void;
  /** Wait for it to drain after each batch (backpressure from a slow reader). */
  output?: OutputPort | undefined;
}

/** The last stage: settles every event, then holds the next batch until the output has drained. */
export function createSettleStage(options: SettleStageOptions): Writable {
  const { settle, output } = options;
  return new Writable({
    objectMode: true,
    highWaterMark: STAGE_BATCHES,
    write(batch: EventBatch, _encoding, callback) {
      try {
        settle(batch.events);
        batch.done?.();
      } catch (error) {
        callback(error as Error);
        return;
      }
      const wait = output?.ready();
      if (wait) wait.then(() => callback());
      else callback();
    },
  });
}
