import { Transform, type TransformCallback } from 'node:stream';
import { createSseFramer, type SseEndResult, type SseEvent, type SseFramerOptions } from './sse.js';

/** Options of {@link createSseStream}: the framer's options minus `onEvent`. */
export type SseStreamOptions = Omit<SseFramerOptions, 'onEvent'> & {
  /** Called once at EOF with what `end()` reported (truncated last event). */
  onEnd?: (result: SseEndResult) => void;
};

/**
 * A thin `node:stream` Transform over {@link createSseFramer}: bytes (or strings) in,
 * {@link SseEvent} objects out (objectMode readable side).
 */
export function createSseStream(options: SseStreamOptions = {}): Transform {
  let out: SseEvent[] = [];
  const framer = createSseFramer({ ...options, onEvent: (e) => out.push(e) });
  const flushTo = (stream: Transform): void => {
    const batch = out;
    out = [];
    for (const e of batch) stream.push(e);
  };
  return new Transform({
    readableObjectMode: true,
    transform(this: Transform, chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback) {
      framer.feed(chunk);
      flushTo(this);
      callback();
    },
    flush(this: Transform, callback: TransformCallback) {
      const result = framer.end();
      flushTo(this);
      options.onEnd?.(result);
      callback();
    },
  });
}
