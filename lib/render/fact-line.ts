import type { DisplayStatus } from './status.js';

/** The colour role of a diff line (the marker character carries the meaning without colour). */
export type DiffTone = 'added' | 'removed' | 'hunk' | 'muted';

/**
 * Plain text for settled facts, shared by the linear and TTY renderers so both print the same
 * words. A line is a label (glyph + word, which the TTY may colour) and plain text; the text
 * is copyable as is: no escapes, no padding, no borders.
 */
export interface FactLine {
  /** The status the label stands for, for the TTY's colour role. */
  readonly status?: DisplayStatus;
  /** Glyph + word, e.g. `✓ completed`; absent for message text. */
  readonly label?: string;
  readonly text: string;
  /** The TTY's pre-styled form of `text` (rendered Markdown); the plain `text` stays the source. */
  readonly styled?: string;
  /** A diff line's colour role (the TTY colours the whole line by it). */
  readonly tone?: DiffTone;
}

/** Join a line's label and text into the plain string. */
export function plainLine(line: FactLine): string {
  if (line.label === undefined) return line.text;
  return line.text === '' ? line.label : `${line.label} ${line.text}`;
}
