import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../lib/batch/records.js';
import { compareMeasure, comparePaired, mcnemarExact } from '../../lib/batch/report/significance.js';
import { mulberry32 } from '../../lib/random.js';

function run(id: string, passed: boolean): BatchRecord {
  return { kind: 'result', id, attempt: 1, line: 1, outcome: 'completed', reason: 'completed', finalText: '', passed };
}

/** 50 lines; A passes the first 25; B the same except that `flipped` lines (from the 26th on) pass too. */
function runs(flipped: number): { a: BatchRecord[]; b: BatchRecord[] } {
  const ids = Array.from({ length: 50 }, (_, i) => `l${i}`);
  return { a: ids.map((id, i) => run(id, i < 25)), b: ids.map((id, i) => run(id, i < 25 + flipped)) };
}

describe('the paired comparison of two runs', () => {
  it("gives McNemar's exact p-value: 10 discordant pairs all one way 2/1024, one each way 1", () => {
    expect(mcnemarExact(0, 10)).toBeCloseTo(2 / 1024, 12);
    expect(mcnemarExact(1, 1)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 17)).toBeCloseTo(0.002577, 5);
  });

  it('calls a difference on 10 of 50 lines significant, with an interval above zero', () => {
    const { a, b } = runs(10);
    const c = comparePaired(a, b);
    expect(c).toMatchObject({ lines: 50, pairs: 50, onlyA: 0, onlyB: 10, difference: 0.2, significant: true });
    expect(c.interval[0]).toBeGreaterThan(0);
    expect(c.pValue).toBeLessThan(0.01);
  });

  it('calls a difference on 2 of 50 lines not significant, its interval crossing zero', () => {
    const { a, b } = runs(2);
    const c = comparePaired(a, b);
    expect(c).toMatchObject({ onlyB: 2, difference: 0.04, significant: false });
    expect(c.interval[0]).toBeLessThanOrEqual(0);
    expect(c.pValue).toBe(0.5);
  });

  it('names the lines that regressed from A to B and gives the same interval for the same records', () => {
    const { a, b } = runs(0);
    b[3] = run('l3', false);
    const c = comparePaired(a, b);
    expect(c.regressed).toEqual(['l3']);
    expect(comparePaired(a, b).interval).toEqual(c.interval);
  });

  it('gives cost and latency medians per line with a paired interval: 20% cheaper on every line is significant, the same spread reshuffled is not', () => {
    const rand = mulberry32(7);
    const costs = Array.from({ length: 50 }, () => 0.001 + rand() * 0.01);
    const timed = (id: string, costUsd: number, totalMs: number): BatchRecord => ({
      ...run(id, true),
      costUsd,
      durationMs: totalMs,
    });
    const a = costs.map((c, i) => timed(`l${i}`, c, 1000 + i * 10));
    const cheaper = costs.map((c, i) => timed(`l${i}`, c * 0.8, 1000 + i * 10));
    const c = comparePaired(a, cheaper);
    expect(c.cost).toMatchObject({ lines: 50, significant: true });
    expect(c.cost!.difference).toBeLessThan(0);
    expect(c.cost!.interval[1]).toBeLessThan(0);
    expect(c.cost!.medianB).toBeCloseTo(c.cost!.medianA * 0.8, 9);
    // The same times on every line: no difference, an interval of zero width.
    expect(c.latency).toMatchObject({ lines: 50, difference: 0, interval: [0, 0], significant: false });

    // B's costs are A's, each moved to another line: the medians agree and the interval crosses zero.
    const shuffled = costs.map((_, i) => timed(`l${i}`, costs[(i * 7 + 3) % 50]!, 1000));
    const s = comparePaired(a, shuffled);
    expect(s.cost!.difference).toBe(0);
    expect(s.cost!.interval[0]).toBeLessThan(0);
    expect(s.cost!.interval[1]).toBeGreaterThan(0);
    expect(s.cost!.significant).toBe(false);
  });

  it('leaves out of a measure the lines that lack it in either run, and gives none when no line has it in both', () => {
    const a = [{ ...run('x', true), costUsd: 0.01 }, { ...run('y', true), costUsd: 0.02 }, run('z', true)];
    const b = [run('x', true), { ...run('y', true), costUsd: 0.03 }, { ...run('z', true), costUsd: 0.04 }];
    expect(compareMeasure(a, b, (r) => r.costUsd)).toMatchObject({ lines: 1, medianA: 0.02, medianB: 0.03 });
    expect(compareMeasure([run('x', true)], [run('x', true)], (r) => r.costUsd)).toBeUndefined();
    expect(comparePaired([run('x', true)], [run('x', true)]).cost).toBeUndefined();
  });
});
