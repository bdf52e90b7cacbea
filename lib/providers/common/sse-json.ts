/**
 * The frame layer shared by the SSE provider decoders: our SSE framer, a guarded `JSON.parse`
 * per frame (bad JSON becomes a diagnostic and decoding goes on with the next frame), `[DONE]`
 * recognised without parsing, and the end-of-input rules (a frame cut by EOF is reported, the
 * response is settled by the emitter).
 */
import { createSseFramer, type SseEvent } from '../../framing/sse.js';
import type { DecoderOptions, StreamDecoder } from '../../decode/types.js';
import { DECODE_CODES } from './codes.js';
import { createResponseEmitter, type ResponseEmitter } from './response.js';

/** What a provider plugs into {@link createSseJsonDecoder}. */
export interface SseJsonHandlers {
  /**
   * Frames the decoder can drop unparsed (keep-alives, `.done` events that repeat text already
   * streamed): JSON.parse dominates decoding, so not parsing what we do not need is the win.
   * Gets the SSE event name and the raw data; must be cheap (a name or prefix check).
   */
  skip?(event: string | undefined, data: string): boolean;
  /**
   * An exact fast parser for the provider's hot frame shapes (see `templates.ts`): returns what
   * `JSON.parse(data)` would, or undefined to let `JSON.parse` (and its bad-JSON guard) decide.
   */
  parse?(data: string): unknown;
  /** A parsed JSON payload (any JSON value) with its SSE event name. */
  onJson(json: unknown, frame: SseEvent): void;
  /** `data: [DONE]`; `unterminated` when it arrived without its blank line before EOF. */
  onDone?(frame: SseEvent, unterminated: boolean): void;
  /** Called at EOF before the emitter settles an unfinished response. */
  onEnd?(): void;
}

/** Build an SSE + JSON decoder for one provider; `setup` receives the emitter and returns the handlers. */
export function createSseJsonDecoder(
  options: DecoderOptions,
  provider: string,
  setup: (r: ResponseEmitter) => SseJsonHandlers,
): StreamDecoder {
  const r = createResponseEmitter({ onEvent: options.onEvent, provider });
  const h = setup(r);

  function onFrame(frame: SseEvent): void {
    const data = frame.data;
    if (data === '[DONE]') {
      if (h.onDone) h.onDone(frame, false);
      else
        r.diagnostic(DECODE_CODES.UNKNOWN_EVENT, `unexpected [DONE] in a ${provider} stream`, {
          excerpt: data,
          offset: frame.offset,
        });
      return;
    }
    if (h.skip?.(frame.event, data)) return;
    // JSON.parse never returns undefined, so undefined safely means "not a known shape".
    let json: unknown = h.parse?.(data);
    if (json === undefined) {
      try {
        json = JSON.parse(data);
      } catch {
        r.diagnostic(DECODE_CODES.BAD_JSON, 'frame data is not valid JSON', { excerpt: data, offset: frame.offset });
        return;
      }
    }
    h.onJson(json, frame);
  }

  const framer = createSseFramer({
    onEvent: onFrame,
    maxEventBytes: options.maxFrameBytes ?? 16 * 1024 * 1024,
    onOverflow: (offset, size) =>
      r.diagnostic(
        DECODE_CODES.FRAME_TOO_LARGE,
        `an SSE event of ${size}+ characters exceeded maxFrameBytes; dropped`,
        { offset },
      ),
  });

  return {
    feed(chunk) {
      framer.feed(chunk);
    },
    end() {
      const { truncated, pending } = framer.end();
      if (truncated && pending) {
        if (pending.data === '[DONE]' && h.onDone) {
          // A whole `data: [DONE]` line without its blank line (seen from a real gateway): the
          // terminator did arrive; say the framing was short, and accept it.
          r.diagnostic(DECODE_CODES.TRUNCATED_FRAME, 'the final [DONE] frame had no blank line after it', {
            excerpt: pending.data,
            offset: pending.offset,
          });
          h.onDone(pending, true);
        } else {
          r.diagnostic(
            DECODE_CODES.TRUNCATED_FRAME,
            'the input ended inside an SSE event (no blank line); it is discarded',
            { excerpt: pending.data, offset: pending.offset },
          );
        }
      }
      h.onEnd?.();
      if (!r.finished) {
        if (!r.errored) r.diagnostic(DECODE_CODES.NO_TERMINATOR, `the ${provider} stream ended without its terminator`);
        r.endOfStream();
      }
    },
  };
}

/** Narrow to a plain object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A non-negative integer field or undefined. */
export function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}
