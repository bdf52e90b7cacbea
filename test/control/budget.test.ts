/** The budget contract (seed §4), prices and the usage collector (unknown is never zero). */
import { describe, expect, it } from 'vitest';
import { budgetStatus, preflight, watchBudgetLimit } from '../../lib/control/budget.js';
import { costFor, findPrice } from '../../lib/control/prices.js';
import { kindOfAbort } from '../../lib/control/termination.js';
import { createUsageCollector } from '../../lib/control/usage.js';
import { payloadSchemas } from '../../lib/events/payloads.js';

describe('budget status', () => {
  it('is ok within the limit, over above it, unknown-strict for an unknown cost under strict', () => {
    expect(budgetStatus({ limitUsd: 1 }, 0.5)).toBe('ok');
    expect(budgetStatus({ limitUsd: 1 }, 1)).toBe('ok');
    expect(budgetStatus({ limitUsd: 1 }, 1.01)).toBe('over');
    expect(budgetStatus({ limitUsd: 1, strict: true }, undefined)).toBe('unknown-strict');
    expect(budgetStatus({ limitUsd: 1 }, undefined)).toBe('ok');
  });
});

describe('budget preflight', () => {
  it('always allows a start when no tokens are recorded, even strict with unknown cost', () => {
    expect(preflight({ limitUsd: 1, strict: true }, { tokens: 0, costUsd: undefined })).toMatchObject({
      allowed: true,
    });
    expect(preflight({ limitUsd: 0 }, { tokens: 0, costUsd: 5 })).toMatchObject({ allowed: true });
  });

  it('refuses recorded tokens with an unknown cost under strict (fail closed)', () => {
    expect(preflight({ limitUsd: 1, strict: true }, { tokens: 10, costUsd: undefined })).toEqual({
      allowed: false,
      status: 'unknown-strict',
      reason: 'unknown-cost',
    });
  });

  it('allows recorded tokens with an unknown cost when not strict', () => {
    expect(preflight({ limitUsd: 1 }, { tokens: 10, costUsd: undefined })).toMatchObject({
      allowed: true,
      status: 'ok',
    });
  });

  it('refuses a known cost over the limit and allows one within it', () => {
    expect(preflight({ limitUsd: 1 }, { tokens: 10, costUsd: 1.5 })).toEqual({
      allowed: false,
      status: 'over',
      reason: 'over',
    });
    expect(preflight({ limitUsd: 1 }, { tokens: 10, costUsd: 0.5 })).toMatchObject({ allowed: true });
  });
});

describe('the in-flight budget watcher', () => {
  it('aborts once with kind budget_exceeded when the live cost goes over', () => {
    const controller = new AbortController();
    let aborts = 0;
    controller.signal.addEventListener('abort', () => aborts++);
    const watcher = watchBudgetLimit({ limitUsd: 1 }, controller);
    expect(watcher.check(0.4)).toBe(false);
    expect(watcher.check(undefined)).toBe(false);
    expect(watcher.check(1.2)).toBe(true);
    expect(watcher.check(2.5)).toBe(false);
    expect(aborts).toBe(1);
    expect(watcher.fired).toBe(true);
    expect(kindOfAbort(controller.signal.reason)).toBe('budget_exceeded');
  });
});

