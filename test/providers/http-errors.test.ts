import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { payloadSchemas, type EventDraft } from '../../lib/events/index.js';
import {
  classifyHttpFailure,
  httpResponseEvents,
  parseDurationMs,
  rateLimitHeaders,
} from '../../lib/providers/http-errors.js';
import { FIXTURES, HAVE_FIXTURES } from '../helpers/cli.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const now = () => NOW;
const dir = path.join(FIXTURES, 'providers/http-errors');
const load = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as {
    status: { code: number };
    headers_kept_by_recorder: Record<string, string[]>;
    body: unknown;
  };

function errorOf(events: EventDraft[]) {
  const e = events.find((x) => x.type === 'error.raised');
  return e?.type === 'error.raised' ? e.payload.error : undefined;
}

describe.skipIf(!HAVE_FIXTURES)('HTTP error bodies of each provider (recorded)', () => {
  const table: [string, string, { code: string; providerCode?: string; recoverability: string; limit?: string }][] = [
    [
      'he01-openrouter-429-upstream-rate-limited.json',
      'openai-chat',
      { code: '429', recoverability: 'RETRYABLE', limit: 'rate-limit' },
    ],
    [
      'he02-anthropic-400-invalid-request.json',
      'anthropic',
      { code: 'invalid_request_error', recoverability: 'ACTION_REQUIRED' },
    ],
    ['he03-anthropic-404-not-found.json', 'anthropic', { code: 'not_found_error', recoverability: 'ACTION_REQUIRED' }],
    [
      'he04-openai-404-model-not-found.json',
      'openai-chat',
      { code: 'invalid_request_error', providerCode: 'model_not_found', recoverability: 'ACTION_REQUIRED' },
    ],
    [
      'he05-openai-responses-400.json',
      'openai-responses',
      { code: 'invalid_request_error', providerCode: 'decimal_below_min_value', recoverability: 'ACTION_REQUIRED' },
    ],
    ['he06-gemini-404-model.json', 'gemini', { code: 'NOT_FOUND', recoverability: 'ACTION_REQUIRED' }],
  ];
  for (const [file, provider, want] of table) {
    it(`turns ${file} into error.raised (${want.code}) and a terminal error outcome`, () => {
      const f = load(file);
      const events = httpResponseEvents({
        provider,
        status: f.status.code,
        headers: f.headers_kept_by_recorder,
        body: JSON.stringify(f.body),
        now,
      });
      const error = errorOf(events)!;
      expect(error).toMatchObject({
        category: 'PROVIDER_ERROR',
        code: want.code,
        recoverability: want.recoverability,
        httpStatus: f.status.code,
      });
      if (want.providerCode) expect(error.providerCode).toBe(want.providerCode);
      expect(error.message.length).toBeGreaterThan(0);
      const limit = events.find((e) => e.type === 'limit.reached');
      expect(limit?.type === 'limit.reached' ? limit.payload.kind : undefined).toBe(want.limit);
      expect(events.at(-1)).toMatchObject({ type: 'model.response.completed', payload: { outcome: 'error' } });
      for (const e of events) expect(payloadSchemas[e.type].safeParse(e.payload).success).toBe(true);
    });
  }

  it('reads a Gemini 404 sent with Content-Type text/event-stream as a JSON error, not a stream', () => {
    const rec = JSON.parse(
      fs.readFileSync(path.join(FIXTURES, 'providers/gemini/jsgenai-stream-404-error.recording.json'), 'utf8'),
    ) as {
      interactions: { response: { statusCode: number; headers: Record<string, string>; bodySegments: unknown[] } }[];
    };
    const res = rec.interactions[0]!.response;
    expect(res.headers['Content-Type']).toBe('text/event-stream');
    const events = httpResponseEvents({
      provider: 'gemini',
      status: res.statusCode,
      headers: res.headers,
      body: JSON.stringify(res.bodySegments[0]),
      now,
    });
    expect(errorOf(events)).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, recoverability: 'ACTION_REQUIRED' });
  });

  it('takes the retry delay of a Gemini 429 from RetryInfo in the body', () => {
    const body = fs.readFileSync(path.join(FIXTURES, 'providers/gemini/vercel-google-429-retry-info.json'));
    const events = httpResponseEvents({ provider: 'gemini', status: 429, body, now });
    expect(errorOf(events)).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      recoverability: 'RETRYABLE',
      retryAfterMs: 34_400,
    });
    expect(events.find((e) => e.type === 'limit.reached')?.payload).toMatchObject({
      kind: 'rate-limit',
      retryAfterMs: 34_400,
    });
  });
});

