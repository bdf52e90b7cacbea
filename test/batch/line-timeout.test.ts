import { afterAll, describe, expect, it } from 'vitest';
import type { Answer } from '../helpers/scripted-provider.js';
import { readRecords } from './helpers.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

const ok: Answer = { text: 'done', usage: { inputTokens: 10, outputTokens: 2 } };

describe('minicode batch --line-timeout', () => {
  for (const threads of ['0', '1']) {
    it(`ends a line whose run hangs, and one whose verify hangs, as line_timeout without a retry, the others completing (--threads ${threads})`, async () => {
      const started = Date.now();
      const { result, out, seen } = await scriptedBatch(
        [
          'fast',
          'hangs',
          // Its run answers at once; its verify command would sleep a minute: the line's own timeout covers it.
          { id: 'slowverify', verify: 'sleep 60', timeout: 1500 },
          // A line's own timeout wins over the flag.
          { id: 'roomy', timeout: 120_000 },
        ],
        (id) => (id === 'hangs' ? 'hang' : ok),
        ['--line-timeout', '1500', '--threads', threads, '--verify-soft'],
      );
      expect(result.code, result.stderr).toBe(1);
      const results = readRecords<Record<string, any>>(out);
      expect(results.map((r) => r.id).sort()).toEqual(['fast', 'roomy']);
      const errors = new Map(readRecords<Record<string, any>>(out, 'errors.jsonl').map((r) => [r.id, r]));
      expect([...errors.keys()].sort()).toEqual(['hangs', 'slowverify']);
      for (const id of ['hangs', 'slowverify']) {
        expect(errors.get(id)).toMatchObject({
          kind: 'error',
          outcome: 'cancelled',
          reason: 'line_timeout',
          passed: false,
          error: { code: 'MINICODE_E_LINE_TIMEOUT' },
        });
        expect(errors.get(id)!.retries).toBeUndefined();
      }
      // The hanging run was stopped, not retried: one request.
      expect(seen.get('hangs')).toBe(1);
      // Nobody waited for the minute of sleep.
      expect(Date.now() - started).toBeLessThan(60_000);
    }, 120_000);
  }
});