describe('prices', () => {
  it('finds exact names, dated snapshots by prefix, and provider-wide local prices', () => {
    expect(findPrice('openai', 'gpt-4.1-mini')?.input).toBe(0.4);
    expect(findPrice('anthropic', 'claude-sonnet-4-20250514')?.output).toBe(15);
    expect(findPrice('ollama', 'qwen3:8b')).toMatchObject({ input: 0, output: 0 });
  });

  it('gives an unknown price for an unknown model, and an unknown cost for an unknown price', () => {
    expect(findPrice('openai', 'davinci-007')).toBeUndefined();
    expect(findPrice('acme', 'x')).toBeUndefined();
    expect(costFor({ inputTokens: 100, outputTokens: 100 }, undefined)).toBeUndefined();
  });

  it('prices cache reads by the provider convention', () => {
    const openai = findPrice('openai', 'gpt-4.1');
    // OpenAI counts cached tokens inside inputTokens: 600 plain + 400 cached
    expect(costFor({ inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 400 }, openai)).toBeCloseTo(
      (600 * 2 + 400 * 0.5) / 1e6,
      12,
    );
    const anthropic = findPrice('anthropic', 'claude-sonnet-4');
    // Anthropic counts them apart
    expect(costFor({ inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 400 }, anthropic)).toBeCloseTo(
      (1_000 * 3 + 400 * 0.3) / 1e6,
      12,
    );
  });

  it('gives an unknown cost when input or output counts are missing', () => {
    expect(costFor({ inputTokens: 100 }, findPrice('openai', 'gpt-4o'))).toBeUndefined();
  });
});

describe('the usage collector', () => {
  it('keeps unknown usage unknown: a request without a report makes totals incomplete and cost unknown', () => {
    const c = createUsageCollector();
    c.begin('r1', { provider: 'openai', model: 'gpt-4o', turn: 1 });
    c.record({
      requestId: 'r1',
      usage: { inputTokens: 1_000, outputTokens: 100 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-4o',
      turn: 1,
    });
    c.begin('r2', { provider: 'openai', model: 'gpt-4o', turn: 1 });
    expect(c.session()).toMatchObject({
      requests: 2,
      complete: false,
      costUsd: undefined,
      usage: { inputTokens: 1_000, outputTokens: 100 },
    });
    expect(c.session().usage.cacheReadTokens).toBeUndefined();
  });

  it('replaces cumulative reports and adds incremental ones', () => {
    const c = createUsageCollector();
    const base = { scope: 'request' as const, provider: 'anthropic', model: 'claude-sonnet-4' };
    c.record({ ...base, requestId: 'a', usage: { inputTokens: 500, outputTokens: 1 }, cumulative: true });
    c.record({ ...base, requestId: 'a', usage: { outputTokens: 40 }, cumulative: true });
    c.record({ ...base, requestId: 'a', usage: { outputTokens: 90 }, cumulative: true });
    c.record({ ...base, requestId: 'b', usage: { inputTokens: 100, outputTokens: 10 }, cumulative: false });
    c.record({ ...base, requestId: 'b', usage: { outputTokens: 5 }, cumulative: false });
    expect(c.session().usage).toEqual({ inputTokens: 600, outputTokens: 105 });
    expect(c.tokens()).toBe(705);
  });

  it('sums per turn and per session, and an unknown model gives an unknown cost', () => {
    const c = createUsageCollector();
    c.record({
      requestId: 'a',
      usage: { inputTokens: 10, outputTokens: 1 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-4o',
      turn: 1,
    });
    c.record({
      requestId: 'b',
      usage: { inputTokens: 20, outputTokens: 2 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'mystery',
      turn: 2,
    });
    expect(c.turn(1).costUsd).toBeGreaterThan(0);
    expect(c.turn(2).costUsd).toBeUndefined();
    expect(c.session()).toMatchObject({
      usage: { inputTokens: 30, outputTokens: 3 },
      costUsd: undefined,
      complete: true,
    });
  });

  it('starts at zero tokens and a known zero cost (nothing has happened yet)', () => {
    const c = createUsageCollector();
    expect(c.tokens()).toBe(0);
    expect(c.session()).toMatchObject({ requests: 0, costUsd: 0, complete: true });
  });

  it('emits valid usage.reported drafts', () => {
    const c = createUsageCollector();
    const d = c.record({
      requestId: 'a',
      usage: { inputTokens: 10, outputTokens: 1 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-4o',
      turn: 3,
    });
    expect(d.turnId).toBe(3);
    expect(payloadSchemas['usage.reported'].safeParse(d.payload).success).toBe(true);
    expect(d.payload.costUsd).toBeGreaterThan(0);
  });
});
