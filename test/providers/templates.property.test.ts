/**
 * Property: the fast frame templates (lib/providers/common/templates.ts) are exact. On any text
 * they return undefined or exactly what JSON.parse returns (same values, same key order), so a
 * decoder that tries them first behaves as one that always calls JSON.parse. Checked on frames
 * generated in the templates' shapes with random values (any UTF-16, escaped in every legal way),
 * on random edits of those frames, and on every frame of the fixture corpus.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSseFramer } from '../../lib/framing/sse.js';
import {
  createChatChunkParser,
  parseAnthropicDelta,
  parseChatChunk,
  parseResponsesDelta,
} from '../../lib/providers/common/templates.js';
import { FIXTURES, HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { loadProviderCorpus } from './corpus.js';

type Template = (text: string) => unknown;

/** The template's answer is undefined, or JSON.parse's value with the same key order. */
function expectExact(template: Template, text: string): boolean {
  const fast = template(text);
  if (fast === undefined) return false;
  const reference = JSON.parse(text) as unknown; // throws (fails the property) if the template accepted bad JSON
  expect(fast).toStrictEqual(reference);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference));
  return true;
}

/** One character written the way a JSON encoder may write it: raw, short escape or \u escape. */
const jsonChar = fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.nat(3)).map(([code, how]) => {
  const ch = String.fromCharCode(code);
  const short: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '/': '\\/',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
  };
  const hex = code.toString(16).padStart(4, '0');
  const unicode = '\\u' + (how === 2 ? hex.toUpperCase() : hex);
  if (how === 0 && code >= 0x20 && ch !== '"' && ch !== '\\') return ch;
  if (how === 1 && short[ch]) return short[ch];
  return code < 0x20 || ch === '"' || ch === '\\' || how >= 2 ? unicode : ch;
});
/** A JSON string token: mostly plain text (the common case), sometimes anything escaped any way. */
const stringToken = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.array(jsonChar, { maxLength: 12 }).map((cs) => `"${cs.join('')}"`),
  fc.constantFrom(
    '""',
    '"msg_67e554a28bec"',
    '" capital"',
    '"\\n\\n"',
    '"caf\\u00e9"',
    '"\\ud83d\\ude42"',
    '"\\ud800"',
  ),
);
const uintToken = fc
  .oneof(fc.nat(1000), fc.constantFrom(0, 9, 10, 999_999_999_999_999, 1_000_000_000_000_000, 2 ** 53 + 1))
  .map(String);
const optional = (member: fc.Arbitrary<string>) => fc.option(member, { nil: '' });

const deltaMembers = fc.array(
  fc.tuple(
    fc.constantFrom(
      'role',
      'content',
      'refusal',
      'reasoning',
      'reasoning_content',
      'channel',
      'tool_calls',
      '__proto__',
    ),
    fc.oneof(stringToken, fc.constant('null')),
  ),
  { maxLength: 4 },
);
const toolCallFragment = fc
  .tuple(uintToken, stringToken)
  .map(([index, args]) => `"tool_calls":[{"index":${index},"function":{"arguments":${args}}}]`);

const chatChunk = fc
  .record({
    id: stringToken,
    created: uintToken,
    model: stringToken,
    tier: optional(fc.oneof(stringToken, fc.constant('null')).map((v) => `,"service_tier":${v}`)),
    fingerprint: optional(fc.oneof(stringToken, fc.constant('null')).map((v) => `,"system_fingerprint":${v}`)),
    index: uintToken,
    // A delta of string/null members, a tool-call fragment, or both (which no template accepts).
    delta: fc.oneof(
      { weight: 3, arbitrary: fc.record({ toolCall: fc.constant(undefined), members: deltaMembers }) },
      { weight: 1, arbitrary: fc.record({ toolCall: toolCallFragment, members: fc.constant([]) }) },
      { weight: 1, arbitrary: fc.record({ toolCall: toolCallFragment, members: deltaMembers }) },
    ),
    logprobs: optional(fc.constant(',"logprobs":null')),
    usage: optional(fc.constant(',"usage":null')),
    obfuscation: optional(stringToken.map((v) => `,"obfuscation":${v}`)),
  })
  .map(
    (c) =>
      `{"id":${c.id},"object":"chat.completion.chunk","created":${c.created},"model":${c.model}${c.tier}${c.fingerprint},"choices":[{"index":${c.index},` +
      `"delta":{${[...(c.delta.toolCall ? [c.delta.toolCall] : []), ...c.delta.members.map(([k, v]) => `"${k}":${v}`)].join(',')}}` +
      `${c.logprobs},"finish_reason":null}]${c.usage}${c.obfuscation}}`,
  );

const responsesDelta = fc
  .record({
    type: fc.constantFrom(
      'output_text',
      'reasoning_summary_text',
      'reasoning_text',
      'function_call_arguments',
      'refusal',
    ),
    seq: optional(uintToken.map((v) => `,"sequence_number":${v}`)),
    lastSeq: optional(uintToken.map((v) => `,"sequence_number":${v}`)),
    itemId: stringToken,
    output: uintToken,
    sub: optional(
      fc.tuple(fc.constantFrom('content_index', 'summary_index'), uintToken).map(([k, v]) => `,"${k}":${v}`),
    ),
    delta: stringToken,
    logprobs: optional(fc.constant(',"logprobs":[]')),
    obfuscation: optional(stringToken.map((v) => `,"obfuscation":${v}`)),
  })
  .map(
    (e) =>
      `{"type":"response.${e.type}.delta"${e.seq},"item_id":${e.itemId},"output_index":${e.output}${e.sub},"delta":${e.delta}${e.logprobs}${e.obfuscation}${e.lastSeq}}`,
  );

