import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createUtf8Decoder } from '../../lib/framing/utf8.js';
import { splitAt } from '../helpers/splits.js';

function decodeSplit(bytes: Uint8Array, cuts: number[]): string {
  const d = createUtf8Decoder();
  const out = splitAt(bytes, cuts).map((piece) => d.decode(piece));
  out.push(d.flush());
  return out.join('');
}

describe('the streaming UTF-8 decoder', () => {
  it('matches TextDecoder (BOM kept) on any bytes at any split, invalid sequences included', () => {
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    const interesting = fc.constantFrom(0x41, 0x0a, 0xc2, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x99, 0x82, 0xed, 0xa0, 0x80, 0xc0, 0xff, 0xef, 0xbb, 0xbf, 0xf4, 0x90);
    fc.assert(
      fc.property(fc.array(interesting, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 }), (arr, cuts) => {
        const bytes = new Uint8Array(arr);
        expect(decodeSplit(bytes, cuts)).toBe(reference.decode(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});
