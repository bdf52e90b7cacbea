/**
 * Input quoted in a message (a flag value, a config entry, a batch line's JSON.parse excerpt, a
 * server name, an MCP server's stderr) made safe for a terminal: every character that could
 * drive one or hide text is shown as a visible escape (`\x1b`, `\u{202e}`), so
 * `unknown provider "\x1b]0;pwned\x07"` reaches stderr as that text and not as a new window
 * title. Visible rather than dropped (as the event stream's sanitiser does) because the person
 * reading the message needs to see what was wrong with their input.
 *
 * What is escaped: C0 controls except `\n` and `\t`, DEL, C1 controls (U+0080-U+009F, where
 * 8-bit CSI and OSC live), bidi embeddings, overrides, isolates and marks, zero-width
 * characters and joiners, U+2028/U+2029, the BOM, and the Unicode tag characters. A backslash
 * is left as it is: messages quote paths and patterns, and the escapes are only for reading.
 * The class is lib/scrub's one (terminal-unsafe.ts, which imports nothing: `lib/errors.ts` runs
 * every `MinicodeError` message through this).
 */
import { terminalUnsafePattern } from './scrub/terminal-unsafe.js';

/** Every character {@link neutralise} escapes: the one terminal-unsafe class of lib/scrub. */
const UNSAFE = terminalUnsafePattern('g');
const HAS_UNSAFE = terminalUnsafePattern('');

function visibleEscape(ch: string): string {
  const code = ch.codePointAt(0) as number;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with terminal controls and invisible characters shown as visible escapes; unchanged when it has none. */
export function neutralise(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, visibleEscape) : text;
}
