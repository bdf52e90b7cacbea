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

/**
 * True when `json` may hold a character of UNSAFE_IN_JSON. Every one of them is non-ASCII but
 * DEL, and the UTF-8 length equals the string length only for pure ASCII: that check runs in
 * C++ at about a third of the cost of the regex scan, so the scan is left to the few lines that
 * carry non-ASCII text.
 */
function mayHoldUnsafe(json: string): boolean {
  return Buffer.byteLength(json, 'utf8') !== json.length || json.includes('\u007f');
}

function escapeUnsafe(json: string): string {
  return mayHoldUnsafe(json) ? json.replace(UNSAFE_IN_JSON, escapeChar) : json;
}

/** Serialise one value as a single JSON line (no trailing newline). These characters can only occur inside strings, where `\uXXXX` is valid. */
export function jsonLine(value: unknown): string {
  return escapeUnsafe(JSON.stringify(value));
}

/** `jsonLine({ type: 'text', delta })`, byte for byte, without building the object (one per model text delta). */
export function jsonTextDelta(delta: string): string {
  return `{"type":"text","delta":${escapeUnsafe(JSON.stringify(delta))}}`;
}
