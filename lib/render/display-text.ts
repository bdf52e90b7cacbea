/**
 * Display sanitising at the projection boundary (seed output-event-model §7): tool names,
 * paths, commands, provider labels and model text are untrusted display data. Even though the
 * pipeline's sanitize stage runs first, the projection cleans every string it hands to a
 * renderer again, so that no renderer can be tricked into moving the cursor, changing the
 * title, hiding text behind bidi overrides or writing a hyperlink.
 *
 * Escape sequences are removed whole here; the characters dropped one by one are lib/scrub's
 * one terminal-unsafe class (terminal-unsafe.ts), which the event stream's sanitiser,
 * `neutralise` and the chat prompt share.
 */
import { terminalUnsafePattern } from '../scrub/terminal-unsafe.js';

// ESC-introduced sequences, in order of how much they swallow:
// - OSC / DCS / SOS / PM / APC strings, terminated by BEL or ST (ESC \), or unterminated to
//   the end of the input (a truncated stream must not leave half a title-setting sequence);
// - CSI: ESC [ parameters intermediates final;
// - any other two-character escape (ESC c, ESC 7, ESC =, ...).
const ESC_SEQUENCE = new RegExp(
  [
    '\\u001b[\\]PX^_][\\s\\S]*?(?:\\u0007|\\u001b\\\\|\\u009c|$)',
    '\\u001b\\[[0-?]*[ -/]*[@-~]?',
    '\\u001b[ -/]*[0-~]?',
  ].join('|'),
  'g',
);
// 8-bit C1 forms of the same: CSI (0x9b) and OSC/DCS/... (0x90, 0x98, 0x9d, 0x9e, 0x9f).
const C1_SEQUENCE = /\u009b[0-?]*[ -/]*[@-~]?|[\u0090\u0098\u009d\u009e\u009f][\s\S]*?(?:\u0007|\u009c|$)/g;
// The unsafe class (C0 except \t and \n, DEL, the remaining C1 range, bidi controls and marks,
// zero-width characters, separators, the BOM, tag characters). A lone \r would let text
// overwrite its own line.
const CONTROL = terminalUnsafePattern('g');
const HAS_CONTROL = terminalUnsafePattern('');

/** True when `text` holds nothing that {@link displayText} would change (the fast path). */
function isClean(text: string): boolean {
  return !HAS_CONTROL.test(text);
}

/**
 * Multi-line display text: escape sequences removed whole, other controls dropped, `\r\n`
 * folded to `\n`; `\n` and `\t` are kept.
 */
export function displayText(text: string): string {
  if (isClean(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(ESC_SEQUENCE, '').replace(C1_SEQUENCE, '').replace(CONTROL, '');
}

/** Default cap of {@link oneLine}: 200 characters. */
export const ONE_LINE_MAX = 200;

/**
 * One-line display text for names, titles, paths, commands and reasons: sanitised, runs of
 * whitespace (newlines and tabs included) folded to one space, trimmed, and capped at `max`
 * characters (default 200) with a trailing `…`.
 */
export function oneLine(text: string, max: number = ONE_LINE_MAX): string {
  const flat = displayText(text).replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // Do not cut a surrogate pair in half.
  let end = Math.max(0, max - 1);
  const code = flat.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${flat.slice(0, end)}…`;
}
