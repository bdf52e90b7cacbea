/**
 * The store's event format: the durable events one writer appended to one session in one
 * event-loop turn, as ONE LMDB value under `[sessionId, seq of the first]`. The value is the
 * JSON array of the events, UTF-8, and a batch reads back with one `JSON.parse`. Each element
 * is the event's JSON text: the line the run pipeline hands `append` (`jsonLine` of the event:
 * the line `--json` printed, made once for both, or made the same way for the store alone),
 * else `JSON.stringify` of the event, made when it is appended. The two
 * differ only in characters `jsonLine` escapes for terminals (U+2028, C1 controls, ...); both
 * parse to the same events, and `replay --json` prints `jsonLine` of what it parsed, so a
 * replayed event prints exactly as it printed live either way.
 */
import type { OutputEvent } from '../events/index.js';

/** Key of a batch: the session and the sequence number of its first event. */
export type BatchKey = [string, number];

/** Most events in one batch: a turn with more is written as several values. */
export const MAX_BATCH_EVENTS = 1024;
/**
 * Most characters of JSON text in one batch (unless a single event is larger): a turn with more
 * is written as several values, which keeps single-event reads and the memory held until the
 * end of the turn small.
 */
export const MAX_BATCH_CHARS = 256 * 1024;

/** Events of one session waiting for the end of the event-loop turn, as their JSON text. */
export interface PendingBatch {
  firstSeq: number;
  /** Each event's JSON text (see the module comment). */
  lines: string[];
  /** Characters of `lines`. */
  chars: number;
}

/**
 * The stored value of a batch: its lines as one JSON array, UTF-8. Each line is encoded
 * straight into a buffer of the exact size: joining the lines into one string first and then
 * encoding it cost ten times as much (a measurement over a 47 MB `ingest --json` output).
 */
export function encodeBatch(lines: readonly string[]): Buffer {
  let size = lines.length + 1;
  for (let i = 0; i < lines.length; i++) size += Buffer.byteLength(lines[i] as string, 'utf8');
  const out = Buffer.allocUnsafe(size);
  out[0] = 0x5b; // [
  let at = 1;
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    at += out.write(lines[i] as string, at, 'utf8');
  }
  out[at] = 0x5d; // ]
  return out;
}

/** The events of a stored batch value, in sequence order. */
export function decodeBatch(value: Uint8Array): OutputEvent[] {
  const text = Buffer.isBuffer(value)
    ? value.toString('utf8')
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  return JSON.parse(text) as OutputEvent[];
}