describe('HTTP retry signals and rate-limit headers (hand-made)', () => {
  const anthropic529 = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

  it('turns an Anthropic 529 with retry-after into a retryable overloaded error and limit', () => {
    const events = httpResponseEvents({
      provider: 'anthropic',
      status: 529,
      headers: { 'retry-after': '7' },
      body: anthropic529,
      now,
    });
    expect(errorOf(events)).toMatchObject({
      code: 'overloaded_error',
      recoverability: 'RETRYABLE',
      retryAfterMs: 7000,
      httpStatus: 529,
    });
    expect(events.find((e) => e.type === 'limit.reached')?.payload).toMatchObject({
      kind: 'overloaded',
      retryAfterMs: 7000,
    });
  });

  it('prefers retry-after-ms, reads an HTTP-date retry-after, and obeys x-should-retry', () => {
    expect(
      classifyHttpFailure({ status: 429, headers: { 'retry-after-ms': '1500.5', 'retry-after': '9' }, now }),
    ).toEqual({ retryable: true, reason: 'status', delayMs: 1500.5 });
    expect(
      classifyHttpFailure({ status: 503, headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now }).delayMs,
    ).toBe(30_000);
    expect(classifyHttpFailure({ status: 500, headers: { 'x-should-retry': 'false' }, now })).toEqual({
      retryable: false,
      reason: 'x-should-retry',
    });
    expect(
      classifyHttpFailure({ status: 400, headers: new Headers({ 'X-Should-Retry': 'true' }), now }).retryable,
    ).toBe(true);
    expect(classifyHttpFailure({ status: 404, now }).retryable).toBe(false);
    expect(classifyHttpFailure({ status: 408, now }).retryable).toBe(true);
  });

  it('does not retry an Anthropic spend-limit 429 that names no retry-after', () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'spend limit',
        details: { error_code: 'enforced_spend_limit_reached' },
      },
    });
    expect(classifyHttpFailure({ status: 429, body, now })).toEqual({ retryable: false, reason: 'spend-limit' });
  });

  it('does not retry an exhausted OpenAI quota (insufficient_quota 429), which waiting cannot clear', () => {
    const body = JSON.stringify({
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    });
    expect(classifyHttpFailure({ status: 429, body, now })).toEqual({ retryable: false, reason: 'usage-quota' });
    // A quota that names when to come back is a rate limit in all but name: wait and retry.
    expect(classifyHttpFailure({ status: 429, body, headers: { 'retry-after': '2' }, now })).toEqual({
      retryable: true,
      reason: 'status',
      delayMs: 2000,
    });
    // Gemini's per-minute quota: RESOURCE_EXHAUSTED with RetryInfo stays retryable after the delay.
    const gemini = JSON.stringify({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        message: 'Quota exceeded for metric generate_content_requests per minute',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
      },
    });
    expect(classifyHttpFailure({ status: 429, body: gemini, now })).toEqual({
      retryable: true,
      reason: 'status',
      delayMs: 7000,
    });
    // A plain rate limit is retried as before.
    const rate = JSON.stringify({
      error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
    });
    expect(classifyHttpFailure({ status: 429, body: rate, now }).retryable).toBe(true);
  });

  it('reports rate-limit headers with the earliest reset, from Go durations and RFC 3339 times', () => {
    const rl = rateLimitHeaders(
      {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m26.4s',
        'anthropic-ratelimit-tokens-reset': '2026-01-01T00:00:10Z',
        'content-type': 'application/json',
      },
      NOW,
    );
    expect(rl.exhausted).toBe(true);
    expect(Object.keys(rl.headers).sort()).toEqual([
      'anthropic-ratelimit-tokens-reset',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
    ]);
    expect(rl.resetAt).toBe('2026-01-01T00:00:10.000Z');
    expect(parseDurationMs('6m0s')).toBe(360_000);
    expect(parseDurationMs('12ms')).toBe(12);
    expect(parseDurationMs('soon')).toBeUndefined();
  });

  it('gives a success response only a rate-limit event when a budget is exhausted', () => {
    expect(
      httpResponseEvents({
        provider: 'openai-chat',
        status: 200,
        headers: { 'x-ratelimit-remaining-tokens': '5000' },
        now,
      }),
    ).toEqual([]);
    const events = httpResponseEvents({
      provider: 'openai-chat',
      status: 200,
      headers: { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '7.66s' },
      now,
    });
    expect(events).toEqual([
      {
        type: 'limit.reached',
        payload: {
          kind: 'rate-limit',
          message: 'openai-chat rate-limit budget exhausted',
          resetAt: '2026-01-01T00:00:07.660Z',
          headers: { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '7.66s' },
        },
        fidelity: 'native',
      },
    ]);
  });

  it('turns an Ollama string error and a non-JSON body into error events', () => {
    expect(
      errorOf(httpResponseEvents({ provider: 'ollama', status: 404, body: '{"error":"model \'x\' not found"}', now })),
    ).toMatchObject({ message: "model 'x' not found", httpStatus: 404 });
    expect(
      errorOf(httpResponseEvents({ provider: 'openai-chat', status: 502, body: '<html>Bad gateway</html>', now })),
    ).toMatchObject({ recoverability: 'RETRYABLE', httpStatus: 502 });
  });
});
