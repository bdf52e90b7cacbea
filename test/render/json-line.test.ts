import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonLine, jsonTextDelta } from '../../lib/render/json-line.js';

// The rule as first written (one regex replace over every line): the fast paths must match it.
const UNSAFE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;
const reference = (value: unknown): string =>
  JSON.stringify(value).replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

// Strings mixing ASCII (with DEL), the unsafe characters, other non-ASCII and lone surrogates.
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme-ascii' }),
      fc.constantFrom(
        '\u007f',
        '\u0085',
        '\u009b',
        '\u061c',
        '\u200b',
        '\u2028',
        '\u2029',
        '\u202e',
        '\u2066',
        '\ufeff',
        'é',
        '日本',
        '\ud83d\ude00',
        '\ud800',
        '"',
        '\\',
        '\n',
      ),
      fc.string({ unit: 'binary' }),
    ),
  )
  .map((parts) => parts.join(''));

describe('JSON lines', () => {
  it('escape exactly what the one-regex rule escapes, for any value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().chain((v) => text.map((s) => ({ v, s, nested: { list: [s, 1, null] } }))),
        (value) => {
          expect(jsonLine(value)).toBe(reference(value));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('write a text delta record byte for byte as jsonLine of the object', () => {
    fc.assert(
      fc.property(text, (delta) => {
        expect(jsonTextDelta(delta)).toBe(jsonLine({ type: 'text', delta }));
      }),
      { numRuns: 300 },
    );
    expect(jsonTextDelta('a\u2028b\u007f')).toBe('{"type":"text","delta":"a\\u2028b\\u007f"}');
  });
});
