import type { EventDraft } from '../events/index.js';

/** Receives the events a pure core produces, in order. */
export type EventSink = (event: EventDraft) => void;

/**
 * The pure core of a decoding stage, with no stream in it: bytes in, draft events out through
 * `onEvent`. It never throws on input: malformed records become `diagnostic.raised` drafts and
 * decoding resumes at the next frame boundary. `end()` settles the stream: a stream that
 * ended without its format's terminator is reported as truncated.
 */
export interface StreamDecoder {
  /** Feed the next chunk of raw bytes (or already-decoded text). */
  feed(chunk: Uint8Array | string): void;
  /** The input ended (EOF). Flushes buffered state and emits the terminal outcome. */
  end(): void;
}

/** Options every decoder factory accepts. */
export interface DecoderOptions {
  onEvent: EventSink;
  /** Maximum bytes of one buffered line/frame before a diagnostic; default 16 MiB. */
  maxFrameBytes?: number;
}

/** Creates a decoder for one input format. */
export type DecoderFactory = (options: DecoderOptions) => StreamDecoder;

/** A native-agent decoder also sees stderr text and the process exit. */
export interface NativeDecoder extends StreamDecoder {
  /** Text the agent wrote to stderr (already decoded). */
  stderr?(text: string): void;
  /** The process exited; settles the run when the format has no terminal record. */
  exit?(code: number | null, signal: string | null): void;
}

/** Creates a native-agent decoder. */
export type NativeDecoderFactory = (options: DecoderOptions) => NativeDecoder;
