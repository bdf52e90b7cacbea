import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../lib/batch/records.js';
import { comparePaired, mcnemarExact } from '../../lib/batch/report/significance.js';

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
});
