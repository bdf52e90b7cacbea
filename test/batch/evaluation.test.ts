import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { expandAttempts, runKey } from '../../lib/batch/attempts.js';
import { evaluate, passAtK, passRule } from '../../lib/batch/evaluation.js';
import type { BatchLine } from '../../lib/batch/input.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { mulberry32 } from '../../lib/random.js';

/** C(n, k) exactly. */
function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let r = 1n;
  for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
  return r;
}

/** pass@k from the definition 1 - C(n-c,k)/C(n,k), in exact integers, to 15 digits. */
function exactPassAtK(n: number, c: number, k: number): number {
  const scale = 10n ** 15n;
  return 1 - Number((binomial(n - c, k) * scale) / binomial(n, k)) / 1e15;
}

function record(id: string, attempt: number, passed: boolean): BatchRecord {
  return passed
    ? { kind: 'result', id, attempt, line: 1, outcome: 'completed', reason: 'completed', finalText: '' }
    : {
        kind: 'error',
        id,
        attempt,
        line: 1,
        outcome: 'failed',
        reason: 'provider',
        error: { category: 'PROVIDER_ERROR', code: 'MINICODE_E_PROVIDER', message: 'x' },
      };
}

describe('pass@k', () => {
  it('gives the known small cases: none passed 0, all passed 1, one of five 0.2 at k=1 and 0.4 at k=2', () => {
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
    expect(passAtK(5, 1, 1)).toBeCloseTo(0.2, 12);
    expect(passAtK(5, 1, 2)).toBeCloseTo(0.4, 12);
    expect(passAtK(10, 3, 10)).toBe(1);
  });

  it('equals 1 - C(n-c,k)/C(n,k) computed in exact integers, for n up to 400', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 400 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          const got = passAtK(n, c, k);
          expect(got).toBeGreaterThanOrEqual(0);
          expect(got).toBeLessThanOrEqual(1);
          expect(Math.abs(got - exactPassAtK(n, c, k))).toBeLessThan(1e-9);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it('refuses k above n (the estimator is not defined there)', () => {
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
  });

  it('estimates a seeded p per attempt within its expected error over 100 lines of 5 attempts', () => {
    const rand = mulberry32(7);
    const p = 0.3;
    const records: BatchRecord[] = [];
    for (let i = 0; i < 100; i++) for (let a = 1; a <= 5; a++) records.push(record(`l${i}`, a, rand() < p));
    const e = evaluate(records);
    // Each line's pass@1 is its c/n; the mean's standard error is sqrt(p(1-p)/500) = 0.0205.
    expect(Math.abs(e.passAtK['1']! - p)).toBeLessThan(3 * Math.sqrt((p * (1 - p)) / 500));
    // pass@5 = 1 - (1-p)^5 = 0.832; over 100 independent lines its standard error is sqrt(q(1-q)/100) = 0.037.
    const q = 1 - (1 - p) ** 5;
    expect(Math.abs(e.passAtK['5']! - q)).toBeLessThan(3 * Math.sqrt((q * (1 - q)) / 100));
  });
});

describe('the evaluation of a batch', () => {
  it('gives per-line and overall rates, pass@k for every k up to the epochs, and the spread between epochs', () => {
    const records = [
      record('a', 1, true),
      record('a', 2, true),
      record('a', 3, false),
      record('b', 1, false),
      record('b', 2, false),
      record('b', 3, false),
      record('c', 1, true),
      record('c', 2, true),
      record('c', 3, true),
    ];
    const e = evaluate(records, ['a', 'b', 'c', 'd']);
    expect(e).toMatchObject({ epochs: 3, runs: 9, passed: 5, passRate: 0.555556, unstableLines: 1 });
    expect(e.lines).toEqual([
      { id: 'a', runs: 3, passed: 2, rate: 0.666667 },
      { id: 'b', runs: 3, passed: 0, rate: 0 },
      { id: 'c', runs: 3, passed: 3, rate: 1 },
      { id: 'd', runs: 0, passed: 0, rate: 0 },
    ]);
    expect(e.passAtK).toEqual({ '1': 0.555556, '2': 0.666667, '3': 0.666667 });
    expect(e.byEpoch.map((x) => x.rate)).toEqual([0.666667, 0.666667, 0.333333]);
    expect(e.spread).toEqual({ min: 0.333333, max: 0.666667, stdev: 0.19245 });
  });

  it('counts a completed run whose verify failed, or one of whose scorers failed, as not passed', () => {
    const base = record('a', 1, true);
    expect(passRule(base)).toBe(true);
    expect(passRule({ ...base, verify: { ok: false, durationMs: 1, outputTail: '' } })).toBe(false);
    expect(
      passRule({
        ...base,
        scores: [
          { scorer: 'includes', passed: true },
          { scorer: 'regex', passed: false },
        ],
      }),
    ).toBe(false);
    expect(passRule(record('a', 1, false))).toBe(false);
  });
});

describe('attempts', () => {
  it('expands lines epoch by epoch, a line with its own epochs running that many times', () => {
    const lines: BatchLine[] = [
      { id: 'a', line: 1, prompt: 'x' },
      { id: 'b', line: 2, prompt: 'y', epochs: 1 },
      { id: 'c', line: 3, prompt: 'z', epochs: 3 },
    ];
    const runs = expandAttempts(lines, 2).map((r) => `${r.id}${r.attempt}`);
    expect(runs).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'c3']);
  });

  it('keys attempt 1 by the id alone, so outputs written before epochs resume unchanged, and later attempts apart', () => {
    expect(runKey({ id: 'x' })).toBe('x');
    expect(runKey({ id: 'x', attempt: 1 })).toBe('x');
    expect(runKey({ id: 'x', attempt: 2 })).not.toBe(runKey({ id: 'x2' }));
    expect(new Set(['x', 'x2', 'x\u00002'].map((id) => runKey({ id, attempt: 2 }))).size).toBe(3);
  });
});

describe('the evaluation of a batch that mixes agents and models', () => {
  it('gives each agent/model its own runs, pass rate, pass@k and cost, by name, and no groups for a batch of one', () => {
    const on = (r: BatchRecord, extra: Partial<BatchRecord>): BatchRecord => ({ ...r, ...extra }) as BatchRecord;
    const records = [
      on(record('a', 1, true), { provider: 'openai-chat', model: 'gpt-4.1', costUsd: 0.01 }),
      on(record('a', 2, false), { provider: 'openai-chat', model: 'gpt-4.1', costUsd: 0.02 }),
      on(record('b', 1, true), { provider: 'openai-chat', model: 'gpt-4.1' }),
      on(record('a', 1, true), { agent: 'codex', model: 'o4-mini' }),
      on(record('b', 1, true), { agent: 'codex', model: 'o4-mini' }),
    ].map((r, i) => ({ ...r, id: i >= 3 ? `${r.id}-codex` : r.id }));
    const e = evaluate(records);
    expect(e.byGroup).toEqual([
      {
        group: 'agent:codex/o4-mini',
        lines: 2,
        runs: 2,
        passed: 2,
        passRate: 1,
        passAtK: { '1': 1 },
        costUsd: 0,
        costUnknownRuns: 2,
      },
      {
        group: 'openai-chat/gpt-4.1',
        lines: 2,
        runs: 3,
        passed: 2,
        passRate: 0.666667,
        passAtK: { '1': 0.75, '2': 1 },
        costUsd: 0.03,
        costUnknownRuns: 1,
      },
    ]);
    expect(evaluate(records.slice(0, 3)).byGroup).toBeUndefined();
  });
});
