/**
 * HTTP-level provider signals as events: a 4xx/5xx body of any provider (OpenAI and compatibles,
 * OpenRouter with numeric codes, Anthropic's error envelope, Google RPC errors — also when
 * Gemini sends them with `Content-Type: text/event-stream` —, Ollama's `{"error": "..."}`),
 * retry signals (`retry-after`, `retry-after-ms`, `x-should-retry`, Google `RetryInfo`) and
 * rate-limit headers (`x-ratelimit-*`, `anthropic-ratelimit-*`). See NOTES.md §9. Check the
 * status before SSE parsing: an error body is never an event stream.
 */
import type { EventDraft, ErrorInfo } from '../events/index.js';
import { excerpt } from './common/codes.js';
import { classifyProviderError, readErrorObject, type LimitKind, type RawProviderError } from './common/errors.js';
import { definedOnly } from '../defined-only.js';
import { parseRetryAfter } from '../control/retry.js';

/** Response headers in any common shape (`Headers`, Node's `IncomingHttpHeaders`, a plain record). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** What {@link httpResponseEvents} needs to know about a response. */
export interface HttpResponseInfo {
  provider: string;
  status: number;
  headers?: HeaderSource;
  body?: Uint8Array | string;
  /** Injected clock (epoch ms) for reset times and HTTP-date `retry-after`; default `Date.now`. */
  now?: () => number;
  /** Also emit the terminal `model.response.completed {outcome: 'error'}`; default true. */
  terminal?: boolean;
}

/** What the retry logic needs: whether to retry, and after how long when the server said. */
export interface HttpFailureClass {
  retryable: boolean;
  /** Server-requested delay (retry-after-ms, retry-after, RetryInfo), absent when none was given. */
  delayMs?: number;
  /** Why, in a word: `x-should-retry`, `status`, `spend-limit`. */
  reason: string;
}

/** Lower-case header map with string values. */
export function normaliseHeaders(h: HeaderSource | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    (h as Headers).forEach((v, k) => {
      out[k.toLowerCase()] = v;
    });
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, string | string[] | undefined>)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Parse a Go-style duration (`1m26.4s`, `12ms`, `6m0s`) or plain seconds into ms. */
export function parseDurationMs(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  let total = 0;
  let matched = '';
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    matched += m[0];
  }
  return matched === t && matched !== '' ? total : undefined;
}

function parseBody(body: Uint8Array | string | undefined): unknown {
  if (body === undefined) return undefined;
  let text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  // A body sent as an event stream anyway: take its data lines.
  if (/^\s*data:/.test(text))
    text = text
      .split(/\r\n|\r|\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not JSON: the body's text is the detail.
    return text.trim() === '' ? undefined : text;
  }
}

function readBodyError(parsed: unknown): RawProviderError & { retryDelayMs?: number; details?: unknown } {
  if (typeof parsed === 'string') return { message: excerpt(parsed) };
  if (!parsed || typeof parsed !== 'object') return {};
  const root = parsed as Record<string, unknown>;
  const raw: RawProviderError & { retryDelayMs?: number; details?: unknown } = readErrorObject(root.error ?? root);
  const e = root.error;
  if (e && typeof e === 'object') {
    const details = (e as Record<string, unknown>).details;
    raw.details = details;
    if (Array.isArray(details)) {
      for (const d of details) {
        if (d && typeof d === 'object' && typeof (d as Record<string, unknown>).retryDelay === 'string') {
          const delay = parseDurationMs((d as Record<string, string>).retryDelay as string);
          if (delay !== undefined) raw.retryDelayMs = delay;
        }
      }
    }
    const meta = (e as Record<string, unknown>).metadata;
    if (meta && typeof meta === 'object' && typeof (meta as Record<string, unknown>).raw === 'string') {
      raw.message = `${raw.message ?? ''} (${excerpt((meta as Record<string, string>).raw as string)})`;
    }
  }
  return raw;
}

/** Decide whether a failed HTTP response should be retried (Stainless SDK rules, plus Google RetryInfo). */
export function classifyHttpFailure(input: {
  status: number;
  headers?: HeaderSource;
  body?: Uint8Array | string;
  now?: () => number;
}): HttpFailureClass {
  const h = normaliseHeaders(input.headers);
  const now = (input.now ?? Date.now)();
  const parsed = readBodyError(parseBody(input.body));
  const delay = parseRetryAfter(h, now) ?? parsed.retryDelayMs;
  const out = (retryable: boolean, reason: string): HttpFailureClass =>
    delay === undefined ? { retryable, reason } : { retryable, reason, delayMs: delay };
  const should = h['x-should-retry'];
  if (should === 'true') return out(true, 'x-should-retry');
  if (should === 'false') return out(false, 'x-should-retry');
  // Anthropic: a spend limit without retry-after will not clear by waiting.
  if (/spend_limit/.test(JSON.stringify(parsed.details ?? '')) && delay === undefined) return out(false, 'spend-limit');
  const s = input.status;
  // An exhausted quota or billing limit (OpenAI `insufficient_quota` is a 429) does not clear by
  // waiting: retrying only delays the failure (and, in a batch, --fail-fast). With a delay to
  // wait for (Gemini's per-minute quotas carry RetryInfo) it is a rate limit in all but name.
  if (delay === undefined && classifyProviderError({ ...parsed, httpStatus: s }).limit === 'usage-quota')
    return out(false, 'usage-quota');
  return out(s === 408 || s === 409 || s === 429 || s >= 500, 'status');
}

