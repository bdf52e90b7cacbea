/**
 * Integer values of flags, environment variables and config keys, checked the same way by every
 * command. Import-light (no provider, no store): `mcp add` and `batch` check their flags with it
 * before loading anything else.
 */
import { MAX_TIMER_MS } from './control/timers.js';
import { MinicodeError } from './errors.js';

/**
 * An integer flag's value: plain decimal digits only. NaN for anything else that `Number` would
 * take (`0x10`, `1e1`, `1.0`, ` 5`, `+5`, empty), so the caller's usage error names it.
 */
export function decimalInt(value: string): number {
  return /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
}

/** A positive integer in decimal digits, else MINICODE_E_USAGE naming `flag`; undefined stays undefined. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = decimalInt(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `${flag} must be a positive integer in decimal digits, got "${value}"`,
      { action: `pass ${flag} N with N >= 1` },
    );
  return n;
}

/** A non-negative integer in decimal digits (0 allowed), else MINICODE_E_USAGE naming `flag`; undefined stays undefined. */
export function nonNegativeInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = decimalInt(value);
  if (!Number.isInteger(n))
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `${flag} must be a non-negative integer in decimal digits, got "${value}"`,
      { action: `pass ${flag} N with N >= 0` },
    );
  return n;
}

/** A deadline in ms: a positive integer no longer than a timer can wait ({@link MAX_TIMER_MS}). */
export function deadlineMs(value: string | undefined, flag: string): number | undefined {
  const n = positiveInt(value, flag);
  if (n !== undefined && n > MAX_TIMER_MS)
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `${flag} must be at most ${MAX_TIMER_MS} ms (24.8 days), got "${value}"`,
      { action: `pass ${flag} N with 1 <= N <= ${MAX_TIMER_MS}` },
    );
  return n;
}
