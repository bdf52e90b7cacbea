/**
 * A file diff as lines a person reads: the hunks of a `FileDiff` (from `file.changed` or an
 * edit's approval request), cut to a display bound with a `… +N more lines` marker that counts
 * both what the display leaves out and what the event itself had to leave out. Plain text with
 * the `+`/`-`/`@@` markers a diff always has, so NO_COLOR and linear output stay faithful; the
 * TTY colours lines by their `tone` on top.
 */
import type { FileDiff } from '../events/index.js';
import { displayText } from './display-text.js';
import type { DiffTone, FactLine } from './fact-line.js';

/** Most diff lines shown for one file in the chat, exec and replay views; default 16. */
export const DIFF_DISPLAY_LINES = 16;

function toneOf(line: string): DiffTone | undefined {
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'added';
  if (line.startsWith('-')) return 'removed';
  if (line.startsWith('\\')) return 'muted';
  return undefined;
}

/** `+2 -1`: the size of a diff in one short label. */
export function diffStat(diff: FileDiff): string {
  return `+${diff.added} -${diff.removed}`;
}

/**
 * The diff's display lines, indented by `indent`, at most `max` of them plus a marker line when
 * anything is left out. Lines are sanitised (no escapes, no control characters, tabs as two
 * spaces) so they can be measured and copied.
 */
export function diffLines(diff: FileDiff, max: number = DIFF_DISPLAY_LINES, indent = '  '): FactLine[] {
  const shown = diff.lines.slice(0, Math.max(0, max));
  const out: FactLine[] = shown.map((raw) => {
    const text = displayText(raw)
      .replace(/\t/g, '  ')
      .replace(/[\r\n]/g, ' ');
    const tone = toneOf(text);
    return tone ? { text: `${indent}${text}`, tone } : { text: `${indent}${text}` };
  });
  const more = diff.lines.length - shown.length + diff.omitted;
  if (more > 0) out.push({ text: `${indent}… +${more} more ${more === 1 ? 'line' : 'lines'}`, tone: 'muted' });
  return out;
}
