import type { ErrorCode } from '../../errors.js';

/**
 * Short names for the provider decoders' diagnostic codes, each the `code` of a
 * `diagnostic.raised` event. What each one means is declared with every other code in
 * lib/errors.ts.
 */
export const DECODE_CODES = {
  BAD_JSON: 'MINICODE_E_DECODE_BAD_JSON',
  UNKNOWN_EVENT: 'MINICODE_E_DECODE_UNKNOWN_EVENT',
  UNEXPECTED_SHAPE: 'MINICODE_E_DECODE_UNEXPECTED_SHAPE',
  FRAME_TOO_LARGE: 'MINICODE_E_DECODE_FRAME_TOO_LARGE',
  TRUNCATED_FRAME: 'MINICODE_E_DECODE_TRUNCATED_FRAME',
  NO_TERMINATOR: 'MINICODE_E_DECODE_NO_TERMINATOR',
  AFTER_TERMINATOR: 'MINICODE_E_DECODE_AFTER_TERMINATOR',
  SPLICED_RESPONSE: 'MINICODE_E_DECODE_SPLICED_RESPONSE',
  TOOL_CALL_UNFINISHED: 'MINICODE_E_DECODE_TOOL_CALL_UNFINISHED',
  TEXT_CAPPED: 'MINICODE_E_DECODE_TEXT_CAPPED',
} as const satisfies Record<string, ErrorCode>;

/** One of {@link DECODE_CODES}. */
export type DecodeCode = (typeof DECODE_CODES)[keyof typeof DECODE_CODES];

/** Longest excerpt of offending input kept in a diagnostic. */
export const EXCERPT_CHARS = 200;

/** A bounded excerpt of offending input. */
export function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS
    ? text
    : text.slice(0, EXCERPT_CHARS) + `…(+${text.length - EXCERPT_CHARS} chars)`;
}
