import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../lib/random.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

describe('pass@k measured end to end', () => {
  it('estimates pass@1 and pass@5 of a provider that passes each attempt with p = 0.3 (seeded) over 100 lines x 5 epochs within the expected error', async () => {
    const p = 0.3;
    const rand = mulberry32(20261207);
    const ids = Array.from({ length: 100 }, (_, i) => ({ id: `t${i}`, expect: { includes: 'PASS' } }));
    const { result, out, seen } = await scriptedBatch(
      ids,
      () => ({ text: rand() < p ? 'PASS' : 'FAIL', usage: { inputTokens: 10, outputTokens: 1 } }),
      ['--epochs', '5', '--concurrency', '16'],
    );
    expect(result.code, result.stderr).toBe(0);
    expect([...seen.values()].every((n) => n === 5)).toBe(true);
    const e = (
      JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as {
        evaluation: { runs: number; passAtK: Record<string, number> };
      }
    ).evaluation;
    expect(e.runs).toBe(500);
    // Standard errors: pass@1 over 500 Bernoulli(p) attempts, pass@5 over 100 lines of 1 - (1-p)^5.
    expect(Math.abs(e.passAtK['1']! - p)).toBeLessThan(3 * Math.sqrt((p * (1 - p)) / 500));
    const q = 1 - (1 - p) ** 5;
    expect(Math.abs(e.passAtK['5']! - q)).toBeLessThan(3 * Math.sqrt((q * (1 - q)) / 100));
  }, 300_000);
});
