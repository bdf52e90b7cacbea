import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayText, oneLine } from '../../lib/render/display-text.js';
import { jsonLine } from '../../lib/render/json-line.js';
import stringWidth from 'string-width';
import { displayWidth, fitToWidth, graphemeWidth, rowsFor, wrapToWidth } from '../../lib/render/width.js';

describe('display text at the projection boundary', () => {
  it('removes CSI, OSC (BEL and ST terminated), 8-bit CSI, bidi and zero-width characters, keeping newlines and tabs', () => {
    expect(displayText('a\u001b[31mb\u001b[0m')).toBe('ab');
    expect(displayText('x\u001b]0;title\u0007y\u001b]8;;http://e\u001b\\z')).toBe('xyz');
    expect(displayText('p\u009b2Jq')).toBe('pq');
    expect(displayText('l\u202eevil\u2066i\u2069\u200bz\ufeff')).toBe('leviliz');
    expect(displayText('one\r\ntwo\tthree\rfour\u0007\u0000')).toBe('one\ntwo\tthreefour');
    expect(displayText('unterminated \u001b]0;title')).toBe('unterminated ');
  });

  it('never lets an ESC, C1 control or bidi override through, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('\u001b', '[', ']', '\u0007', '\u009b', '\u202e', 'a', '3', ';', 'm', '\\', '\n'),
        }),
        (s) => {
          expect(displayText(s)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('folds a one-line string and caps it with an ellipsis', () => {
    expect(oneLine('  rm\n -rf\tbuild  ')).toBe('rm -rf build');
    expect(oneLine('x'.repeat(300))).toHaveLength(200);
    expect(oneLine('x'.repeat(300)).endsWith('…')).toBe(true);
  });

  it('encodes JSON lines with C1, bidi and line separators escaped, parsing back to the same data', () => {
    const value = { s: 'a\u009bb\u202ec\u2028d\u001be' };
    const line = jsonLine(value);
    expect(line).not.toMatch(/[\u001b\u0080-\u009f\u202e\u2028]/);
    expect(JSON.parse(line)).toEqual(value);
  });
});

describe('terminal widths', () => {
  it('counts wide characters as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('counts the rows a line wraps onto at a width', () => {
    expect(rowsFor('', 40)).toBe(1);
    expect(rowsFor('x'.repeat(40), 40)).toBe(1);
    expect(rowsFor('x'.repeat(41), 40)).toBe(2);
    expect(rowsFor('日'.repeat(30), 40)).toBe(2);
  });

  it('fits and wraps to a width', () => {
    expect(fitToWidth('abcdefgh', 5)).toBe('abcd…');
    expect(wrapToWidth('abcdefgh\nij', 3)).toEqual(['abc', 'def', 'gh', 'ij']);
  });

  it.each([
    ['🚀', 2],
    ['✅', 2],
    ['⌛', 2],
    ['🫠', 2],
    ['👍🏽', 2],
    ['👨‍👩‍👧', 2],
    ['🇯🇵', 2],
    ['❤️', 2],
    ['#️⃣', 2],
    ['漢字かな', 8],
    ['한국어', 6],
    ['ｆｕｌｌ', 8],
    ['é', 1],
    ['a\u200bb', 2],
    ['ok 🚀 done', 10],
  ])('counts %s as %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  it('wraps and fits wide emoji, CJK and ZWJ sequences without splitting a grapheme or overrunning the width', () => {
    const line = '🚀✅⌛🫠👍🏽👨‍👩‍👧漢字🇯🇵';
    expect(displayWidth(line)).toBe(18);
    const rows = wrapToWidth(line, 5);
    expect(rows).toEqual(['🚀✅', '⌛🫠', '👍🏽👨‍👩‍👧', '漢字', '🇯🇵']);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(5);
    // Five rows, not ceil(18 / 5) = 4: a wide character that does not fit at the end of a row
    // moves to the next one, as the terminal moves it.
    expect(rowsFor(line, 5)).toBe(5);
    expect(rowsFor(line, 18)).toBe(1);
    expect(rowsFor(line, 17)).toBe(2);
    expect(fitToWidth(line, 7)).toBe('🚀✅⌛…');
    expect(displayWidth(fitToWidth(line, 7))).toBe(7);
    // A grapheme is kept whole: the family is never cut at a zero-width joiner.
    expect(wrapToWidth('ab👨‍👩‍👧', 3)).toEqual(['ab', '👨‍👩‍👧']);
  });

  it('measures a single code point as string-width does, without it (every third code point of planes 0-3)', () => {
    const differ: string[] = [];
    for (let code = 0; code <= 0x3ffff; code += 3) {
      if ((code >= 0xd800 && code <= 0xdfff) || code === 9) continue;
      const char = String.fromCodePoint(code);
      if (graphemeWidth(char) !== stringWidth(char)) differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it('never lets a wrapped row exceed the width (property)', () => {
    const pieces = fc.constantFrom('a', ' ', '🚀', '✅', '👍🏽', '👨‍👩‍👧', '漢', 'e\u0301', '🇯🇵', 'ｆ');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), fc.integer({ min: 2, max: 30 }), (parts, cols) => {
        const text = parts.join('');
        const rows = wrapToWidth(text, cols);
        expect(rows.join('')).toBe(text);
        for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(cols);
        expect(rowsFor(text, cols)).toBe(rows.length);
        expect(displayWidth(fitToWidth(text, cols))).toBeLessThanOrEqual(cols);
      }),
    );
  });
});
