/**
 * Stable diagnostic codes of the provider decoders (STYLE.md habit 5). Each becomes the `code`
 * of a `diagnostic.raised` event; tests assert on these, never on message text.
 */
export const DECODE_CODES = {
  /** A frame or line whose payload is not valid JSON. */
  BAD_JSON: 'MINICODE_E_DECODE_BAD_JSON',
  /** An event name / record type this decoder does not know; skipped. */
  UNKNOWN_EVENT: 'MINICODE_E_DECODE_UNKNOWN_EVENT',
  /** A known record with a shape we cannot use (missing or mistyped field, unknown block/delta kind). */
  UNEXPECTED_SHAPE: 'MINICODE_E_DECODE_UNEXPECTED_SHAPE',
  /** A frame or line larger than `maxFrameBytes`; dropped. */
  FRAME_TOO_LARGE: 'MINICODE_E_DECODE_FRAME_TOO_LARGE',
  /** The input ended inside a frame (no blank line / no newline): the partial frame is discarded. */
  TRUNCATED_FRAME: 'MINICODE_E_DECODE_TRUNCATED_FRAME',
  /** The input ended without the provider's terminator. */
  NO_TERMINATOR: 'MINICODE_E_DECODE_NO_TERMINATOR',
  /** Data after the provider's terminator; ignored. */
  AFTER_TERMINATOR: 'MINICODE_E_DECODE_AFTER_TERMINATOR',
  /** A second response started inside an unfinished one (spliced generations); the first is abandoned. */
  SPLICED_RESPONSE: 'MINICODE_E_DECODE_SPLICED_RESPONSE',
  /** A tool call still open when the response ended badly: never completed, never to be run. */
  TOOL_CALL_UNFINISHED: 'MINICODE_E_DECODE_TOOL_CALL_UNFINISHED',
  /** Accumulated message text hit `maxTextChars`; the rest is dropped from `text` (deltas still flow). */
  TEXT_CAPPED: 'MINICODE_E_DECODE_TEXT_CAPPED',
} as const;

/** One of {@link DECODE_CODES}. */
export type DecodeCode = (typeof DECODE_CODES)[keyof typeof DECODE_CODES];

/** Longest excerpt of offending input kept in a diagnostic. */
export const EXCERPT_CHARS = 200;

/** A bounded excerpt of offending input. */
export function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : text.slice(0, EXCERPT_CHARS) + `…(+${text.length - EXCERPT_CHARS} chars)`;
}
