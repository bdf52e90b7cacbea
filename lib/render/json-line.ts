/**
 * JSON-safe line encoding for machine output. `JSON.stringify` already escapes C0 controls
 * (so a raw ESC never reaches a terminal that happens to show stdout), but it writes C1
 * controls, bidi overrides, zero-width characters and U+2028/U+2029 raw. Some terminals act
 * on UTF-8 encoded C1 (0x9b is CSI), and U+2028 breaks naive line splitting in JavaScript
 * consumers. Escaping them as `\uXXXX` keeps the data byte-for-byte after `JSON.parse`
 * while the line itself stays inert.
 */

const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;

function escapeChar(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Serialise one value as a single JSON line (no trailing newline). These characters can only occur inside strings, where `\uXXXX` is valid. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, escapeChar);
}
