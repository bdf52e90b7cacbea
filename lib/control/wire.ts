/**
 * How transcripts cross the worker boundary: as UTF-8 bytes of NDJSON (one message per line),
 * moved (not copied) with `Piscina.move`. A 200 KB string is ~5x dearer to post than its bytes,
 * and a 5 MB transcript encoded in one go would block the event loop, so the main-thread
 * encoder works in slices and yields between them.
 */
import { Piscina } from 'piscina';
import { asTranscriptMessage, type TranscriptMessage } from './transcript.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encode a transcript as NDJSON bytes in one go (for small transcripts and workers). */
export function encodeTranscript(messages: readonly TranscriptMessage[]): Uint8Array {
  const lines: string[] = [];
  for (const m of messages) lines.push(JSON.stringify(m));
  return encoder.encode(lines.join('\n'));
}

/** Options of {@link encodeTranscriptSliced}. */
export interface SlicedEncodeOptions {
  /** Characters encoded before yielding to the event loop; default 64 Ki (well under 1 ms). */
  sliceChars?: number;
  /** Yield function; default `setImmediate`. Injected so tests need no timers. */
  yieldToLoop?: () => Promise<void>;
  signal?: AbortSignal;
}

const defaultYield = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Encode a transcript as NDJSON bytes, yielding to the event loop every `sliceChars` so that a
 * multi-megabyte transcript never blocks the main thread in one piece. Long single messages
 * are stringified whole (one slice), which is the bound on a single pause.
 */
export async function encodeTranscriptSliced(
  messages: readonly TranscriptMessage[],
  options: SlicedEncodeOptions = {},
): Promise<Uint8Array> {
  const sliceChars = options.sliceChars ?? 64 * 1024;
  const yieldToLoop = options.yieldToLoop ?? defaultYield;
  const parts: Uint8Array[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  let total = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const bytes = encoder.encode(pending.join('\n') + '\n');
    parts.push(bytes);
    total += bytes.byteLength;
    pending = [];
    pendingChars = 0;
  };
  for (const m of messages) {
    const line = JSON.stringify(m);
    pending.push(line);
    pendingChars += line.length;
    if (pendingChars >= sliceChars) {
      flush();
      options.signal?.throwIfAborted();
      await yieldToLoop();
    }
  }
  flush();
  // One copy into a single buffer: memcpy speed, short even for the largest transcript.
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/** What decoding found: the messages and one diagnostic per line that was not a message. */
export interface DecodedTranscript {
  messages: TranscriptMessage[];
  badLines: { line: number; reason: string }[];
}

/** Decode NDJSON transcript bytes. A bad line is reported, never thrown. */
export function decodeTranscript(bytes: Uint8Array | ArrayBuffer): DecodedTranscript {
  const text = decoder.decode(bytes);
  const messages: TranscriptMessage[] = [];
  const badLines: DecodedTranscript['badLines'] = [];
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const line = text.slice(start, nl);
    start = nl + 1;
    lineNo++;
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      badLines.push({ line: lineNo, reason: 'invalid JSON' });
      continue;
    }
    const m = asTranscriptMessage(parsed);
    if (m) messages.push(m);
    else badLines.push({ line: lineNo, reason: 'not a transcript message' });
  }
  return { messages, badLines };
}

/** The ArrayBuffer behind a view, sliced when the view does not own all of it. */
export function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  const buffer = bytes.buffer as ArrayBuffer;
  if (bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) return buffer;
  return buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

/**
 * Wrap a value that carries ArrayBuffers so Piscina transfers them instead of copying: the
 * object form of `Piscina.move`, for a task or result whose bytes sit inside a larger value.
 */
export function moveWith<T extends object>(value: T, buffers: ArrayBuffer[]): T {
  const movable = {
    get [Piscina.transferableSymbol]() {
      return buffers;
    },
    get [Piscina.valueSymbol]() {
      return value;
    },
  };
  return Piscina.move(movable as never) as unknown as T;
}
