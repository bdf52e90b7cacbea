/**
 * Every stream fixture in ../shared/fixtures/providers/ decodes, and this table states per
 * fixture what a person would check: the final text (exact, or its start and length when
 * long), the tool calls (name + parsed arguments), the usage, the outcome and stop reason or
 * the error, and the diagnostics raised. The same events result from feeding the bytes whole,
 * one byte at a time and at seeded random splits.
 */
import { describe, expect, it } from 'vitest';
import { payloadSchemas } from '../../lib/events/index.js';
import { FIXTURES, HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { loadProviderCorpus } from './corpus.js';
import { byteByByte, randomSplits } from '../helpers/splits.js';
import { decode, summarise } from './summary.js';

type Row = {
  text: string | { start: string; length: number };
  toolCalls: { name: string; arguments: unknown }[];
  usage?: Record<string, number>;
  outcome: string;
  stopReason?: string;
  errors?: string[];
  refusal?: string;
  reasoning?: boolean;
  diagnostics?: string[];
};

const EXPECTED: Record<string, Row> = {
  'openai-chat/oc01-text-finish-usage-gpt5.sse': {
    text: 'Paris.',
    toolCalls: [],
    usage: { inputTokens: 13, outputTokens: 11, totalTokens: 24, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-chat/oc02-single-tool-call-usage.sse': {
    text: '',
    toolCalls: [{ name: 'get_capital', arguments: { country: 'UK' } }],
    usage: { inputTokens: 53, outputTokens: 15, totalTokens: 68, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'openai-chat/oc03-text-after-tool.sse': {
    text: 'The capital of the UK is London.',
    toolCalls: [],
    usage: { inputTokens: 78, outputTokens: 9, totalTokens: 87, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-chat/oc05-tool-call-long-args.sse': {
    text: '',
    toolCalls: [
      {
        name: 'final_result',
        arguments: {
          answers: [
            { label: 'Capital of the country', answer: 'Mexico City' },
            { label: 'Weather in the capital', answer: 'Sunny' },
            { label: 'Product Name', answer: 'Pydantic AI' },
          ],
        },
      },
    ],
    usage: { inputTokens: 448, outputTokens: 49, totalTokens: 497, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'openai-chat/oc06-deepseek-reasoning-content.sse': {
    text: 'Hello there! 😊 How can I help you today?',
    toolCalls: [],
    usage: { inputTokens: 6, outputTokens: 212, totalTokens: 218, cacheReadTokens: 0, reasoningTokens: 198 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'openai-chat/oc07-groq-midstream-event-error.sse': {
    text: '',
    toolCalls: [],
    outcome: 'error',
    stopReason: 'error',
    errors: ['invalid_request_error'],
  },
  'openai-chat/oc08-groq-reasoning-tool-call.sse': {
    text: '',
    toolCalls: [{ name: 'get_something_by_name', arguments: { name: 'example' } }],
    usage: { inputTokens: 304, outputTokens: 49, totalTokens: 353, reasoningTokens: 23 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'openai-chat/oc10-openrouter-reasoning.sse': {
    text: '2 + 2 = 4',
    toolCalls: [],
    usage: { inputTokens: 43, outputTokens: 36, totalTokens: 79, cacheReadTokens: 0, reasoningTokens: 13 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'openai-chat/oc90-midstream-error-object.synth.sse': {
    text: 'The',
    toolCalls: [],
    outcome: 'error',
    stopReason: 'error',
    errors: ['server_error'],
  },
  'openai-chat/vercel-anthropic-fallback-tool-call.sse': {
    text: 'Reading it.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
    outcome: 'completed',
    stopReason: 'tool_use',
    diagnostics: ['MINICODE_E_DECODE_TRUNCATED_FRAME'],
  },
  'openai-chat/vercel-azure-model-router.1.chunks.txt': {
    text: 'Capital of Denmark.',
    toolCalls: [],
    usage: { inputTokens: 15, outputTokens: 78, totalTokens: 93, cacheReadTokens: 0, reasoningTokens: 64 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-chat/vercel-deepseek-tool-call.chunks.txt': {
    text: '',
    toolCalls: [{ name: 'weather', arguments: { location: 'San Francisco' } }],
    usage: { inputTokens: 339, outputTokens: 83, totalTokens: 422, cacheReadTokens: 320, reasoningTokens: 39 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'openai-chat/vercel-groq-tool-call.chunks.txt': {
    text: '',
    toolCalls: [{ name: 'weather', arguments: {} }],
    usage: { inputTokens: 210, outputTokens: 15, totalTokens: 225 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'openai-chat/vercel-openai-text.chunks.txt': {
    text: { start: '**Holiday Name:** Harmony Day\n', length: 1724 },
    toolCalls: [],
    usage: { inputTokens: 16, outputTokens: 300, totalTokens: 316, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-responses/or01-function-call.sse': {
    text: '',
    toolCalls: [{ name: 'get_capital', arguments: { country: 'France' } }],
    usage: { inputTokens: 255, outputTokens: 16, totalTokens: 271, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'openai-responses/or02-text-after-tool.sse': {
    text: 'The capital of France is Paris.',
    toolCalls: [],
    usage: { inputTokens: 278, outputTokens: 9, totalTokens: 287, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-responses/or03-reasoning-summary-long.sse': {
    text: { start: "I'm not a road safety professi", length: 1251 },
    toolCalls: [],
    usage: { inputTokens: 13, outputTokens: 1680, totalTokens: 1693, cacheReadTokens: 0, reasoningTokens: 1408 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'openai-responses/or05-usage-two-calls.sse': {
    text: '',
    toolCalls: [{ name: 'final_result', arguments: { result: 6666 } }],
    usage: { inputTokens: 53, outputTokens: 469, totalTokens: 522, cacheReadTokens: 0, reasoningTokens: 448 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'openai-responses/or06-background-resume-starting-after.sse': {
    text: '2 + 2 equals 4.',
    toolCalls: [],
    usage: { inputTokens: 15, outputTokens: 9, totalTokens: 24, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'openai-responses/or07-openrouter-responses-done.sse': {
    text: '4',
    toolCalls: [],
    usage: { inputTokens: 78, outputTokens: 37, totalTokens: 115, cacheReadTokens: 0, reasoningTokens: 22 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'openai-responses/vercel-lmstudio-tool-call.1.chunks.txt': {
    text: "I'll get the current weather information for San Francisco for you.",
    toolCalls: [{ name: 'weather', arguments: { location: 'San Francisco' } }],
    usage: { inputTokens: 182, outputTokens: 61, totalTokens: 243, cacheReadTokens: 2, reasoningTokens: 48 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'openai-responses/vercel-openai-custom-tool.1.chunks.txt': {
    text: '',
    toolCalls: [{ name: 'write_sql', arguments: 'SELECT * FROM users WHERE age > 25' }],
    usage: { inputTokens: 50, outputTokens: 20, totalTokens: 70, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'openai-responses/vercel-openai-error.1.chunks.txt': {
    text: '',
    toolCalls: [],
    outcome: 'error',
    stopReason: 'error',
    errors: ['insufficient_quota'],
  },
  'openai-responses/vercel-openai-reasoning-encrypted-content.1.chunks.txt': {
    text: 'The final result is **570**.',
    toolCalls: [
      { name: 'calculator', arguments: { a: 12, b: 7, op: 'add' } },
      { name: 'calculator', arguments: { a: 19, b: 3, op: 'multiply' } },
      { name: 'calculator', arguments: { a: 57, b: 10, op: 'multiply' } },
    ],
    usage: { inputTokens: 299, outputTokens: 12, totalTokens: 311, cacheReadTokens: 0, reasoningTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'openai-responses/vercel-parallel-tool-call-wrapper.1.chunks.txt': {
    text: '',
    toolCalls: [
      {
        name: 'parallel',
        arguments: {
          tool_uses: [
            { recipient_name: 'functions.weather', parameters: { location: 'San Francisco' } },
            { recipient_name: 'functions.cityAttractions', parameters: { city: 'Rome' } },
          ],
        },
      },
    ],
    outcome: 'truncated',
    diagnostics: ['MINICODE_E_DECODE_BAD_JSON', 'MINICODE_E_DECODE_BAD_JSON', 'MINICODE_E_DECODE_NO_TERMINATOR'],
  },
  'anthropic/an01-text-small.sse': {
    text: '2',
    toolCalls: [],
    usage: { inputTokens: 20, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'anthropic/an02-thinking-signature-text.sse': {
    text: { start: 'Here are the basic steps for s', length: 1021 },
    toolCalls: [],
    usage: { inputTokens: 43, outputTokens: 282, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'anthropic/an03-redacted-thinking.sse': {
    text: { start: "I notice that you've sent what", length: 359 },
    toolCalls: [],
    usage: { inputTokens: 92, outputTokens: 189, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'anthropic/an04-client-tool-use.sse': {
    text: { start: 'Let me search for a tool that ', length: 158 },
    toolCalls: [
      { name: 'tool_search_tool_bm25', arguments: { query: 'USD EUR exchange rate currency conversion' } },
      { name: 'get_exchange_rate', arguments: { from_currency: 'USD', to_currency: 'EUR' } },
    ],
    usage: { inputTokens: 1591, outputTokens: 175, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'anthropic/an07-code-execution-thinking.sse': {
    text: { start: "I'll calculate that expression", length: 501 },
    toolCalls: [{ name: 'bash_code_execution', arguments: { command: 'echo "65465-6544 * 65464-6+1.02255" | bc -l' } }],
    usage: { inputTokens: 4714, outputTokens: 304, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'anthropic/an08-compaction-cache-usage.sse': {
    text: 'Hello! 👋',
    toolCalls: [],
    usage: { inputTokens: 181, outputTokens: 8, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'anthropic/an90-midstream-overloaded.synth.sse': {
    text: '2',
    toolCalls: [],
    usage: { inputTokens: 20, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'error',
    stopReason: 'error',
    errors: ['overloaded_error'],
  },
  'anthropic/sdk-fable-stream-a-refusal.sse': {
    text: 'Hi',
    toolCalls: [],
    usage: { inputTokens: 28, outputTokens: 106, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'refusal',
    refusal: 'refused',
    reasoning: true,
  },
  'anthropic/sdk-fable-stream-b-fallback.sse': {
    text: { start: ' there! Happy to explain.\n\n**S', length: 1312 },
    toolCalls: [],
    usage: { inputTokens: 31, outputTokens: 547, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'anthropic/vercel-anthropic-json-tool.1.chunks.txt': {
    text: '',
    toolCalls: [
      { name: 'json', arguments: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] } },
    ],
    usage: { inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'anthropic/vercel-anthropic-message-delta-input-tokens.chunks.txt': {
    text: 'pong',
    toolCalls: [],
    usage: { inputTokens: 61, outputTokens: 2 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'anthropic/vercel-anthropic-refusal.chunks.txt': {
    text: '',
    toolCalls: [],
    usage: { inputTokens: 18, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    outcome: 'completed',
    stopReason: 'refusal',
    refusal: 'This request triggered restrictions on v',
  },
  'anthropic/vercel-duplicate-message-start.chunks.txt': {
    text: 'Hello, World!',
    toolCalls: [],
    usage: { inputTokens: 17, outputTokens: 227 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'anthropic/vercel-spliced-message-start.chunks.txt': {
    text: '',
    toolCalls: [{ name: 'test-tool', arguments: { value: 'Sparkle Day' } }],
    usage: { inputTokens: 17, outputTokens: 65 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
    diagnostics: ['MINICODE_E_DECODE_SPLICED_RESPONSE', 'MINICODE_E_DECODE_TOOL_CALL_UNFINISHED'],
  },
  'gemini/ge01-text.sse': {
    text: 'The capital of France is Paris.\n',
    toolCalls: [],
    usage: { inputTokens: 13, totalTokens: 21, outputTokens: 8 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'gemini/ge02-function-call.sse': {
    text: '',
    toolCalls: [{ name: 'get_capital', arguments: { country: 'France' } }],
    usage: { inputTokens: 52, outputTokens: 5, totalTokens: 57 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'gemini/ge03-thinking-thought-parts.sse': {
    text: { start: 'This is a great question! Safe', length: 1938 },
    toolCalls: [],
    usage: { inputTokens: 34, reasoningTokens: 787, totalTokens: 1290, outputTokens: 469 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'gemini/ge05-usage-mid-stream.sse': {
    text: { start: '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n', length: 80 },
    toolCalls: [],
    usage: { inputTokens: 18, outputTokens: 80, reasoningTokens: 35, totalTokens: 133 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'gemini/ge06-vertex-flex.sse': {
    text: 'OK',
    toolCalls: [],
    usage: { inputTokens: 5, outputTokens: 1, reasoningTokens: 100, totalTokens: 106 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'gemini/jsgenai-vertex-streaming-function-call-args.recording.json#0': {
    text: '',
    toolCalls: [{ name: 'customDivide', arguments: { denominator: 2, numerator: 100 } }],
    usage: { inputTokens: 21, outputTokens: 13, reasoningTokens: 44, totalTokens: 78 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'gemini/jsgenai-vertex-streaming-function-call-args.recording.json#1': {
    text: 'The result of 100/2 is 51.',
    toolCalls: [],
    usage: { inputTokens: 34, outputTokens: 14, totalTokens: 48 },
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'gemini/vercel-google-reasoning-gemini3.chunks.txt': {
    text: 'There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y',
    toolCalls: [],
    usage: { inputTokens: 9, outputTokens: 23, reasoningTokens: 302, totalTokens: 334 },
    outcome: 'completed',
    stopReason: 'end_turn',
    reasoning: true,
  },
  'gemini/vercel-google-stream-tool-call-arguments.chunks.txt': {
    text: '',
    toolCalls: [
      { name: 'getWeather', arguments: { location: 'Boston' } },
      { name: 'getWeather', arguments: { location: 'San Francisco' } },
    ],
    usage: { inputTokens: 26, outputTokens: 23, reasoningTokens: 132, totalTokens: 181 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
  'ollama/ol01-generate-stream.docs.ndjson': {
    text: "That's a fantastic question!",
    toolCalls: [],
    outcome: 'completed',
    stopReason: 'end_turn',
  },
  'ollama/ol02-generate-midstream-error.docs.ndjson': {
    text: ' Yes.Ican',
    toolCalls: [],
    outcome: 'error',
    stopReason: 'error',
    errors: ['ollama_error'],
  },
  'ollama/ol04-chat-tool-call.synth.ndjson': {
    text: '',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
    usage: { inputTokens: 169, outputTokens: 15 },
    outcome: 'completed',
    stopReason: 'tool_use',
  },
  'ollama/ol05-chat-midstream-error.synth.ndjson': {
    text: ' Yes.',
    toolCalls: [],
    outcome: 'error',
    stopReason: 'error',
    errors: ['ollama_error'],
  },
  'ollama/ol06-openai-compat-reasoning-tool.synth.sse': {
    text: '',
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
    usage: { inputTokens: 169, outputTokens: 15, totalTokens: 184 },
    outcome: 'completed',
    stopReason: 'tool_use',
    reasoning: true,
  },
};

fixtureSkipNote();
const corpus = HAVE_FIXTURES ? loadProviderCorpus(FIXTURES) : [];

describe.skipIf(!HAVE_FIXTURES)('every provider fixture', () => {
  it('has an expectation row for every stream fixture, and a fixture for every row', () => {
    expect(corpus.map((s) => s.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const stream of corpus) {
    it(`decodes ${stream.name} to the stated text, tool calls, usage and outcome`, () => {
      const events = decode(stream.format, [stream.bytes]);
      const s = summarise(events);
      const want = EXPECTED[stream.name]!;
      if (typeof want.text === 'string') expect(s.text).toBe(want.text);
      else {
        expect(s.text.slice(0, want.text.start.length)).toBe(want.text.start);
        expect(s.text.length).toBe(want.text.length);
      }
      expect(s.toolCalls).toEqual(want.toolCalls);
      expect(s.usage).toEqual(want.usage);
      expect(s.outcome).toBe(want.outcome);
      expect(s.stopReason).toBe(want.stopReason);
      expect(s.errors).toEqual(want.errors ?? []);
      expect(s.refusal?.slice(0, 40)).toBe(want.refusal);
      expect(s.reasoning).toBe(want.reasoning ?? false);
      expect(s.diagnostics).toEqual(want.diagnostics ?? []);
      // Exactly one terminal per response, and every payload satisfies the contract.
      expect(events.filter((e) => e.type === 'model.response.completed').length).toBe(
        events.filter((e) => e.type === 'model.response.started').length,
      );
      for (const e of events)
        expect(
          payloadSchemas[e.type].safeParse(e.payload).success,
          `${e.type} ${JSON.stringify(e.payload).slice(0, 200)}`,
        ).toBe(true);
    });

    it(`gives identical events for ${stream.name} whole, byte by byte and at seeded random splits`, () => {
      const whole = decode(stream.format, [stream.bytes]);
      expect(decode(stream.format, byteByByte(stream.bytes))).toEqual(whole);
      for (const seed of [1, 2, 3]) expect(decode(stream.format, randomSplits(stream.bytes, seed))).toEqual(whole);
    });
  }
});
