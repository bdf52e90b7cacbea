/**
 * Our WHATWG event-stream framer (HTML LS §9.2.5–9.2.6): bytes in, dispatched events out. A pure
 * push core, driven by the provider decoders (which the run pipeline's decode stage wraps).
 *
 * Chunk-boundary hazards handled here, each with the state that carries it:
 * - a UTF-8 code point split across chunks: `utf8.ts` holds the partial sequence back until
 *   the next chunk (invalid bytes become U+FFFD, never a throw);
 * - a BOM: exactly one U+FEFF is stripped, and only at the very start of the decoded stream
 *   (`atStart`), even when its three bytes arrive in separate chunks; a second one is data;
 * - a CR at the end of a chunk: it ends the line, but if the next chunk starts with LF that LF
 *   belongs to the same CRLF and must not end a second (blank) line (`skipLeadingLf`);
 * - a long line fed in small pieces: the partial line is kept as a list of pieces joined once
 *   when its end arrives, so a 200 KB line in 7-byte chunks stays linear;
 * - EOF without the blank line: the spec discards the pending event; we report it as
 *   truncated (and hand it to the caller, who decides, e.g. an unterminated `data: [DONE]`).
 */

import { createUtf8Decoder } from './utf8.js';

/** One dispatched event. `event` is undefined for the default type (`message`). */
export interface SseEvent {
  event: string | undefined;
  data: string;
  /** The last event ID string at dispatch (persists across events, WHATWG). */
  lastEventId: string;
  /** UTF-16 offset, in the decoded stream, of the event's first line (for diagnostics). */
  offset: number;
}

/** Options of {@link createSseFramer}. */
export interface SseFramerOptions {
  onEvent: (event: SseEvent) => void;
  /** A comment line (`:` ...), without the colon; keep-alives land here. */
  onComment?: (comment: string) => void;
  /** A valid `retry:` field (ASCII digits only). */
  onRetry?: (ms: number) => void;
  /** The pending line plus data buffer exceeded `maxEventBytes`; the event is dropped up to its blank line. */
  onOverflow?: (offset: number, size: number) => void;
  /** Largest event kept, counted in UTF-16 code units of line + data; default 16 MiB. */
  maxEventBytes?: number;
}

/** What {@link SseFramer.end} reports. */
export interface SseEndResult {
  /** True when data was pending without its blank line (the spec discards it; we say so). */
  truncated: boolean;
  /** The discarded event, when there was one: never dispatch it as normal data. */
  pending: SseEvent | undefined;
}

/** A push-based SSE framer. */
export interface SseFramer {
  feed(chunk: Uint8Array | string): void;
  /** The input ended: flush, discard (and report) an event without its blank line. */
  end(): SseEndResult;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/** Create an SSE framer. See the module comment for the chunk-boundary rules. */
export function createSseFramer(options: SseFramerOptions): SseFramer {
  const maxEvent = options.maxEventBytes ?? 16 * 1024 * 1024;
  if (!(maxEvent > 0)) throw new TypeError('createSseFramer: maxEventBytes must be positive');
  const { onEvent, onComment, onRetry, onOverflow } = options;
  // It keeps BOMs: we strip the one leading BOM ourselves, so that a second one stays data (WPT format-bom-2).
  const decoder = createUtf8Decoder();

  let atStart = true;
  let skipLeadingLf = false;
  /** Pieces of a line whose end has not arrived yet. */
  let pieces: string[] = [];
  let piecesLength = 0;
  /** Decoded characters consumed before the current chunk. */
  let consumed = 0;

  // The event being built. `data` holds the first data line; further lines go to `moreData`.
  let data: string | undefined;
  let moreData: string[] | undefined;
  let dataLength = 0;
  let eventType: string | undefined;
  let lastEventId = '';
  let eventOffset = -1;
  let overflowed = false;

  function resetEvent(): void {
    data = undefined;
    moreData = undefined;
    dataLength = 0;
    eventType = undefined;
    eventOffset = -1;
  }

  function dispatch(): void {
    if (overflowed) {
      overflowed = false;
      resetEvent();
      return;
    }
    if (data === undefined) {
      // An event without data (e.g. `event: ping`) dispatches nothing (spec step "data buffer empty").
      resetEvent();
      return;
    }
    const joined = moreData === undefined ? data : data + '\n' + moreData.join('\n');
    const ev: SseEvent = { event: eventType, data: joined, lastEventId, offset: eventOffset };
    resetEvent();
    onEvent(ev);
  }

  function overflow(size: number): void {
    if (!overflowed) onOverflow?.(eventOffset < 0 ? consumed : eventOffset, size);
    overflowed = true;
    data = undefined;
    moreData = undefined;
    dataLength = 0;
  }

  function addData(value: string): void {
    dataLength += value.length + 1;
    if (dataLength > maxEvent) return overflow(dataLength);
    if (data === undefined) data = value;
    else (moreData ??= []).push(value);
  }

  /** Interpret one complete, non-empty line that starts at `offset`. */
  function processLine(line: string, offset: number): void {
    const first = line.charCodeAt(0);
    if (first === COLON) {
      onComment?.(line.slice(1));
      return;
    }
    if (eventOffset < 0) eventOffset = offset;
    if (overflowed) return;
    const colon = line.indexOf(':');
    let name: string;
    let value: string;
    if (colon === -1) {
      name = line;
      value = '';
    } else {
      name = line.slice(0, colon);
      value = line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    }
    switch (name) {
      case 'data':
        addData(value);
        break;
      case 'event':
        eventType = value === '' ? undefined : value;
        break;
      case 'id':
        if (value.indexOf('\0') === -1) lastEventId = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) onRetry?.(Number(value));
        break;
      default:
        // Unknown fields (also `Data`, `data ` with a space) are ignored (spec).
        break;
    }
  }

