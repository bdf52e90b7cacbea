import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capHeadTail, createBoundedCollector } from '../../lib/tools/truncate.js';

describe('output capping', () => {
  it('leaves text under the cap untouched', () => {
    expect(capHeadTail('short', 100)).toEqual({ text: 'short', truncated: false });
  });

  it('keeps 70% head and 30% tail with a marker saying how much was dropped', () => {
    const { text, truncated } = capHeadTail('a'.repeat(100) + 'b'.repeat(100), 100);
    expect(truncated).toBe(true);
    expect(text).toBe(`${'a'.repeat(70)}\n[... 100 characters truncated by minicode ...]\n${'b'.repeat(30)}`);
  });

  it('collects a stream in any split to the same result as capping the whole text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
        fc.integer({ min: 10, max: 200 }),
        (text, cuts, max) => {
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const collector = createBoundedCollector(max);
          let at = 0;
          for (const p of [...points, text.length]) {
            collector.push(text.slice(at, p));
            at = p;
          }
          const result = collector.result();
          const expected = capHeadTail(text, max);
          expect(result.text).toBe(expected.text);
          expect(result.truncated).toBe(expected.truncated);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});
