/**
 * Token densities per content kind: the one table the heuristic estimator reads. Starting
 * values are the o200k measurements of docs/control-plane.md (the seed's 2.4 chars per token for code
 * over-counts code by 54-89%); `bench/tokens.ts` reports the error of this table against exact
 * counts, and {@link createContextEstimator} corrects it from provider usage during a run.
 */

/** A kind of content with its own density. */
export type ContentKind = 'code' | 'json' | 'prose' | 'cjk';

/** Characters per token for each non-CJK kind; tokens per character for CJK characters. */
export interface DensityTable {
  /** Source code: chars per token (measured 3.6-4.5 on o200k). Default 4.0. */
  code: number;
  /** Compact JSON: chars per token (measured ~2.7-3.0). Default 2.7. */
  json: number;
  /** Indented JSON (whitespace over 15% of chars): chars per token (measured 3.0-3.7). Default 3.3. */
  jsonIndented: number;
  /** English prose: chars per token (measured ~4.2). Default 4.2. */
  prose: number;
  /** CJK characters: TOKENS per character (measured 0.6-0.8). Default 0.7. */
  cjkTokensPerChar: number;
  /** Fixed tokens per transcript message (role and framing). Default 4. */
  perMessage: number;
}

/** The default density table (o200k). */
export const DEFAULT_DENSITIES: Readonly<DensityTable> = Object.freeze({
  code: 4.0,
  json: 2.7,
  jsonIndented: 3.3,
  prose: 4.2,
  cjkTokensPerChar: 0.7,
  perMessage: 4,
});

/** Counts the classifier gathers from a text (or from samples of it). */
interface Census {
  chars: number;
  cjk: number;
  /** Code punctuation: braces, brackets, parentheses, semicolons, `=`, `<`, `>`. */
  codePunct: number;
  quotes: number;
  colons: number;
  /** Spaces, tabs and newlines. */
  whitespace: number;
}

function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // hiragana, katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xac00 && c <= 0xd7af) || // hangul syllables
    (c >= 0xf900 && c <= 0xfaff) || // compatibility ideographs
    (c >= 0xff00 && c <= 0xffef) // full-width forms
  );
}

function census(text: string, from: number, to: number, into: Census): void {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      switch (c) {
        case 123:
        case 125:
        case 40:
        case 41:
        case 91:
        case 93:
        case 59:
        case 61:
        case 60:
        case 62: // {}()[];=<>
          into.codePunct++;
          break;
        case 34: // "
          into.quotes++;
          break;
        case 58: // :
          into.colons++;
          break;
        case 32:
        case 9:
        case 10:
        case 13:
          into.whitespace++;
          break;
      }
    } else if (isCjk(c)) {
      into.cjk++;
    }
  }
  into.chars += to - from;
}

/** Texts above this length are classified from samples rather than read whole. */
const SAMPLE_ABOVE = 16 * 1024;
const SAMPLE_WINDOW = 2 * 1024;
const SAMPLE_COUNT = 6;

function takeCensus(text: string): Census {
  const c: Census = { chars: 0, cjk: 0, codePunct: 0, quotes: 0, colons: 0, whitespace: 0 };
  if (text.length <= SAMPLE_ABOVE) {
    census(text, 0, text.length, c);
    return c;
  }
  // Evenly spaced windows: O(1) in the text length, and a mixed text still shows its mix.
  const step = Math.floor((text.length - SAMPLE_WINDOW) / (SAMPLE_COUNT - 1));
  for (let k = 0; k < SAMPLE_COUNT; k++) census(text, k * step, k * step + SAMPLE_WINDOW, c);
  return c;
}

function kindOf(text: string, c: Census): Exclude<ContentKind, 'cjk'> {
  const first = text.trimStart().charCodeAt(0);
  // JSON: starts like a value and is dense in quotes and colons.
  if ((first === 123 || first === 91) && c.quotes / Math.max(1, c.chars) > 0.04) return 'json';
  if (c.codePunct / Math.max(1, c.chars) > 0.03) return 'code';
  return 'prose';
}

/**
 * Chars per token for the non-CJK part. JSON splits three ways: mostly long string values
 * (structure under 12% of chars, e.g. schemas full of descriptions) reads like prose;
 * indented JSON is cheaper per char than compact JSON because indentation runs merge.
 */
function densityOf(text: string, c: Census, table: Readonly<DensityTable>): number {
  const kind = kindOf(text, c);
  if (kind !== 'json') return table[kind];
  const n = Math.max(1, c.chars);
  if ((c.quotes + c.codePunct + c.colons) / n < 0.12) return table.prose;
  return c.whitespace / n > 0.15 ? table.jsonIndented : table.json;
}

/** Classify a text as code, JSON, prose or CJK (the kind of the majority of its characters). */
export function classify(text: string): ContentKind {
  const c = takeCensus(text);
  if (c.cjk * 2 > c.chars) return 'cjk';
  return kindOf(text, c);
}

/**
 * Heuristic token count of one text: CJK characters at `cjkTokensPerChar`, the remaining
 * characters at the density of the text's non-CJK kind.
 */
export function estimateTextTokens(text: string, table: Readonly<DensityTable> = DEFAULT_DENSITIES): number {
  if (text.length === 0) return 0;
  const c = takeCensus(text);
  const cjkShare = c.cjk / Math.max(1, c.chars);
  const cjkChars = Math.round(text.length * cjkShare);
  const otherChars = text.length - cjkChars;
  return Math.ceil(cjkChars * table.cjkTokensPerChar + otherChars / densityOf(text, c, table));
}
