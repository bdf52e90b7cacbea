/**
 * Streaming terminal sanitiser: untrusted text in, text that cannot drive a terminal out.
 *
 * A small ECMA-48 / DEC style state machine (ground, escape, escape-intermediate, CSI,
 * control string), not a regex over the whole string, so that a sequence split across deltas
 * (`"\x1b"` | `"[31m"`) is recognised exactly as if it had arrived whole. What it does:
 * - complete CSI / nF / Fp / Fs escapes are dropped; OSC, DCS, APC, PM and SOS strings (OSC 8
 *   hyperlink targets, OSC 52 clipboard writes, OSC 0/2 titles, tmux passthrough) are skipped
 *   up to BEL, ST (`ESC \` or U+009C), CAN or SUB, never buffered; a string longer than
 *   `maxStringLength` returns to ground so that an unterminated OSC cannot swallow the rest;
 * - C1 code points U+0080-U+009F are deleted as characters, never honoured as introducers: a
 *   stray U+0090 therefore reveals the text after it instead of hiding it;
 * - text hidden by cursor movement, erase, `\r` overwrite or backspace stays visible: the moves
 *   are dropped, a lone `\r` becomes `\n`, CRLF becomes `\n`, BS and DEL are deleted;
 * - bidi overrides/isolates and invisible characters (zero-width space, word joiners, BOM,
 *   Hangul fillers, Unicode tag characters U+E0000 block, variation-selector supplement) are
 *   deleted; ZWJ/ZWNJ and one emoji variation selector (VS15/VS16) stay so emoji render;
 * - U+2028/U+2029 become `\n`; `\n` and `\t` are kept (in `singleLine` mode they, and `\r`,
 *   are escaped visibly as `\n`, `\t`).
 *
 * Nothing visible is ever held back: only parser state crosses chunks, plus at most one
 * UTF-16 high surrogate (a tag character split between its two halves must still be seen as
 * one code point).
 */
import { TERMINAL_UNSAFE_BMP } from './terminal-unsafe.js';

/** Options of {@link createSanitizer}. */
export interface SanitizerOptions {
  /**
   * Escape line breaks and tabs visibly (`\n`, `\t`) for one-line fields: tool names, paths,
   * commands in an approval prompt. Default false.
   */
  singleLine?: boolean;
  /** Longest OSC/DCS/APC/PM/SOS string skipped before returning to ground; default 8192. */
  maxStringLength?: number;
}

/** A push sanitiser: `push` returns what is safe to emit now, `end` flushes the rest. */
export interface Sanitizer {
  push(text: string): string;
  end(): string;
}

const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  ControlString,
  ControlStringEscape,
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ST_C1 = 0x9c;
/** Longest CSI we accept before treating it as garbage and returning to ground. */
const MAX_CSI = 64;

/** Astral invisibles, by high and low surrogate: tags, VS supplement, shorthand/musical format controls. */
function isInvisibleAstral(high: number, low: number): boolean {
  if (high >= 0xdb40 && high <= 0xdb43) return true; // U+E0000-U+E0FFF: tags, variation selectors supplement
  if (high === 0xd82f) return low >= 0xdca0 && low <= 0xdca3; // U+1BCA0-U+1BCA3 shorthand format controls
  if (high === 0xd834) return low >= 0xdd73 && low <= 0xdd7a; // U+1D173-U+1D17A musical formatting
  return false;
}

/**
 * What the sanitiser also takes out beyond the shared unsafe class (terminal-unsafe.ts): the soft
 * hyphen, the combining grapheme joiner, Hangul and Mongolian fillers and invisible vowels,
 * variation selectors (one emoji selector is kept, below), and every surrogate (pairs are
 * checked for invisible astral characters, the tags among them; lone ones become U+FFFD).
 */
const SANITIZER_EXTRAS = '\\xad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u3164\\ufe00-\\ufe0f\\uffa0\\ud800-\\udfff';

/**
 * Every code unit that needs attention in ground state (the shared unsafe class, `\t`, `\n` and
 * the extras above); all others are copied by the fast path.
 * The regex engine finds the next one much faster than a JS loop over `isPlain`.
 */
const SPECIAL = new RegExp(`[${TERMINAL_UNSAFE_BMP}\\t\\n${SANITIZER_EXTRAS}]`, 'g');