/** Rate-limit headers (`x-ratelimit-*`, `anthropic-ratelimit-*`) and the earliest reset time they name. */
export function rateLimitHeaders(
  headers: HeaderSource | undefined,
  now: number = Date.now(),
): { headers: Record<string, string>; resetAt?: string; exhausted: boolean } {
  const h = normaliseHeaders(headers);
  const picked: Record<string, string> = {};
  let reset: number | undefined;
  let exhausted = false;
  for (const [k, v] of Object.entries(h)) {
    if (!k.startsWith('x-ratelimit-') && !k.startsWith('anthropic-ratelimit-')) continue;
    picked[k] = v;
    if (k.includes('remaining') && v.trim() === '0') exhausted = true;
    if (k.includes('reset')) {
      const at = /^\d{4}-\d\d-\d\dT/.test(v)
        ? Date.parse(v)
        : (() => {
            const d = parseDurationMs(v);
            return d === undefined ? Number.NaN : now + d;
          })();
      if (!Number.isNaN(at) && (reset === undefined || at < reset)) reset = at;
    }
  }
  const out: { headers: Record<string, string>; resetAt?: string; exhausted: boolean } = { headers: picked, exhausted };
  if (reset !== undefined) out.resetAt = new Date(reset).toISOString();
  return out;
}

/**
 * Turn an HTTP response into events: for a failure status, `error.raised` (category, the
 * provider's error type as code, retryAfterMs, recoverability from {@link classifyHttpFailure}),
 * `limit.reached` for rate limits / overload / quota (with the rate-limit headers) and the
 * terminal `model.response.completed {outcome: 'error'}`; for a success status, only a
 * `limit.reached` when a rate-limit header says a budget is exhausted.
 */
export function httpResponseEvents(info: HttpResponseInfo): EventDraft[] {
  const now = (info.now ?? Date.now)();
  const rl = rateLimitHeaders(info.headers, now);
  const hasRl = Object.keys(rl.headers).length > 0;
  const events: EventDraft[] = [];
  const limitEvent = (
    kind: LimitKind | 'rate-limit',
    message: string | undefined,
    retryAfter: number | undefined,
  ): void => {
    const payload: {
      kind: LimitKind;
      message?: string;
      retryAfterMs?: number;
      resetAt?: string;
      headers?: Record<string, string>;
    } = { kind };
    if (message !== undefined) payload.message = message;
    if (retryAfter !== undefined) payload.retryAfterMs = retryAfter;
    if (rl.resetAt !== undefined) payload.resetAt = rl.resetAt;
    if (hasRl) payload.headers = rl.headers;
    events.push({ type: 'limit.reached', payload, fidelity: 'native' });
  };
  if (info.status < 400) {
    if (rl.exhausted) limitEvent('rate-limit', `${info.provider} rate-limit budget exhausted`, undefined);
    return events;
  }
  const failure = classifyHttpFailure(
    definedOnly({ status: info.status, headers: info.headers, body: info.body, now: () => now }),
  );
  const raw = readBodyError(parseBody(info.body));
  const { error, limit } = classifyProviderError({ ...raw, httpStatus: info.status, retryAfterMs: failure.delayMs });
  const full: ErrorInfo = {
    ...error,
    recoverability: failure.retryable
      ? 'RETRYABLE'
      : error.recoverability === 'RETRYABLE'
        ? 'ACTION_REQUIRED'
        : error.recoverability,
  };
  if (!raw.message) full.message = `${info.provider} answered HTTP ${info.status}`;
  events.push({ type: 'error.raised', payload: { error: full }, fidelity: 'native' });
  if (limit || info.status === 429) limitEvent(limit ?? 'rate-limit', full.message, failure.delayMs);
  if (info.terminal !== false) {
    events.push({
      type: 'model.response.completed',
      payload: { outcome: 'error', stopReason: 'error', rawStopReason: `http_${info.status}` },
      fidelity: 'native',
    });
  }
  return events;
}
