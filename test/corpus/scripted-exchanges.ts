import { mulberry32 } from '../../lib/random.js';
import type { Chunk, Exchange } from '../../lib/replay/cassette.js';
import { definedOnly } from '../../lib/defined-only.js';

/**
 * Scripted exchanges for tests of the retry, timeout and decoding paths: each is what a real
 * provider sends in that situation (status, headers, body shape), written by hand.
 */

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** A successful streaming response with the given body. */
export function streamOk(body: string | Buffer, contentType = 'text/event-stream'): Exchange {
  return {
    status: 200,
    headers: { ...SSE_HEADERS, 'content-type': contentType },
    body: Buffer.from(body),
    scripted: true,
  };
}

/** 429 with `Retry-After` (seconds), in OpenAI's error shape. */
export function rateLimited(retryAfterSeconds: number): Exchange {
  return {
    status: 429,
    headers: { ...JSON_HEADERS, 'retry-after': String(retryAfterSeconds) },
    body: Buffer.from(
      JSON.stringify({
        error: {
          message: 'Rate limit reached. Please try again later.',
          type: 'requests',
          code: 'rate_limit_exceeded',
        },
      }),
    ),
    scripted: true,
  };
}

/** Anthropic's 529 `overloaded_error`. */
export function overloaded(): Exchange {
  return {
    status: 529,
    headers: JSON_HEADERS,
    body: Buffer.from(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })),
    scripted: true,
  };
}

/** A 500 with a JSON error body (the first half of "500 then success"). */
export function serverError(): Exchange {
  return {
    status: 500,
    headers: JSON_HEADERS,
    body: Buffer.from(
      JSON.stringify({
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      }),
    ),
    scripted: true,
  };
}

/** A 200 stream whose connection is destroyed after `atByte` bytes (mid-event when `atByte` falls inside one). */
export function cutMidEvent(body: string | Buffer, atByte: number, contentType = 'text/event-stream'): Exchange {
  const bytes = Buffer.from(body);
  if (atByte <= 0 || atByte >= bytes.length)
    throw new RangeError(`cutMidEvent: atByte must fall inside the body (1..${bytes.length - 1})`);
  return { ...streamOk(bytes, contentType), cutAfterBytes: atByte };
}

/**
 * A 200 stream sent in `chunkBytes` slices with `delayMs` between them: a slow provider, for
 * deadline and idle-timeout tests.
 */
export function slowStream(
  body: string | Buffer,
  delayMs: number,
  chunkBytes = 16,
  contentType = 'text/event-stream',
): Exchange {
  const bytes = Buffer.from(body);
  const chunks: Chunk[] = [];
  for (let at = 0; at < bytes.length; at += chunkBytes)
    chunks.push({ bytes: Math.min(chunkBytes, bytes.length - at), delayMs });
  return { ...streamOk(bytes, contentType), chunks };
}

/** Split an SSE body at event boundaries into one chunk per event (how most servers flush). */
export function perEventChunks(body: string | Buffer, delayMs?: number): Chunk[] {
  const text = Buffer.from(body);
  const chunks: Chunk[] = [];
  let start = 0;
  for (let i = text.indexOf('\n\n'); i !== -1; i = text.indexOf('\n\n', i + 2)) {
    chunks.push(definedOnly({ bytes: i + 2 - start, delayMs }));
    start = i + 2;
  }
  if (start < text.length) chunks.push(definedOnly({ bytes: text.length - start, delayMs }));
  return chunks;
}

/** Options of {@link rateLimitStorm}. */
export interface RateLimitStormOptions {
  /** Share of fresh requests answered 429, 0..1; default 0.2. */
  rate?: number;
  /** Wait asked for, sent as `retry-after-ms` (and `retry-after` rounded up to seconds); default 1000. */
  retryAfterMs?: number;
  /** Seed of the deterministic random source; default 1. */
  seed?: number;
}

/**
 * An `intercept` for the replay server that answers a share of requests with a 429 carrying
 * Retry-After, as a provider under load does. A request body that was already refused once is
 * let through on its retry, so every run completes after backing off (a storm, not an outage).
 * Deterministic: a seeded mulberry32 source decides. `count()` says how many 429s were sent.
 */
export function rateLimitStorm(options: RateLimitStormOptions = {}): {
  intercept: (request: { bodyDigest: string }) => Exchange | undefined;
  count(): number;
} {
  const rate = options.rate ?? 0.2;
  const waitMs = options.retryAfterMs ?? 1000;
  const random = mulberry32(options.seed ?? 1);
  const refused = new Set<string>();
  let sent = 0;
  return {
    intercept: ({ bodyDigest }) => {
      if (refused.has(bodyDigest)) return undefined;
      if (random() >= rate) return undefined;
      refused.add(bodyDigest);
      sent++;
      const exchange = rateLimited(Math.ceil(waitMs / 1000));
      exchange.headers['retry-after-ms'] = String(waitMs);
      return exchange;
    },
    count: () => sent,
  };
}
