/**
 * The one class of characters that text minicode prints must never carry as they are: they can
 * drive a terminal or hide text. C0 controls except `\t` and `\n` (a lone `\r` lets text
 * overwrite its own line), DEL, the C1 range (U+0080-U+009F: 8-bit CSI and OSC), the Arabic
 * letter mark, the zero-width space and the LRM/RLM marks (U+200B, U+200E, U+200F; the joiners
 * ZWJ and ZWNJ stay: emoji sequences and several scripts need them), the line and
 * paragraph separators and the bidi embeddings and overrides (U+2028-U+202E), the word joiner,
 * invisible operators and bidi isolates (U+2060-U+206F), the BOM, the interlinear annotation
 * controls (U+FFF9-U+FFFB), and the Unicode tag characters (U+E0000-U+E007F, which can spell
 * hidden text).
 *
 * Every output form is built on it: the scrub stage's sanitiser removes them (within a wider
 * class of its own), `neutralise` (lib/safe-text.ts) shows them as escapes in messages quoting
 * input, `displayText` (lib/render/display-text.ts) drops them at the projection, and the chat
 * prompt shows them as one visible character each (`visibleControls`). No imports: the error
 * table's message neutraliser loads it.
 */

/** The BMP part of the class, as the body of a regex character class. */
export const TERMINAL_UNSAFE_BMP =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200b\\u200e\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff\\ufff9-\\ufffb';

/** The tag characters U+E0000-U+E007F as UTF-16: their high surrogate and the low range. */
export const TERMINAL_UNSAFE_TAGS = '\\udb40[\\udc00-\\udc7f]';

/**
 * A regex matching one unsafe character (a BMP unit, or a tag character's surrogate pair);
 * `alsoLinesAndTabs` adds `\t` and `\n` (for a one-line field that shows them too).
 */
export function terminalUnsafePattern(flags = 'g', alsoLinesAndTabs = false): RegExp {
  return new RegExp(`[${TERMINAL_UNSAFE_BMP}${alsoLinesAndTabs ? '\\t\\n' : ''}]|${TERMINAL_UNSAFE_TAGS}`, flags);
}
