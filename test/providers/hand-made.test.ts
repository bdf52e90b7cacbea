/**
 * Our own hand-made streams (test/streams/, see its README): they run on a bare clone, one or
 * more per decoder, and pin the behaviours the recordings only show in passing.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { loadHandMadeCorpus } from './corpus.js';
import { byteByByte, randomSplits } from '../helpers/splits.js';
import { decode, summarise } from './summary.js';

const corpus = loadHandMadeCorpus(path.join(ROOT, 'test/streams'));
const byName = (n: string) => {
  const s = corpus.find((c) => c.name === `hand-made/${n}`);
  if (!s) throw new Error(`missing hand-made stream ${n}`);
  return s;
};
const run = (n: string) => {
  const s = byName(n);
  const events = decode(s.format, [s.bytes]);
  return { events, sum: summarise(events) };
};

describe('the hand-made streams', () => {
  it('are all present (eight files over five formats)', () => {
    expect(corpus).toHaveLength(8);
    expect(new Set(corpus.map((c) => c.format)).size).toBe(5);
  });

  it('decode identically whole, byte by byte and at seeded random splits', () => {
    for (const s of corpus) {
      const whole = decode(s.format, [s.bytes]);
      expect(decode(s.format, byteByByte(s.bytes)), s.name).toEqual(whole);
      expect(decode(s.format, randomSplits(s.bytes, 7, 16)), s.name).toEqual(whole);
    }
  });

  it('openai-chat: two parallel calls, the second continued without an index, end as two parsed calls', () => {
    const { events, sum } = run('openai-chat/parallel-tools-missing-index.sse');
    expect(sum.text).toBe('Checking both cities: é漢🙂.');
    expect(sum.toolCalls).toEqual([
      { name: 'weather', arguments: { city: 'Rome' } },
      { name: 'weather', arguments: { city: 'Oslo' } },
    ]);
    expect(sum).toMatchObject({
      outcome: 'completed',
      stopReason: 'tool_use',
      usage: { inputTokens: 40, outputTokens: 30, totalTokens: 70, cacheReadTokens: 8 },
    });
    const completed = events.filter((e) => e.type === 'assistant.tool_call.completed');
    expect(completed.map((e) => e.correlationId)).toEqual(['call_a', 'call_b']);
    expect(events.every((e) => e.fidelity === 'native' || e.fidelity === 'synthetic')).toBe(true);
  });

  it('openai-chat: a stream cut before finish_reason and [DONE] is truncated, never completed', () => {
    const { events, sum } = run('openai-chat/truncated-after-text.sse');
    expect(sum.outcome).toBe('truncated');
    const truncated = events.find((e) => e.type === 'assistant.message.truncated');
    expect(truncated?.payload).toMatchObject({ text: 'The answer is probably', reason: 'stream-ended' });
    expect(truncated?.fidelity).toBe('synthetic');
    expect(events.some((e) => e.type === 'assistant.message.completed')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'model.response.completed', fidelity: 'synthetic' });
    expect(sum.diagnostics).toEqual(['MINICODE_E_DECODE_NO_TERMINATOR']);
  });

  it('openai-responses: rotating item ids keep the first call id; encrypted reasoning stays opaque', () => {
    const { events, sum } = run('openai-responses/rotating-item-ids.sse');
    expect(sum.toolCalls).toEqual([{ name: 'clock', arguments: { tz: 'UTC' } }]);
    const ids = new Set(events.filter((e) => e.type.startsWith('assistant.tool_call')).map((e) => e.correlationId));
    expect([...ids]).toEqual(['call_hand']);
    const reasoning = events.find((e) => e.type === 'assistant.reasoning.completed');
    expect(reasoning?.payload).toMatchObject({ text: 'Need the time.', data: 'gAAAA-opaque-hand-made' });
    expect(sum).toMatchObject({
      outcome: 'completed',
      stopReason: 'tool_use',
      usage: { inputTokens: 20, outputTokens: 12, reasoningTokens: 5, totalTokens: 32, cacheReadTokens: 0 },
    });
  });

  it('anthropic: an overloaded error mid-tool-call is an error outcome with a limit, and the cut call never completes', () => {
    const { events, sum } = run('anthropic/thinking-tool-overloaded.sse');
    expect(sum.outcome).toBe('error');
    expect(sum.toolCalls).toEqual([]);
    const err = events.find((e) => e.type === 'error.raised');
    expect(err?.payload).toMatchObject({
      error: { category: 'PROVIDER_ERROR', code: 'overloaded_error', recoverability: 'RETRYABLE' },
    });
    expect(events.find((e) => e.type === 'limit.reached')?.payload).toMatchObject({ kind: 'overloaded' });
    expect(sum.diagnostics).toContain('MINICODE_E_DECODE_TOOL_CALL_UNFINISHED');
    const reasoning = events.find((e) => e.type === 'assistant.reasoning.completed');
    expect(reasoning?.payload).toMatchObject({ text: 'List the files.', signature: 'c2lnLWhhbmQ=' });
  });

  it('anthropic: CRLF framing, a comment and a data-less ping still give text, a parsed call and usage', () => {
    const { sum } = run('anthropic/text-tool-complete.sse');
    expect(sum).toMatchObject({
      text: 'Reading it.',
      toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
      outcome: 'completed',
      stopReason: 'tool_use',
      usage: { inputTokens: 12, outputTokens: 21 },
      diagnostics: [],
    });
  });

  it('gemini: a thought with signature, text and a whole call ending with STOP is tool use', () => {
    const { events, sum } = run('gemini/text-thought-call.sse');
    expect(sum).toMatchObject({
      text: 'Looking it up.',
      toolCalls: [{ name: 'lookup', arguments: { q: 'tides', n: 2 } }],
      outcome: 'completed',
      stopReason: 'tool_use',
    });
    expect(sum.usage).toEqual({ inputTokens: 11, outputTokens: 9, reasoningTokens: 9, totalTokens: 29 });
    expect(events.find((e) => e.type === 'assistant.reasoning.completed')?.payload).toMatchObject({
      text: 'Weighing the request.',
      signature: 'c2ln',
    });
  });

  it('ollama: chat thinking, text and a whole tool call end as tool use with usage', () => {
    const { sum } = run('ollama/chat-thinking-tool.ndjson');
    expect(sum).toMatchObject({
      text: 'Let me check <Tokyo>.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
      outcome: 'completed',
      stopReason: 'tool_use',
      usage: { inputTokens: 50, outputTokens: 12 },
      reasoning: true,
    });
  });

  it('ollama: a broken line becomes a diagnostic with its line number and decoding resumes', () => {
    const { events, sum } = run('ollama/generate-bad-line.ndjson');
    expect(sum).toMatchObject({
      text: 'Hellold!',
      outcome: 'completed',
      stopReason: 'max_tokens',
      diagnostics: ['MINICODE_E_DECODE_BAD_JSON'],
    });
    expect(events.find((e) => e.type === 'diagnostic.raised')?.payload).toMatchObject({ line: 2 });
    expect(events.find((e) => e.type === 'limit.reached')?.payload).toMatchObject({ kind: 'max-tokens' });
  });
});
