import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLineFramer } from '../../lib/framing/lines.js';
import { splitAt } from '../helpers/splits.js';

function frame(chunks: (Uint8Array | string)[], max?: number) {
  const lines: [string, number][] = [];
  const overflows: number[] = [];
  const framer = createLineFramer({
    onLine: (l, n) => lines.push([l, n]),
    onOverflow: (n) => overflows.push(n),
    ...(max ? { maxLineLength: max } : {}),
  });
  for (const c of chunks) framer.feed(c);
  const unterminated = framer.end();
  return { lines, overflows, unterminated };
}

describe('the line framer', () => {
  it('splits LF and CRLF lines and skips blank ones', () => {
    const { lines, unterminated } = frame(['{"a":1}\r\n\n{"b":2}\n']);
    expect(lines).toEqual([
      ['{"a":1}', 1],
      ['{"b":2}', 3],
    ]);
    expect(unterminated).toBe(false);
  });

  it('reports a final line without a terminator', () => {
    const { lines, unterminated } = frame(['x\ny']);
    expect(lines.map((l) => l[0])).toEqual(['x', 'y']);
    expect(unterminated).toBe(true);
  });

  it('keeps a code point split across chunks whole', () => {
    const bytes = new TextEncoder().encode('{"t":"é漢🙂"}\n');
    for (let i = 0; i <= bytes.length; i++) {
      expect(frame([bytes.subarray(0, i), bytes.subarray(i)]).lines[0]?.[0]).toBe('{"t":"é漢🙂"}');
    }
  });

  it('reports an over-long line as an overflow and goes on with the next one', () => {
    const { lines, overflows } = frame(['a'.repeat(50), 'b'.repeat(60) + '\nok\n'], 100);
    expect(overflows).toEqual([1]);
    expect(lines).toEqual([['ok', 2]]);
  });

  it('gives the same lines at any split of the input', () => {
    const text = 'first\r\nsecond line é\n\nthird 🙂\r\nlast';
    const bytes = new TextEncoder().encode(text);
    const whole = frame([bytes]).lines;
    fc.assert(
      fc.property(fc.array(fc.nat(bytes.length), { maxLength: 12 }), (cuts) => {
        expect(frame(splitAt(bytes, cuts)).lines).toEqual(whole);
      }),
    );
  });

  it('decodes any bytes at any split as TextDecoder does, dropping one leading BOM', () => {
    // Bytes drawn from line ends, ASCII, a BOM and the pieces of valid and invalid UTF-8.
    const piece = fc.constantFrom(
      [0x0a],
      [0x0d, 0x0a],
      [0x41],
      [0x7b, 0x7d],
      [0xef, 0xbb, 0xbf],
      [0xc3, 0xa9],
      [0xf0, 0x9f, 0x99, 0x82],
      [0xe2, 0x82],
      [0x80],
      [0xff],
      [0xed, 0xa0, 0x80],
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(200), { maxLength: 8 }), (pieces, cuts) => {
        const bytes = new Uint8Array(pieces.flat());
        const reference = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
        const expected = reference.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
        const got = new Map(
          frame(
            splitAt(
              bytes,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
          ).lines.map(([line, n]) => [n, line]),
        );
        expected.forEach((line, i) => {
          if (line.length > 0 && !/^\s*$/.test(line)) expect(got.get(i + 1)).toBe(line);
          else expect(got.has(i + 1)).toBe(false);
        });
      }),
      { numRuns: 500 },
    );
  });
});
