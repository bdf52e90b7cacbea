/**
 * `ingest` on the run pipeline: a recorded stream (provider SSE/NDJSON, native CLI JSONL,
 * terminal text) as the pipeline's byte head, decoded by its format's decoder.
 */
import type { Readable } from 'node:stream';
import type { EventDraft } from '../events/index.js';
import type { Clock } from '../events/enveloper.js';
import { MinicodeError } from '../errors.js';
import { INGEST_FORMATS } from '../decode/formats.js';
import { NATIVE_DECODERS } from '../native/index.js';
import { PROVIDER_DECODERS } from '../providers/index.js';
import type { ReducerState } from '../reducer/index.js';
import type { Renderer } from '../render/types.js';
import { createEventScrubber, type EventScrubberOptions } from '../scrub/scrub-stage.js';
import type { EventStore } from '../store/index.js';
import { createRunPipeline } from './compose.js';
import type { OutputPort } from './output.js';
import type { StreamDecoder } from '../decode/types.js';

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
  throw new MinicodeError('MINICODE_E_UNKNOWN_FORMAT', `unknown format "${format}"`, { action: `pass --from with one of: ${INGEST_FORMATS.join(', ')}` });
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
}

/** Run the ingest pipeline to the end of the input; returns the final reducer state. */
export async function runIngest(options: IngestOptions): Promise<ReducerState> {
  const started: EventDraft = { type: 'session.started', payload: { origin: options.origin ?? 'ingest', format: options.format }, fidelity: 'synthetic' };
  const run = createRunPipeline({
    sessionId: options.sessionId,
    ...(options.clock ? { clock: options.clock } : {}),
    scrubber: createEventScrubber(options.scrub ?? {}),
    ...(options.renderer ? { renderer: options.renderer } : {}),
    ...(options.output ? { output: options.output } : {}),
    ...(options.store ? { store: options.store } : {}),
    input: { bytes: options.input, makeDecoder: decoderFor(options.format), prefix: [started] },
  });
  return run.finish();
}
