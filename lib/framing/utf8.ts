/**
 * Streaming UTF-8 decoding for the framers, faster than `TextDecoder {stream: true}` on
 * Node 20 (bench/sse-framing measures the framers): V8's `Buffer#toString('utf8')` decodes whole
 * chunks, and an incomplete code point at the end of a chunk is held back and prepended to the
 * next one. Invalid bytes become U+FFFD (never a throw); a BOM is kept (the caller decides).
 *
 * Two paths that give exactly the text the plain path gives:
 * - a pure-ASCII chunk (the common case: provider JSON escapes most non-ASCII) is recognised with
 *   `buffer.isAscii` (SIMD) and decoded as latin1, the same text for bytes
 *   < 0x80; no tail to look for, no copy. (V8's UTF-8 decoder is about as fast on ASCII: the
 *   check is what tells {@link Utf8StreamDecoder.decodeSegments} a chunk needs no cutting.)
 * - {@link Utf8StreamDecoder.decodeSegments} cuts a chunk that does hold non-ASCII bytes at LF
 *   bytes (always a code point boundary) into blocks of about {@link SEGMENT_BYTES}, so that
 *   only the blocks with non-ASCII text become V8 two-byte strings. Every slice of a two-byte
 *   string is two-byte too, and `JSON.parse` is slower on those: one emoji must not slow
 *   down the parsing of every other frame of a 16 KiB chunk.
 *   A long pure-ASCII chunk (a file read in 256 KiB pieces) is cut at LF bytes into blocks of
 *   about {@link ASCII_BLOCK_BYTES} too: a string past V8's large-object threshold (128 KiB)
 *   gets a memory mapping of its own, page-faulted in and unmapped again for every chunk, and
 *   every line sliced from it keeps all of it alive.
 */
import { isAscii } from 'node:buffer';

/** Target size of the blocks {@link Utf8StreamDecoder.decodeSegments} cuts a mixed chunk into. */
export const SEGMENT_BYTES = 1024;

/** Target size of the blocks {@link Utf8StreamDecoder.decodeSegments} cuts a long ASCII chunk into. */
export const ASCII_BLOCK_BYTES = 32 * 1024;

const LF = 10;

/** Bytes at the end of `b` that start a multi-byte sequence not yet complete (0–3). */
export function incompleteTail(b: Uint8Array): number {
  const n = b.length;
  for (let k = 1; k <= 3 && k <= n; k++) {
    const byte = b[n - k] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need =
      byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 && byte < 0xf0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 1;
    return need > k ? k : 0;
  }
  return 0;
}

/** A streaming decoder: `decode(chunk)` returns the text of every complete code point so far. */
export interface Utf8StreamDecoder {
  decode(chunk: Uint8Array): string;
  /**
   * Same text as `decode(chunk)`, handed to `sink` in one or more pieces (cut after LF bytes)
   * whose concatenation is that text. Never calls `sink` with an empty string.
   */
  decodeSegments(chunk: Uint8Array, sink: (text: string) => void): void;
  /** End of input: a held-back incomplete sequence becomes U+FFFD. */
  flush(): string;
}

type Slice = (this: Uint8Array, start: number, end: number) => string;
const proto = Buffer.prototype as unknown as { latin1Slice?: Slice; utf8Slice?: Slice };
/**
 * `Buffer#latin1Slice` / `utf8Slice` are what `toString` calls after its argument checks; they
 * accept any Uint8Array, so no Buffer view has to be allocated per chunk, which is much of the
 * decoding cost at small chunks. They are not in the documented API, so fall back to
 * `toString` should a Node version drop them.
 */
const latin1: Slice =
  proto.latin1Slice ??
  function (this: Uint8Array, start: number, end: number) {
    return Buffer.from(this.buffer, this.byteOffset, this.byteLength).toString('latin1', start, end);
  };
const utf8: Slice =
  proto.utf8Slice ??
  function (this: Uint8Array, start: number, end: number) {
    return Buffer.from(this.buffer, this.byteOffset, this.byteLength).toString('utf8', start, end);
  };

/** Decode `b[start, end)`, which holds only complete code points (or invalid bytes). */
function decodeRange(b: Uint8Array, start: number, end: number): string {
  const ascii = start === 0 && end === b.length ? isAscii(b) : isAscii(b.subarray(start, end));
  return ascii ? latin1.call(b, start, end) : utf8.call(b, start, end);
}

/**
 * Cut `b[start, end)` into blocks of about `size` bytes, each ending after an LF byte (a code
 * point boundary) where there is one: after the last LF of the block, or after the first LF past
 * it for a long line; `take(from, to)` gets each block, none empty.
 */
function cutAtLines(
  b: Uint8Array,
  start: number,
  end: number,
  size: number,
  take: (from: number, to: number) => void,
): void {
  // A Buffer view for its memchr-based indexOf (TypedArray#lastIndexOf compares element by element).
  const view = b instanceof Buffer ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let pos = start;
  while (pos < end) {
    let cut = end;
    if (end - pos > size) {
      const before = view.lastIndexOf(LF, pos + size - 1);
      const after = before >= pos ? before : view.indexOf(LF, pos + size);
      if (after !== -1 && after < end) cut = after + 1;
    }
    take(pos, cut);
    pos = cut;
  }
}

/** Create a streaming UTF-8 decoder. */
export function createUtf8Decoder(): Utf8StreamDecoder {
  let carry: Buffer | undefined;

  /** The chunk with the held-back bytes in front; sets `carry` to its own incomplete tail and returns where that starts. */
  function take(chunk: Uint8Array): { b: Uint8Array; end: number } {
    let b = chunk;
    if (carry) {
      b = Buffer.concat([carry, chunk]);
      carry = undefined;
    }
    const tail = incompleteTail(b);
    if (tail > 0) carry = Buffer.from(b.subarray(b.length - tail)); // copy: the caller may reuse its buffer
    return { b, end: b.length - tail };
  }

  return {
    decode(chunk) {
      // No carry and all ASCII: nothing can be incomplete, skip the tail and concat work.
      if (!carry && isAscii(chunk)) return latin1.call(chunk, 0, chunk.length);
      const { b, end } = take(chunk);
      return utf8.call(b, 0, end);
    },
    decodeSegments(chunk, sink) {
      if (!carry && isAscii(chunk)) {
        // The common case: no copy of the bytes, no tail to look for, one string per block.
        if (chunk.length <= ASCII_BLOCK_BYTES) {
          if (chunk.length > 0) sink(latin1.call(chunk, 0, chunk.length));
          return;
        }
        cutAtLines(chunk, 0, chunk.length, ASCII_BLOCK_BYTES, (from, to) => sink(latin1.call(chunk, from, to)));
        return;
      }
      const { b, end } = take(chunk);
      cutAtLines(b, 0, end, SEGMENT_BYTES, (from, to) => sink(decodeRange(b, from, to)));
    },
    flush() {
      const rest = carry;
      carry = undefined;
      return rest ? utf8.call(rest, 0, rest.length) : '';
    },
  };
}
