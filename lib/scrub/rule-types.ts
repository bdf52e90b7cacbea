/**
 * The shape of a secret rule and the decision it returns. Shared by the rule table, the
 * hand-written detectors and the streaming redactor.
 *
 * A rule is asked to decide at a candidate position `p` of a buffer `s` that holds some left
 * context before `p` and everything received after it. It may only look at a bounded window
 * after `p` (its `window`) and a bounded left context (at most {@link LEFT_CONTEXT} chars), so
 * that the decision is the same whatever the chunking: when the text it needs has not all
 * arrived yet it answers `pending`, and the redactor holds the text from `p` until it can.
 */

/** Characters of original text kept before the candidate for rules that look left. */
export const LEFT_CONTEXT = 48;

/** What follows a match: nothing, the rest of a token's run, or a private-key block. */
export type Suppress =
  | undefined
  /** Drop following characters while `test(charCode)` holds (the unbounded tail of a token). */
  | { kind: 'run'; test: (c: number) => boolean }
  /** Drop everything until `end` matches (a PEM block), without buffering it. */
  | { kind: 'until'; end: RegExp };

/** A rule's answer at one candidate position. */
export type Decision =
  | { kind: 'pending' }
  | { kind: 'none' }
  /** Text in [p, end) is kept verbatim and not scanned again (our own markers). */
  | { kind: 'skip'; end: number }
  | {
      kind: 'match';
      /** Text in [p, redactStart) is kept verbatim (e.g. `password = "`). */
      redactStart: number;
      /** End of the redacted span; text after it is scanned again. */
      redactEnd: number;
      /** Marker label: `[REDACTED:<label>]`. */
      label: string;
      suppress?: Suppress;
    };

/** One detector. */
export interface SecretRule {
  /** Stable id, also the default marker label. */
  id: string;
  /** Literal texts at which this rule may start; the dispatch table is built from them. */
  triggers: readonly string[];
  /** Compare triggers without case. Default false. */
  ignoreCase?: boolean;
  /** Require that the character before the trigger is not `[A-Za-z0-9_]`. Default false. */
  boundary?: boolean;
  /**
   * For one-character triggers: regex class source of the characters that may follow it
   * (default any); a match needs the next TWO characters in it. Narrows the dispatch so that
   * a `"` or a hex digit is not a candidate everywhere (`ca` of `call` is no Mailchimp key).
   */
  next?: string;
  /**
   * A plain regex source equivalent to this rule's match (what a whole-string scanner would
   * run), with its flags; used by the benchmark's combined-regex floor, never by the redactor.
   */
  source?: { pattern: string; flags: string };
  /** Decide at `p` (the trigger's position) in `s`; `ended` is true when no more text will come. */
  decide(s: string, p: number, ended: boolean): Decision;
}

export const PENDING: Decision = { kind: 'pending' };
export const NONE: Decision = { kind: 'none' };

/** `[A-Za-z0-9_]`. */
export function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Whitespace that ends a token: space, tab, CR, LF, FF, VT. */
export function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * Build a char-code predicate from a regex character class source, e.g. `A-Za-z0-9_-`. Its
 * table is built on the first call: a hundred token rules each have one or two classes, and
 * most of them are never asked in a run (128 regex tests each, at every start-up otherwise).
 */
export function charClass(source: string): (c: number) => boolean {
  let table: Uint8Array | undefined;
  const build = (): Uint8Array => {
    const t = new Uint8Array(128);
    const re = new RegExp(`[${source}]`);
    for (let c = 0; c < 128; c++) if (re.test(String.fromCharCode(c))) t[c] = 1;
    return t;
  };
  return (c: number) => c < 128 && (table ??= build())[c] === 1;
}
