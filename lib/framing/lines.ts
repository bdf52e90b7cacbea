/**
 * A line framer for NDJSON / JSONL inputs (Ollama `/api/chat`, native agent CLIs): bytes in,
 * complete lines out. A pure push core.
 *
 * Chunk-boundary hazards handled here:
 * - a UTF-8 code point split across chunks: the streaming decoder of `utf8.ts` keeps the partial
 *   sequence until the next chunk (invalid bytes become U+FFFD); it is ~2x cheaper than
 *   `TextDecoder` and keeps the ASCII parts of a chunk one-byte strings, which `JSON.parse`
 *   reads faster; one leading BOM of the byte stream is dropped, as `TextDecoder` does;
 * - a `\r\n` split between chunks: a line ending in `\r` is emitted without it, and a `\n`
 *   that then starts the next chunk ends an empty line, which we skip (blank lines carry no
 *   record in NDJSON);
 * - a very long line fed in small pieces: pieces are collected in an array and joined once,
 *   so a 200 KB line in 7-byte chunks stays linear.
 */

import { createUtf8Decoder } from './utf8.js';

/** Options of {@link createLineFramer}. */
export interface LineFramerOptions {
  /** Called with each complete line (without its terminator), and its 1-based line number. */
  onLine: (line: string, lineNumber: number) => void;
  /** Called when a line exceeds `maxLineBytes`; the line is dropped up to its end. */
  onOverflow?: (lineNumber: number, length: number) => void;
  /** Longest line kept, in UTF-16 code units; default 16 MiB. */
  maxLineLength?: number;
}

/** A push-based line framer. */
export interface LineFramer {
  feed(chunk: Uint8Array | string): void;
  /** Flush the last line if it had no terminator; returns true when it had none. */
  end(): boolean;
}

/** Create a line framer. Blank lines are skipped but counted in line numbers. */
export function createLineFramer(options: LineFramerOptions): LineFramer {
  const max = options.maxLineLength ?? 16 * 1024 * 1024;
  if (!(max > 0)) throw new TypeError('createLineFramer: maxLineLength must be positive');
  const decoder = createUtf8Decoder();
  /** No decoded text yet: a BOM at the start of the byte stream is dropped. */
  let atStart = true;
  let pieces: string[] = [];
  let pendingLength = 0;
  let overflowed = false;
  let lineNumber = 0;

  function emit(line: string): void {
    lineNumber++;
    if (overflowed) {
      options.onOverflow?.(lineNumber, pendingLength);
      overflowed = false;
      return;
    }
    const text = line.charCodeAt(line.length - 1) === 0x0d ? line.slice(0, -1) : line;
    // A line starting with a visible ASCII character (every JSON record) is not blank: the
    // whitespace test is left to the others.
    const first = text.charCodeAt(0);
    if (!(first > 0x20 && first < 0x7f) && (text.length === 0 || /^\s*$/.test(text))) return;
    options.onLine(text, lineNumber);
  }

  function push(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      const part = text.slice(start, nl);
      if (pieces.length > 0) {
        pieces.push(part);
        pendingLength += part.length;
        if (pendingLength > max) overflowed = true;
        emit(pieces.join(''));
        pieces = [];
      } else {
        pendingLength = part.length;
        if (pendingLength > max) overflowed = true;
        emit(part);
      }
      pendingLength = 0;
      start = nl + 1;
    }
    if (start < text.length) {
      const rest = text.slice(start);
      pendingLength += rest.length;
      if (pendingLength > max) {
        // Keep counting but stop keeping: the line is reported as an overflow when it ends.
        overflowed = true;
        pieces = [''];
      } else {
        pieces.push(rest);
      }
    }
  }

  function pushDecoded(text: string): void {
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    push(text);
  }

  return {
    feed(chunk) {
      if (typeof chunk === 'string') push(chunk);
      else decoder.decodeSegments(chunk, pushDecoded);
    },
    end() {
      pushDecoded(decoder.flush());
      if (pieces.length === 0 && !overflowed) return false;
      emit(pieces.join(''));
      pieces = [];
      pendingLength = 0;
      return true;
    },
  };
}
