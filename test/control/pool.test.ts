/** The worker pool: lazy start, exact counts, coded errors as data, cancellation, shutdown. */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  closePool,
  configurePool,
  defaultMaxThreads,
  defaultWorkersDir,
  getPool,
  isPoolStarted,
  runWorker,
} from '../../lib/control/pool.js';
import { compactInPool, countTokensExact, estimateContextInPool } from '../../lib/control/offload.js';
import { abortReason } from '../../lib/control/termination.js';
import { encodeTranscript, ownBuffer } from '../../lib/control/wire.js';
import { transcript } from './helpers/transcripts.js';

// Every test starts from no pool and the default configuration, so none depends on what an
// earlier one started, configured or closed (they pass in any order: --sequence.shuffle).
beforeEach(async () => {
  await closePool();
  configurePool({});
});
afterAll(closePool);

describe('the worker pool', () => {
  it('is not created until work arrives', async () => {
    expect(isPoolStarted()).toBe(false);
    await countTokensExact('hello');
    expect(isPoolStarted()).toBe(true);
  });

  it('is sized to the machine and runs the compiled workers from dist', () => {
    expect(getPool().maxThreads).toBe(defaultMaxThreads());
    expect(defaultMaxThreads()).toBeGreaterThanOrEqual(1);
    expect(defaultMaxThreads()).toBeLessThanOrEqual(4);
    expect(defaultWorkersDir()).toMatch(/dist[/\\]workers$/);
  });

  it('counts tokens exactly with o200k, for small strings and for large ones sent as bytes', async () => {
    const small = 'The quick brown fox jumps over the lazy dog. 日本語のテキスト';
    const large = 'export const value = compute(input, { fast: true });\n'.repeat(3_000);
    expect(await countTokensExact(small)).toEqual({
      ok: true,
      value: { tokens: countTokens(small), chars: small.length, encoding: 'o200k_base' },
    });
    const r = await countTokensExact(large);
    expect(r.ok && r.value.tokens).toBe(countTokens(large));
  });

  it('moves the task bytes: the sender buffer is detached after posting', async () => {
    const bytes = ownBuffer(new TextEncoder().encode('x'.repeat(100_000)));
    const r = await runWorker('count-tokens', { bytes }, { transfer: [bytes] });
    expect(r.ok).toBe(true);
    expect(bytes.byteLength).toBe(0);
  });

  it('estimates a whole transcript by heuristic and exactly', async () => {
    const messages = transcript(5);
    const fixed = { system: 'You are a coding agent.', toolSchemas: ['{"name":"bash"}'] };
    const h = await estimateContextInPool(fixed, messages);
    const e = await estimateContextInPool(fixed, messages, { mode: 'exact' });
    expect(h.ok && e.ok).toBe(true);
    if (!h.ok || !e.ok) return;
    expect(h.value).toMatchObject({ mode: 'heuristic', messages: messages.length, badLines: 0 });
    expect(e.value.mode).toBe('exact');
    expect(Math.abs(h.value.tokens - e.value.tokens) / e.value.tokens).toBeLessThan(0.35);
  });

  it('compacts in the pool and hands the folded transcript back', async () => {
    const messages = transcript(10);
    const r = await compactInPool(messages, { keepRecentUnits: 2 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.changed).toBe(true);
    expect(r.value.afterTokens).toBeLessThan(r.value.beforeTokens);
    expect(r.value.messages.slice(-3)).toEqual(messages.slice(-3)); // the last two units: assistant+tool, final user
  });

  it('reports bad transcript lines as a count, not a failure', async () => {
    const good = encodeTranscript([{ role: 'user', text: 'hi' }]);
    const bytes = ownBuffer(
      new TextEncoder().encode(new TextDecoder().decode(good) + '\n{not json\n{"role":"robot"}\n'),
    );
    const r = await runWorker('estimate-context', { bytes });
    expect(r).toMatchObject({ ok: true, value: { messages: 1, badLines: 2 } });
  });
});

describe('pool errors come back as coded data', () => {
  it('a task with the wrong shape returns MINICODE_E_WORKER_INPUT', async () => {
    for (const name of ['count-tokens', 'estimate-context', 'compact'] as const) {
      const r = await runWorker(name, { bytes: 'not a buffer' });
      expect(r).toMatchObject({ ok: false, error: { code: 'MINICODE_E_WORKER_INPUT' } });
    }
  });

  it('a missing worker build returns MINICODE_E_WORKER', async () => {
    await closePool();
    configurePool({ workersDir: '/nonexistent/minicode-workers' });
    const r = await countTokensExact('hello');
    expect(r).toMatchObject({ ok: false, error: { code: 'MINICODE_E_WORKER' } });
    await closePool();
    configurePool({});
  });
});

describe('cancellation', () => {
  it('aborting a running task resolves MINICODE_E_ABORTED with the abort kind, and the pool goes on', async () => {
    const big = 'lorem ipsum dolor sit amet '.repeat(150_000); // ~4 MB: a second or so of exact counting
    const controller = new AbortController();
    const pending = countTokensExact(big, { signal: controller.signal });
    setTimeout(() => controller.abort(abortReason('timeout')), 50);
    const r = await pending;
    expect(r).toMatchObject({ ok: false, error: { code: 'MINICODE_E_ABORTED', data: { kind: 'timeout' } } });
    expect(await countTokensExact('still alive')).toMatchObject({ ok: true });
  });

  it('an already aborted signal never reaches a worker', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await compactInPool(transcript(3), {}, { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, error: { code: 'MINICODE_E_ABORTED', data: { kind: 'aborted' } } });
  });

  it('closePool shuts the threads down and a later task starts a fresh pool', async () => {
    await closePool();
    expect(isPoolStarted()).toBe(false);
    expect(await countTokensExact('again')).toMatchObject({ ok: true });
    expect(isPoolStarted()).toBe(true);
  });
});
