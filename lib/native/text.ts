/**
 * Small text helpers shared by the native decoders: bounded excerpts (payloads never carry
 * large content) and limit wording (the `terminal` decoder and failure messages).
 */

/** Default longest tool-output excerpt kept in a payload, in characters. */
export const OUTPUT_EXCERPT_CHARS = 2000;
/** Default longest excerpt of an offending record in a diagnostic, in characters. */
export const DIAGNOSTIC_EXCERPT_CHARS = 200;

/**
 * A bounded excerpt: 70% head and 30% tail with a marker saying how much was left out, so a
 * reader sees both how the output started and how it ended.
 */
export function excerpt(text: string, max = OUTPUT_EXCERPT_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = Math.max(0, max - head - 40);
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n…[${omitted} chars omitted]…\n${tail > 0 ? text.slice(-tail) : ''}`;
}

/** First line of a text, bounded; for one-line titles. */
export function oneLine(text: string, max = 120): string {
  const nl = text.indexOf('\n');
  const line = nl === -1 ? text : `${text.slice(0, nl)} …`;
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

// CSI / OSC / single-character escapes; used only to match wording, never to rewrite output
// (the sanitize stage owns that).
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

/** Text without ANSI escape sequences (for matching). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** What limit wording in free text means. */
export interface LimitMatch {
  kind: 'usage-quota' | 'rate-limit';
  retryAfterMs?: number;
}

const QUOTA =
  /usage limit|quota (?:exceeded|reached|exhausted)|exceeded (?:your|the) (?:current )?quota|out of credits|credit balance is too low|plan (?:limit|quota)|hit your (?:usage )?limit|TerminalQuotaError|RESOURCE_EXHAUSTED/i;
const RATE = /rate[ -]?limit(?:ed)?|too many requests|\b429\b|overloaded|slow down/i;
const TRY_AGAIN =
  /try again in (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b/i;

/**
 * Match limit wording in a line of text: usage quota ("You've hit your usage limit", "Quota
 * exceeded") or rate limit ("rate limit", "429", "Too many requests"); "try again in N
 * <unit>" gives retryAfterMs. Returns undefined when the text says nothing about limits.
 */
export function matchLimitWording(text: string): LimitMatch | undefined {
  const plain = stripAnsi(text);
  const kind = QUOTA.test(plain) ? 'usage-quota' : RATE.test(plain) ? 'rate-limit' : undefined;
  if (!kind) return undefined;
  const again = TRY_AGAIN.exec(plain);
  if (!again) return { kind };
  const value = Number(again[1]);
  const unit = (again[2] ?? 's').toLowerCase();
  const factor =
    unit.startsWith('ms') || unit.startsWith('milli')
      ? 1
      : unit.startsWith('h')
        ? 3_600_000
        : unit.startsWith('m')
          ? 60_000
          : 1000;
  return { kind, retryAfterMs: Math.round(value * factor) };
}

/** A plain object, or undefined (records from the wire are untrusted). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A string field, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A non-negative integer field, or undefined (negative or fractional counts are dropped). */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** A finite non-negative number, or undefined. */
export function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}