const anthropicDelta = fc
  .record({
    index: uintToken,
    type: fc.constantFrom('text_delta', 'thinking_delta', 'input_json_delta', 'signature_delta'),
    key: fc.constantFrom('text', 'thinking', 'partial_json', 'signature'),
    value: stringToken,
    pad: fc.constantFrom('', ' ', '      ', '\n', '\t \r'),
  })
  .map(
    (d) =>
      `{"type":"content_block_delta","index":${d.index},"delta":{"type":"${d.type}","${d.key}":${d.value}}${d.pad}}`,
  );

/** Random small edits: the results are mostly invalid or off-template, sometimes still valid. */
const edit = fc.record({
  at: fc.nat(),
  len: fc.nat(3),
  text: fc.constantFrom(
    '',
    '"',
    '\\',
    '\\u',
    '\\x',
    '}',
    '{',
    ',',
    ':',
    ' ',
    '0',
    '01',
    '-1',
    '1.5',
    'null',
    '\u0001',
    '\u2028',
    'é',
    '[]',
    '\\"',
  ),
});
function applyEdits(text: string, edits: { at: number; len: number; text: string }[]): string {
  for (const e of edits) {
    const at = e.at % (text.length + 1);
    text = text.slice(0, at) + e.text + text.slice(at + e.len);
  }
  return text;
}

const cases: [string, Template, fc.Arbitrary<string>][] = [
  ['OpenAI chat chunks', parseChatChunk, chatChunk],
  ['OpenAI Responses deltas', parseResponsesDelta, responsesDelta],
  ['Anthropic content_block_delta frames', parseAnthropicDelta, anthropicDelta],
];

describe('the fast frame templates', () => {
  for (const [name, template, frames] of cases) {
    it(`return exactly what JSON.parse returns for generated ${name}, and accept most of them`, () => {
      let accepted = 0;
      fc.assert(
        fc.property(frames, (text) => {
          if (expectExact(template, text)) accepted++;
        }),
        { numRuns: 1500 },
      );
      expect(accepted).toBeGreaterThan(300);
    });

    it(`return undefined or JSON.parse's value for randomly edited ${name}`, () => {
      fc.assert(
        fc.property(frames, fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
          expectExact(template, applyEdits(text, edits));
        }),
        { numRuns: 1500 },
      );
    });
  }

  it('give the same answers from a stream parser that remembers the last head, frame after frame', () => {
    // Frames of one stream share their head (id ... "delta":{); edits land in the head or the
    // tail, and a stream may switch to another head. The remembering parser must answer every
    // frame as the stateless one does, whatever came before.
    const stream = fc.array(
      fc.tuple(
        chatChunk,
        fc.oneof(
          { weight: 3, arbitrary: fc.constant([]) },
          { weight: 1, arbitrary: fc.array(edit, { minLength: 1, maxLength: 2 }) },
        ),
        fc.boolean(),
      ),
      {
        minLength: 1,
        maxLength: 12,
      },
    );
    let accepted = 0;
    fc.assert(
      fc.property(stream, (frames) => {
        const parse = createChatChunkParser();
        let previous: string | undefined;
        for (const [frame, edits, sameHead] of frames) {
          let text = frame;
          if (sameHead && previous !== undefined) {
            // This frame's tail after the previous frame's head.
            const cut = frame.indexOf('"delta":{');
            const prevCut = previous.indexOf('"delta":{');
            if (cut >= 0 && prevCut >= 0) text = previous.slice(0, prevCut) + frame.slice(cut);
          }
          text = applyEdits(text, edits);
          previous = text;
          const fast = parse(text);
          expect(fast).toStrictEqual(parseChatChunk(text));
          if (expectExact(parse, text)) accepted++;
        }
      }),
      { numRuns: 500 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('return undefined for text that is no JSON at all, or JSON of another shape', () => {
    for (const template of [parseChatChunk, createChatChunkParser(), parseResponsesDelta, parseAnthropicDelta]) {
      for (const text of [
        '',
        '[DONE]',
        '{}',
        'null',
        '{"type":"ping"}',
        ' {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}',
      ]) {
        expect(template(text)).toBeUndefined();
      }
    }
  });
});

fixtureSkipNote();

describe.skipIf(!HAVE_FIXTURES)('the fast frame templates on the recorded fixtures', () => {
  it('match JSON.parse on every SSE frame of the corpus and accept the frequent shapes', () => {
    const templates: Partial<Record<string, Template>> = {
      'openai-chat': parseChatChunk,
      'openai-responses': parseResponsesDelta,
      anthropic: parseAnthropicDelta,
    };
    const accepted: Record<string, number> = {};
    for (const stream of HAVE_FIXTURES ? loadProviderCorpus(FIXTURES) : []) {
      const template = templates[stream.format];
      if (!template) continue;
      const framer = createSseFramer({
        onEvent: (e) => {
          for (const t of Object.values(templates))
            if (t && expectExact(t, e.data) && t === template)
              accepted[stream.format] = (accepted[stream.format] ?? 0) + 1;
        },
      });
      framer.feed(stream.bytes);
      framer.end();
    }
    expect(accepted['openai-chat']).toBeGreaterThan(500);
    expect(accepted['openai-responses']).toBeGreaterThan(500);
    expect(accepted.anthropic).toBeGreaterThan(100);
  });
});
