/**
 * `ingest` on the run pipeline: a recorded stream (provider SSE/NDJSON, native CLI JSONL,
 * terminal text) as the pipeline's byte head, decoded by its format's decoder.
 */
import { Readable } from 'node:stream';
import type { EventDraft } from '../events/index.js';
import type { Clock } from '../events/enveloper.js';
import { MinicodeError } from '../errors.js';
import { INGEST_FORMATS } from '../decode/formats.js';
import { NATIVE_DECODERS } from '../native/index.js';
import { PROVIDER_DECODERS } from '../providers/index.js';
import type { ReducerState } from '../reducer/index.js';
import type { FinishExtra, Renderer } from '../render/types.js';
import { createEventScrubber, type EventScrubberOptions } from '../scrub/scrub-stage.js';
import type { EventStore } from '../store/index.js';
import { createRunPipeline, type RunPipelineOptions } from './compose.js';
import type { OutputPort } from './output.js';
import type { StreamDecoder } from '../decode/types.js';
import { definedOnly } from '../defined-only.js';

export { INGEST_FORMATS, type IngestFormat } from '../decode/formats.js';

/**
 * Bytes `ingest FILE` reads at a time: each read becomes one batch through the stages, so large
 * reads keep the per-batch plumbing small beside the work (the decoder and the JSONL writer keep
 * their own strings well below V8's large-object size whatever the read size).
 */
export const INGEST_READ_BYTES = 256 * 1024;

/** The decoder of a format, or a coded usage error naming the valid ones. */
export function decoderFor(format: string): (onEvent: (event: EventDraft) => void) => StreamDecoder {
  const provider = PROVIDER_DECODERS[format];
  if (provider) return (onEvent) => provider({ onEvent });
  const native = NATIVE_DECODERS[format];
  // A recording is not a live process: no exit() is called, so a stream without its terminal
  // record stays unsettled and rebuilds as interrupted rather than being guessed complete.
  if (native) return (onEvent) => native({ onEvent });
  throw new MinicodeError('MINICODE_E_UNKNOWN_FORMAT', `unknown format "${format}"`, {
    action: `pass --from with one of: ${INGEST_FORMATS.join(', ')}`,
  });
}

/** Options of {@link runIngest}. */
export interface IngestOptions {
  input: Readable;
  format: string;
  sessionId: string;
  clock?: Clock;
  renderer?: Renderer<ReducerState>;
  /** The renderer's output, drained between batches (backpressure). */
  output?: OutputPort;
  store?: EventStore;
  scrub?: EventScrubberOptions;
  /** Where the input came from, for `session.started`. */
  origin?: string;
  /**
   * Stops reading the input (SIGINT, SIGTERM): what was decoded so far is settled and stored,
   * and the summary is `ok:false` with MINICODE_E_ABORTED.
   */
  signal?: AbortSignal;
}

/** The chunks of `source` until it ends or `signal` aborts (even while a read is pending). */
async function* untilAborted(source: Readable, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const stopped = new Promise<IteratorResult<Uint8Array>>((resolve) => {
    if (signal.aborted) resolve({ done: true, value: undefined });
    else signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
  });
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  try {
    for (;;) {
      const read = chunks.next();
      // A read left pending by the abort settles (or fails) once the source is destroyed.
      read.catch(() => undefined);
      const next = await Promise.race([read, stopped]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    source.destroy();
  }
}

/** Run the ingest pipeline to the end of the input; returns the final reducer state. */
export async function runIngest(options: IngestOptions): Promise<ReducerState> {
  const started: EventDraft = {
    type: 'session.started',
    payload: { origin: options.origin ?? 'ingest', format: options.format },
    fidelity: 'synthetic',
  };
  const run = createRunPipeline(
    definedOnly<RunPipelineOptions>({
      sessionId: options.sessionId,
      clock: options.clock,
      scrubber: createEventScrubber(options.scrub ?? {}),
      renderer: options.renderer,
      output: options.output,
      store: options.store,
      input: {
        bytes: options.signal
          ? // Byte mode at the source's high-water mark: the same read-ahead as the source unwrapped.
            Readable.from(untilAborted(options.input, options.signal), {
              objectMode: false,
              highWaterMark: options.input.readableHighWaterMark,
            })
          : options.input,
        makeDecoder: decoderFor(options.format),
        prefix: [started],
      },
    }),
  );
  const signal = options.signal;
  if (!signal) return run.finish();
  // Read when the summary is rendered (the input's end), so an abort up to then is in it.
  const extra: FinishExtra = {};
  const onAbort = (): void => {
    extra.interrupted = {
      category: 'USER_ERROR',
      code: 'MINICODE_E_ABORTED',
      message: `interrupted (${String(signal.reason)})`,
    };
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await run.finish(extra);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
