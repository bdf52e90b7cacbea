import { afterAll, describe, expect, it } from 'vitest';
import { parseLine } from '../../lib/batch/input.js';
import type { Answer } from '../helpers/scripted-provider.js';
import { readRecords } from './helpers.js';
import { closeScriptedBatches, scriptedBatch } from './scripted-batch.js';

afterAll(closeScriptedBatches);

const answer = (text: string): Answer => ({ text, usage: { inputTokens: 10, outputTokens: 2 } });

describe("a batch line's expect", () => {
  it('scores each run with equals, includes and regex, keeps every verdict in the record and passes a run only when all passed', async () => {
    const { result, out } = await scriptedBatch(
      [
        { id: 'right', expect: { equals: ' 42 ', includes: ['4', '2'], regex: '^\\d+$' } },
        { id: 'wrong', expect: { equals: '42', includes: 'forty', regex: '^\\d+$' } },
        { id: 'plain' },
      ],
      (id) => answer(id === 'right' ? '42' : '41'),
    );
    // Every run completed: a failed scorer is an outcome, not an error record.
    expect(result.code, result.stderr).toBe(0);
    const byId = new Map(readRecords<Record<string, any>>(out).map((r) => [r.id, r]));
    expect(byId.get('right')).toMatchObject({
      passed: true,
      scores: [
        { scorer: 'equals', passed: true },
        { scorer: 'includes', passed: true },
        { scorer: 'regex', passed: true },
      ],
    });
    expect(byId.get('wrong')).toMatchObject({
      passed: false,
      scores: [
        { scorer: 'equals', passed: false, detail: 'the answer is not "42"' },
        { scorer: 'includes', passed: false, detail: 'the answer lacks "forty"' },
        { scorer: 'regex', passed: true },
      ],
    });
    expect(byId.get('plain')).toMatchObject({ passed: true });
    expect(byId.get('plain')!.scores).toBeUndefined();
  }, 90_000);

  it('refuses an expect with an unknown scorer or a regex that does not compile as a line shape error', () => {
    expect(parseLine('{"id":"a","prompt":"x","expect":{"contains":"y"}}', 1)).toMatchObject({
      code: 'MINICODE_E_BATCH_LINE_SHAPE',
    });
    expect(parseLine('{"id":"a","prompt":"x","expect":{"regex":"("}}', 2)).toMatchObject({
      code: 'MINICODE_E_BATCH_LINE_SHAPE',
      message: expect.stringContaining('regular expression'),
    });
    expect(parseLine('{"id":"a","prompt":"x","expect":{}}', 3)).toMatchObject({ code: 'MINICODE_E_BATCH_LINE_SHAPE' });
  });

  it('checks the typed result against expect.jsonSchema, failing a run that submitted none', async () => {
    const { scoreRecord } = await import('../../lib/batch/scorers.js');
    const schema = { type: 'object', properties: { verdict: { enum: ['pass', 'fail'] } }, required: ['verdict'] };
    const base = {
      kind: 'result',
      id: 'a',
      line: 1,
      outcome: 'completed',
      reason: 'completed',
      finalText: '',
    } as const;
    expect(await scoreRecord({ ...base, result: { verdict: 'pass' } }, { jsonSchema: schema })).toEqual([
      { scorer: 'jsonSchema', passed: true },
    ]);
    expect((await scoreRecord({ ...base, result: { verdict: 'maybe' } }, { jsonSchema: schema }))[0]).toMatchObject({
      passed: false,
    });
    expect((await scoreRecord(base, { jsonSchema: schema }))[0]).toMatchObject({
      passed: false,
      detail: expect.stringContaining('no typed result'),
    });
  });
});
