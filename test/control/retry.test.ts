/** The retry policy (seed §5): deadlines, 3 retries, full-jitter waits up to 1/2/4 s, Retry-After capped, cancellable waits, router. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, withRetry } from '../../lib/control/retry.js';
import { abortReason, kindOfAbort } from '../../lib/control/termination.js';
import { createManualTimers } from '../helpers/manual-timers.js';
import { mulberry32 } from '../../lib/random.js';

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}`);
  }
}
const classify = (e: unknown) => {
  const h = e as HttpError;
  return h.retryAfterMs === undefined
    ? { retryable: h.status >= 429 }
    : { retryable: h.status >= 429, retryAfterMs: h.retryAfterMs };
};

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setImmediate(r));
}

describe('retry delays', () => {
  it('stay within 1, 2, 4 s without Retry-After', () => {
    for (const [r, bound] of [
      [0, 1000],
      [1, 2000],
      [2, 4000],
    ] as const) {
      const ms = retryDelayMs(r, undefined);
      expect(ms >= 0 && ms <= bound, `${ms} within [0, ${bound}]`).toBe(true);
    }
  });

  it('follow Retry-After, capped at 30 s', () => {
    expect(retryDelayMs(0, 7_000)).toBe(7_000);
    expect(retryDelayMs(0, 120_000)).toBe(30_000);
  });

  it('read retry-after-ms, retry-after seconds and retry-after HTTP dates', () => {
    const now = Date.parse('2026-09-17T10:00:00Z');
    expect(parseRetryAfter({ 'retry-after-ms': '1500' }, now)).toBe(1500);
    expect(parseRetryAfter({ 'retry-after': '12' }, now)).toBe(12_000);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 17 Sep 2026 10:00:20 GMT' }, now)).toBe(20_000);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 17 Sep 2026 09:00:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });

  it('use the contract defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      requestTimeoutMs: 300_000,
      maxRetries: 3,
      backoffMs: [1000, 2000, 4000],
      retryAfterCapMs: 30_000,
    });
  });
});

describe('withRetry', () => {
  it('retries at most 3 times after the first attempt, waiting up to 1/2/4 s', async () => {
    const timers = createManualTimers();
    let calls = 0;
    const p = withRetry({
      provider: 'openai',
      timers,
      classify,
      random: () => 0.999_999,
      call: async () => {
        calls++;
        throw new HttpError(503);
      },
    });
    const settled = p.catch((e: unknown) => e);
    await timers.advance(7_000);
    expect(await settled).toBeInstanceOf(HttpError);
    expect(calls).toBe(4);
    expect(timers.requested.filter((ms) => ms !== 300_000)).toEqual([1000, 2000, 4000]);
  });

  it('waits the capped Retry-After instead of the backoff', async () => {
    const timers = createManualTimers();
    let calls = 0;
    const p = withRetry({
      provider: 'openai',
      timers,
      classify,
      call: async () => {
        if (calls++ === 0) throw new HttpError(429, 90_000);
        return 'ok';
      },
    });
    await timers.advance(30_000);
    expect(await p).toBe('ok');
    expect(timers.requested).toContain(30_000);
    expect(timers.requested).not.toContain(90_000);
  });

  it('does not retry a non-retryable error', async () => {
    let calls = 0;
    await expect(
      withRetry({
        provider: 'openai',
        classify,
        call: async () => {
          calls++;
          throw new HttpError(400);
        },
      }),
    ).rejects.toBeInstanceOf(HttpError);
    expect(calls).toBe(1);
  });

  it('gives each request a 300 s deadline, retried as a provider failure (not the run timeout)', async () => {
    const timers = createManualTimers();
    const seen: number[] = [];
    const p = withRetry({
      provider: 'openai',
      timers,
      classify,
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
      call: ({ signal, attempt }) => {
        seen.push(attempt);
        return new Promise((_r, rej) => signal.addEventListener('abort', () => rej(signal.reason)));
      },
    });
    const settled = p.catch((e: unknown) => e);
    await timers.advance(300_000);
    const error = await settled;
    expect(error).toMatchObject({ requestDeadline: true });
    expect(kindOfAbort(error)).toBe('aborted'); // no `kind`: it never claims the run's timeout
    expect(seen).toEqual([0]);
  });

  it('cancels a retry wait at once when the run signal aborts', async () => {
    const timers = createManualTimers();
    const run = new AbortController();
    let calls = 0;
    const p = withRetry({
      provider: 'openai',
      timers,
      classify,
      signal: run.signal,
      call: async () => {
        calls++;
        throw new HttpError(429, 20_000);
      },
    });
    const settled = p.catch((e: unknown) => e);
    await until(() => calls === 1 && timers.pending > 0);
    run.abort(abortReason('timeout'));
    expect(kindOfAbort(await settled)).toBe('timeout');
    expect(calls).toBe(1);
  });

  it('tries an alternative provider before waiting when the model is not pinned', async () => {
    const timers = createManualTimers();
    const providers: string[] = [];
    const r = await withRetry({
      provider: 'openai',
      alternatives: ['azure'],
      timers,
      classify,
      call: async ({ provider }) => {
        providers.push(provider);
        if (provider === 'openai') throw new HttpError(503);
        return provider;
      },
    });
    expect(r).toBe('azure');
    expect(providers).toEqual(['openai', 'azure']);
    expect(timers.requested.filter((ms) => ms !== 300_000)).toEqual([]);
  });

  it('stays on the pinned provider and waits instead', async () => {
    const timers = createManualTimers();
    const providers: string[] = [];
    const p = withRetry({
      provider: 'openai',
      alternatives: ['azure'],
      pinned: true,
      timers,
      classify,
      call: async ({ provider }) => {
        providers.push(provider);
        if (providers.length === 1) throw new HttpError(503);
        return provider;
      },
    });
    await timers.advance(1_000);
    expect(await p).toBe('openai');
    expect(providers).toEqual(['openai', 'openai']);
  });
});

describe('retry backoff jitter', () => {
  it('spreads the first waits of 64 concurrent runs after one 429 over the whole 0-1 s window', async () => {
    const timers = createManualTimers();
    const random = mulberry32(18);
    const waits: number[] = [];
    const runs = Array.from({ length: 64 }, () => {
      let calls = 0;
      return withRetry({
        provider: 'openai',
        timers,
        classify,
        random,
        onRetry: ({ waitMs }) => waits.push(waitMs),
        call: async () => {
          if (calls++ === 0) throw new HttpError(429);
          return 'ok';
        },
      });
    });
    await until(() => waits.length === 64);
    await timers.advance(1_000);
    expect(await Promise.all(runs)).toEqual(Array(64).fill('ok'));
    for (const ms of waits) expect(ms >= 0 && ms <= 1000, `${ms} within [0, 1000]`).toBe(true);
    // Lockstep would be one value; full jitter gives almost as many as there are runs, and
    // every tenth of the window gets some of them.
    expect(new Set(waits).size).toBeGreaterThanOrEqual(56);
    const tenths = new Set(waits.map((ms) => Math.min(9, Math.floor(ms / 100))));
    expect(tenths.size).toBe(10);
  });

  it('draws each wait from [0, base * 2^n] of the table, capped at its last entry', () => {
    const top = () => 0.999_999;
    expect([0, 1, 2, 3, 7].map((r) => retryDelayMs(r, undefined, DEFAULT_RETRY_POLICY, top))).toEqual([
      1000, 2000, 4000, 4000, 4000,
    ]);
    const half = () => 0.5;
    expect([0, 1, 2].map((r) => retryDelayMs(r, undefined, DEFAULT_RETRY_POLICY, half))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(0, undefined, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  it('gives the same waits for the same seed', () => {
    const draw = (seed: number) => {
      const random = mulberry32(seed);
      return [0, 1, 2].map((r) => retryDelayMs(r, undefined, DEFAULT_RETRY_POLICY, random));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('honours Retry-After as given (capped at 30 s), without jitter', () => {
    const random = () => 0.25;
    expect(retryDelayMs(0, 7_000, DEFAULT_RETRY_POLICY, random)).toBe(7_000);
    expect(retryDelayMs(2, 120_000, DEFAULT_RETRY_POLICY, random)).toBe(30_000);
  });
});