  /**
   * The hot path: a line known to start at `start` in `text` and end before `end`. Recognises
   * `data:` and `event:` directly to avoid slicing the line first.
   */
  function lineAt(text: string, start: number, end: number): void {
    if (start === end) return dispatch();
    const first = text.charCodeAt(start);
    if (
      first === 100 && // d
      !overflowed &&
      text.charCodeAt(start + 1) === 97 && // a
      text.charCodeAt(start + 2) === 116 && // t
      text.charCodeAt(start + 3) === 97 && // a
      text.charCodeAt(start + 4) === COLON &&
      start + 4 < end
    ) {
      if (eventOffset < 0) eventOffset = consumed + start;
      addData(text.slice(text.charCodeAt(start + 5) === SPACE && start + 5 < end ? start + 6 : start + 5, end));
      return;
    }
    if (
      first === 101 && // e
      !overflowed &&
      start + 5 < end &&
      text.charCodeAt(start + 1) === 118 && // v
      text.charCodeAt(start + 2) === 101 && // e
      text.charCodeAt(start + 3) === 110 && // n
      text.charCodeAt(start + 4) === 116 && // t
      text.charCodeAt(start + 5) === COLON
    ) {
      if (eventOffset < 0) eventOffset = consumed + start;
      const from = text.charCodeAt(start + 6) === SPACE && start + 6 < end ? start + 7 : start + 6;
      eventType = from === end ? undefined : text.slice(from, end);
      return;
    }
    processLine(text.slice(start, end), consumed + start);
  }

  /** Finish a line whose earlier pieces are pending, ending at `end` in `text`. */
  function finishPending(text: string, end: number): void {
    if (overflowed) {
      // The over-long line ends here; it was never kept.
      pieces = [];
      piecesLength = 0;
      return;
    }
    pieces.push(text.slice(0, end));
    const line = pieces.join('');
    const offset = consumed - piecesLength;
    pieces = [];
    piecesLength = 0;
    if (line.length === 0) dispatch();
    else if (line.length + dataLength > maxEvent) {
      if (eventOffset < 0) eventOffset = offset;
      overflow(line.length + dataLength);
    } else processLine(line, offset);
  }

  function push(text: string): void {
    if (text.length === 0) return;
    if (atStart) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) return;
    }
    let pos = 0;
    if (skipLeadingLf) {
      skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    const len = text.length;
    // Next CR / LF positions, refreshed only once passed: linear even on CR-heavy (Gemini CRLF) text.
    let nextCr = text.indexOf('\r', pos);
    let nextLf = text.indexOf('\n', pos);
    while (pos < len) {
      if (nextLf !== -1 && nextLf < pos) nextLf = text.indexOf('\n', pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = text.indexOf('\r', pos);
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : nextCr < nextLf ? nextCr : nextLf;
      if (end === -1) break;
      if (piecesLength > 0 || pieces.length > 0) {
        // `pos` is 0 here: the pending line continues at the start of this chunk.
        finishPending(text, end);
      } else {
        lineAt(text, pos, end);
      }
      pos = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (pos < len) {
          if (text.charCodeAt(pos) === LF) pos++;
        } else {
          skipLeadingLf = true;
        }
      }
    }
    if (pos < len) {
      const rest = pos === 0 ? text : text.slice(pos);
      piecesLength += rest.length;
      if (piecesLength + dataLength > maxEvent) {
        // Keep counting but stop keeping: the line is dropped when its end arrives.
        if (eventOffset < 0) eventOffset = consumed + pos;
        overflow(piecesLength + dataLength);
        pieces = [];
      } else {
        pieces.push(rest);
      }
    }
    consumed += len;
  }

  return {
    feed(chunk) {
      if (typeof chunk === 'string') push(chunk);
      else decoder.decodeSegments(chunk, push);
    },
    end() {
      push(decoder.flush());
      if (pieces.length > 0 || piecesLength > 0) {
        const line = pieces.join('');
        const offset = consumed - piecesLength;
        pieces = [];
        piecesLength = 0;
        if (!overflowed && line.length > 0) processLine(line, offset);
      }
      const truncated = data !== undefined;
      const pending: SseEvent | undefined = truncated
        ? {
            event: eventType,
            data: moreData === undefined ? (data as string) : data + '\n' + moreData.join('\n'),
            lastEventId,
            offset: eventOffset,
          }
        : undefined;
      resetEvent();
      overflowed = false;
      atStart = true;
      skipLeadingLf = false;
      consumed = 0;
      return { truncated, pending };
    },
  };
}
