import type { Status } from '../events/index.js';

/**
 * Every status a person sees, as a glyph AND a word (seed §7: colour is never the only
 * meaning). `started` and `active` both read as running: the renderer shows what is in
 * flight, not which lifecycle edge it crossed.
 */
export type DisplayStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'denied'
  | 'cancelled'
  | 'interrupted'
  | 'partial'
  | 'recovered';

/** Glyph, word and the colour role a renderer may add on top. */
export interface StatusLook {
  readonly glyph: string;
  readonly word: string;
  readonly tone: 'ok' | 'bad' | 'warn' | 'muted' | 'active';
}

/** The one table of glyphs and words every renderer uses. */
export const STATUS_LOOK: Readonly<Record<DisplayStatus, StatusLook>> = {
  running: { glyph: '…', word: 'running', tone: 'active' },
  completed: { glyph: '✓', word: 'completed', tone: 'ok' },
  failed: { glyph: '✗', word: 'failed', tone: 'bad' },
  denied: { glyph: '⊘', word: 'denied', tone: 'warn' },
  cancelled: { glyph: '◌', word: 'cancelled', tone: 'muted' },
  interrupted: { glyph: '!', word: 'interrupted', tone: 'bad' },
  partial: { glyph: '◐', word: 'partial', tone: 'warn' },
  recovered: { glyph: '↻', word: 'recovered', tone: 'ok' },
};

/** Map an envelope status to what is displayed. */
export function displayStatus(status: Status): DisplayStatus {
  return status === 'started' || status === 'active' ? 'running' : status;
}

/** `✓ completed`, `⊘ denied`, ... */
export function statusLabel(status: DisplayStatus): string {
  const look = STATUS_LOOK[status];
  return `${look.glyph} ${look.word}`;
}
