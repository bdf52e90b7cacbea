/**
 * Exact o200k counting with a bound on BPE cost. gpt-tokenizer merges each pre-token (a run
 * without whitespace) as a whole, and that is quadratic on a long uniform run: 20k repeated
 * characters take ~0.4 s, 100k take ~12 s. Runs longer than {@link LONG_RUN} are counted in
 * {@link RUN_SLICE}-char slices instead; a cut can move at most one token boundary, so the
 * count stays exact up to one token per slice on such input and is exact everywhere else.
 */
import type { countTokens as CountTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Non-whitespace runs longer than this are sliced; default 4,096 chars. */
export const LONG_RUN = 4_096;
/** Slice length for long runs; 1,024 chars. */
export const RUN_SLICE = 1_024;

const longRun = new RegExp(`\\S{${LONG_RUN + 1},}`, 'g');

/** Count `text` with `count` (the o200k `countTokens`), slicing pathological runs. */
export function countBounded(text: string, count: typeof CountTokens): number {
  longRun.lastIndex = 0;
  let total = 0;
  let from = 0;
  for (let m = longRun.exec(text); m; m = longRun.exec(text)) {
    if (m.index > from) total += count(text.slice(from, m.index));
    const run = m[0];
    for (let i = 0; i < run.length; i += RUN_SLICE) total += count(run.slice(i, i + RUN_SLICE));
    from = m.index + run.length;
  }
  if (from === 0) return count(text);
  if (from < text.length) total += count(text.slice(from));
  return total;
}
