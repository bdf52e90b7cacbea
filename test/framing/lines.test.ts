import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLineFramer } from '../../lib/framing/lines.js';
import { splitAt } from '../helpers/splits.js';

function frame(chunks: (Uint8Array | string)[], max?: number) {
  const lines: [string, number][] = [];
  const overflows: number[] = [];
  const framer = createLineFramer({ onLine: (l, n) => lines.push([l, n]), onOverflow: (n) => overflows.push(n), ...(max ? { maxLineLength: max } : {}) });
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
});
