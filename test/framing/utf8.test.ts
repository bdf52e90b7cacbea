import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ASCII_BLOCK_BYTES, createUtf8Decoder } from '../../lib/framing/utf8.js';
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
    const interesting = fc.constantFrom(
      0x41,
      0x0a,
      0xc2,
      0xa9,
      0xe2,
      0x82,
      0xac,
      0xf0,
      0x9f,
      0x99,
      0x82,
      0xed,
      0xa0,
      0x80,
      0xc0,
      0xff,
      0xef,
      0xbb,
      0xbf,
      0xf4,
      0x90,
    );
    fc.assert(
      fc.property(fc.array(interesting, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 }), (arr, cuts) => {
        const bytes = new Uint8Array(arr);
        expect(decodeSplit(bytes, cuts)).toBe(reference.decode(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the streaming UTF-8 decoder in segments', () => {
  /** Decode with decodeSegments at the given cuts; returns the text and every segment handed out. */
  function segmentSplit(bytes: Uint8Array, cuts: number[]): { text: string; segments: string[] } {
    const d = createUtf8Decoder();
    const sorted = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const segments: string[] = [];
    let prev = 0;
    for (const c of [...sorted, bytes.length]) {
      d.decodeSegments(bytes.subarray(prev, c), (s) => segments.push(s));
      prev = c;
    }
    const rest = d.flush();
    return { text: segments.join('') + rest, segments };
  }

  it('gives the same text as TextDecoder on long mixed inputs cut into blocks at line ends', () => {
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    // Mostly ASCII with LFs, some multi-byte and invalid bytes: long enough (> SEGMENT_BYTES) to be cut.
    const byte = fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 3, arbitrary: fc.constant(0x0a) },
      { weight: 2, arbitrary: fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x99, 0x82, 0xff, 0x0d) },
    );
    fc.assert(
      fc.property(
        fc.array(byte, { minLength: 0, maxLength: 5000 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (arr, cuts) => {
          const bytes = new Uint8Array(arr);
          const { text, segments } = segmentSplit(bytes, cuts);
          expect(text).toBe(reference.decode(bytes));
          expect(segments.every((s) => s.length > 0)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cuts a chunk with non-ASCII text after line ends, so that ASCII lines stay apart', () => {
    const ascii = 'data: {"a":"plain ascii text"}\n\n'.repeat(100);
    const bytes = new TextEncoder().encode(ascii + 'data: "é€🙂"\n\n' + ascii);
    const { text, segments } = segmentSplit(bytes, []);
    expect(text).toBe(new TextDecoder().decode(bytes));
    expect(segments.length).toBeGreaterThan(2);
    for (const s of segments.slice(0, -1)) expect(s.endsWith('\n')).toBe(true);
  });

  it('cuts a long ASCII chunk into blocks after line ends, none much past the block size unless a line is', () => {
    const line = (n: number): string => `{"type":"item.completed","n":${n},"text":"${'x'.repeat(n % 997)}"}\n`;
    const lines = Array.from({ length: 400 }, (_, n) => line(n));
    // One line longer than a block: its block ends at its own end.
    lines.splice(200, 0, `{"long":"${'y'.repeat(2 * ASCII_BLOCK_BYTES)}"}\n`);
    const ascii = lines.join('') + 'tail without a line end';
    const bytes = new TextEncoder().encode(ascii);
    const { text, segments } = segmentSplit(bytes, []);
    expect(text).toBe(ascii);
    expect(segments.length).toBeGreaterThan(4);
    for (const s of segments.slice(0, -1)) {
      expect(s.endsWith('\n')).toBe(true);
      if (!s.includes('y'.repeat(100))) expect(s.length).toBeLessThanOrEqual(ASCII_BLOCK_BYTES);
    }
  });
});
