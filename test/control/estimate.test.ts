/** Token estimation: the density table, classification, the provider-usage anchor. */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { classify, DEFAULT_DENSITIES, estimateTextTokens } from '../../lib/control/density.js';
import { createContextEstimator, estimateMessagesTokens } from '../../lib/control/estimate.js';
import { countBounded } from '../../lib/control/exact-count.js';
import type { TranscriptMessage } from '../../lib/control/transcript.js';

const code =
  'export function add(a: number, b: number): number {\n  if (a < 0) { throw new Error("neg"); }\n  return a + b;\n}\n'.repeat(
    20,
  );
const json = JSON.stringify(
  Array.from({ length: 30 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', 'b'], ok: i % 2 === 0 })),
);
const prose =
  'The control plane decides when a run compacts its context and why it stopped. Operators read the reason in the event stream. '.repeat(
    10,
  );
const cjk = '这是一个用于测试的中文句子，包含一些常见的汉字。今日はいい天気ですね。'.repeat(10);

describe('the density table', () => {
  it('starts from the measured o200k values', () => {
    expect(DEFAULT_DENSITIES).toMatchObject({ code: 4.0, json: 2.7, prose: 4.2, cjkTokensPerChar: 0.7 });
  });

  it('classifies code, JSON, prose and CJK', () => {
    expect(classify(code)).toBe('code');
    expect(classify(json)).toBe('json');
    expect(classify(prose)).toBe('prose');
    expect(classify(cjk)).toBe('cjk');
  });

  it('estimates each kind within 35% of the exact o200k count', () => {
    for (const text of [code, json, prose, cjk]) {
      const exact = countTokens(text);
      expect(Math.abs(estimateTextTokens(text) - exact) / exact).toBeLessThan(0.35);
    }
  });

  it('classifies a very long text from samples', () => {
    expect(classify(code.repeat(100))).toBe('code');
  });
});

describe('the anchored estimator', () => {
  const fixed = { system: 'sys', toolSchemas: [] };
  const messages: TranscriptMessage[] = [
    { role: 'user', text: prose },
    { role: 'assistant', text: prose },
  ];

  it('uses the heuristic before any provider usage', () => {
    const e = createContextEstimator();
    expect(e.correction).toBe(1);
    expect(e.estimate(fixed, messages)).toBeGreaterThan(0);
  });

  it('adds the heuristic delta since the last reported input tokens', () => {
    const e = createContextEstimator();
    e.observeUsage(5_000, fixed, messages);
    const more: TranscriptMessage[] = [...messages, { role: 'tool', toolCallId: 't', content: code }];
    const delta = estimateMessagesTokens([{ role: 'tool', toolCallId: 't', content: code }]);
    expect(e.estimate(fixed, more)).toBe(5_000 + Math.round(delta * e.correction));
  });

  it('corrects the heuristic from the provider counts as the run goes', () => {
    const e = createContextEstimator();
    const raw = e.estimate(fixed, messages);
    e.observeUsage(raw * 1.5, fixed, messages);
    expect(e.correction).toBeCloseTo(1.25, 5);
    e.observeUsage(raw * 1.5, fixed, messages);
    expect(e.correction).toBeCloseTo(1.375, 5);
  });

  it('ignores an absent usage: unknown is not zero', () => {
    const e = createContextEstimator();
    e.observeUsage(undefined, fixed, messages);
    expect(e.anchor).toBeUndefined();
    expect(e.correction).toBe(1);
  });

  it('drops the anchor after a compaction rewrote the transcript', () => {
    const e = createContextEstimator();
    e.observeUsage(5_000, fixed, messages);
    e.invalidate();
    expect(e.anchor).toBeUndefined();
  });
});

describe('bounded exact counting', () => {
  it('is exact on ordinary text and within one token per slice on a long uniform run', () => {
    expect(countBounded(prose + code, countTokens)).toBe(countTokens(prose + code));
    const run = 'ab'.repeat(6_000);
    const exact = countTokens(run);
    expect(Math.abs(countBounded(run, countTokens) - exact)).toBeLessThanOrEqual(Math.ceil(run.length / 1_024));
  });
});