/** {@link SPECIAL} without the global flag (no lastIndex state): does a string need any work? */
const HAS_SPECIAL = new RegExp(SPECIAL.source);

/**
 * {@link SPECIAL} without `\n` and `\t`: in multi-line mode, text whose only special units are
 * line feeds and tabs comes out as it is (they are kept, and with no `\r` no CRLF is merged),
 * and that is most multi-line text (messages, tool output, code).
 */
const SPECIAL_MULTI_LINE = new RegExp(`[${TERMINAL_UNSAFE_BMP}${SANITIZER_EXTRAS}]`, 'g');
const HAS_SPECIAL_MULTI_LINE = new RegExp(SPECIAL_MULTI_LINE.source);

/** Whether `text` before `end` is only line feeds and tabs. */
function onlyLinesAndTabs(text: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x09) return false;
  }
  return true;
}

/** Create a streaming sanitiser. Options are checked here; see {@link SanitizerOptions} for defaults. */
export function createSanitizer(options: SanitizerOptions = {}): Sanitizer {
  const singleLine = options.singleLine ?? false;
  const maxString = options.maxStringLength ?? 8192;
  if (!(maxString > 0)) throw new TypeError('createSanitizer: maxStringLength must be positive');
  const newline = singleLine ? '\\n' : '\n';
  const tab = singleLine ? '\\t' : '\t';

  let state = State.Ground;
  /** Length of the CSI or control string being skipped (bounded by MAX_CSI / maxString). */
  let skipped = 0;
  /** The last emitted character was a `\n` made from `\r`: a following `\n` belongs to it (CRLF). */
  let afterCr = false;
  /** The last emitted code unit was a variation selector: a second one in a row is a payload. */
  let afterSelector = false;
  /** A high surrogate that ended the previous chunk, waiting for its low half. */
  let pendingHigh = '';

  function run(text: string, out: string[], from = 0): void {
    const n = text.length;
    let i = from;
    while (i < n) {
      if (state === State.Ground) {
        // Fast path: copy a run of plain characters in one slice.
        SPECIAL.lastIndex = i;
        const next = SPECIAL.exec(text);
        const j = next === null ? n : next.index;
        if (j > i) {
          out.push(text.slice(i, j));
          afterCr = false;
          afterSelector = false;
          i = j;
          if (i >= n) break;
        }
        const c = text.charCodeAt(i);
        i++;
        if (c === ESC) {
          state = State.Escape;
        } else if (c === 0x0a) {
          if (!afterCr) out.push(newline);
          afterCr = false;
        } else if (c === 0x0d) {
          out.push(newline); // lone CR would overwrite the line: show it as a new line instead
          afterCr = true;
        } else if (c === 0x09) {
          out.push(tab);
          afterCr = false;
        } else if (c === 0x2028 || c === 0x2029) {
          out.push(newline);
          afterCr = false;
        } else if (c === 0xfe0e || c === 0xfe0f) {
          if (!afterSelector) out.push(text[i - 1] as string);
          afterSelector = true;
          afterCr = false;
        } else if (c >= 0xd800 && c <= 0xdbff) {
          if (i >= n) {
            pendingHigh = text[i - 1] as string; // the only text ever held back
          } else {
            const low = text.charCodeAt(i);
            if (low >= 0xdc00 && low <= 0xdfff) {
              i++;
              if (!isInvisibleAstral(c, low)) {
                out.push(text.slice(i - 2, i));
                afterSelector = false;
              }
            } else {
              out.push('\ufffd'); // lone high surrogate
            }
            afterCr = false;
          }
        } else if (c >= 0xdc00 && c <= 0xdfff) {
          out.push('\ufffd'); // lone low surrogate
          afterCr = false;
        }
        // Anything else here is a C0/C1 control, DEL or invisible format character: deleted.
        continue;
      }

      const c = text.charCodeAt(i);
      i++;
      switch (state) {
        case State.Escape:
          if (c === 0x5b) {
            state = State.Csi; // ESC [
            skipped = 0;
          } else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) {
            state = State.ControlString; // ESC ] OSC, P DCS, X SOS, ^ PM, _ APC
            skipped = 0;
          } else if (c >= 0x20 && c <= 0x2f) {
            state = State.EscapeIntermediate; // nF: ESC ( 0, ESC # 8, ...
          } else if (c >= 0x30 && c <= 0x7e) {
            state = State.Ground; // Fp/Fe/Fs: ESC 7, ESC c (RIS), ESC M, ...
          } else if (c === ESC) {
            // ESC ESC: the first is a lone ESC, dropped; the second starts again.
          } else {
            state = State.Ground; // lone ESC before something else: drop ESC, keep the char
            i--;
          }
          break;
        case State.EscapeIntermediate:
          if (c >= 0x20 && c <= 0x2f) break;
          state = State.Ground;
          if (!(c >= 0x30 && c <= 0x7e)) i--; // not a final byte: reprocess it as text
          break;
        case State.Csi:
          if (c >= 0x40 && c <= 0x7e) {
            state = State.Ground; // final byte
          } else if (c >= 0x20 && c <= 0x3f) {
            if (++skipped > MAX_CSI) state = State.Ground;
          } else if (c === ESC) {
            state = State.Escape; // a new escape aborts the CSI
          } else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) {
            // C0 inside CSI is executed by terminals; we delete it and stay.
          } else {
            state = State.Ground; // visible text aborts a malformed CSI: show it
            i--;
          }
          break;
        case State.ControlString:
          if (c === BEL || c === ST_C1 || c === CAN || c === SUB) {
            state = State.Ground;
          } else if (c === ESC) {
            state = State.ControlStringEscape;
          } else if (++skipped > maxString) {
            state = State.Ground; // bounded: an unterminated string cannot hide all that follows
          }
          break;
        case State.ControlStringEscape:
          // `ESC \` is ST. Any other ESC inside a string (tmux passthrough doubles them) is part
          // of the string's payload: keep skipping.
          state = c === 0x5c ? State.Ground : State.ControlString;
          break;
      }
    }
  }

  return {
    push(text: string): string {
      if (text.length === 0) return '';
      // Fast path (most deltas): in ground state with nothing held, text without a special
      // code unit is copied whole by run(), which then only clears the flags. In multi-line
      // mode `\n` and `\t` are kept as they are, so they are not special here, unless a `\n`
      // first would end a CRLF; text up to the first other special is kept whole and run()
      // goes on from there. What run() leaves in the flags over such text: no `\r` came, and a
      // selector stays "last" only if nothing but line feeds and tabs followed it.
      if (state === State.Ground && pendingHigh === '') {
        if (singleLine) {
          if (!HAS_SPECIAL.test(text)) {
            afterCr = false;
            afterSelector = false;
            return text;
          }
        } else if (!(afterCr && text.charCodeAt(0) === 0x0a)) {
          SPECIAL_MULTI_LINE.lastIndex = 0;
          const m = SPECIAL_MULTI_LINE.exec(text);
          const k = m === null ? text.length : m.index;
          if (k > 0) {
            afterCr = false;
            if (afterSelector) afterSelector = onlyLinesAndTabs(text, k);
          }
          if (m === null) return text;
          if (k > 0) {
            const out = [text.slice(0, k)];
            run(text, out, k);
            return out.join('');
          }
        }
      }
      const out: string[] = [];
      if (pendingHigh) {
        text = pendingHigh + text;
        pendingHigh = '';
      }
      run(text, out);
      return out.join('');
    },
    end(): string {
      // An unterminated sequence at the end is dropped; a dangling high surrogate is invalid.
      const out = pendingHigh ? '\ufffd' : '';
      pendingHigh = '';
      state = State.Ground;
      afterCr = false;
      afterSelector = false;
      return out;
    },
  };
}

/** Sanitise a complete string (same result as pushing it in any chunks). */
export function sanitizeText(text: string, options: SanitizerOptions = {}): string {
  // Fast path (most strings: ids, names, prose): nothing to change, no sanitiser to build.
  // (Custom options go the long way, so that they are still checked.)
  if (options.maxStringLength === undefined) {
    if (!(options.singleLine === true ? HAS_SPECIAL : HAS_SPECIAL_MULTI_LINE).test(text)) return text;
  }
  const s = createSanitizer(options);
  return s.push(text) + s.end();
}
