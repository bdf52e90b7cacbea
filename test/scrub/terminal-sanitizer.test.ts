import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSanitizer, sanitizeText } from '../../lib/scrub/terminal-sanitizer.js';
import { HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { splitTextAt } from '../helpers/splits.js';
import { feed, isSingleLineContext, readJsonl, type TerminalRow } from './corpus.js';

fixtureSkipNote();

function check(row: TerminalRow, out: string): string[] {
  const errors: string[] = [];
  for (const x of row.mustNotContain ?? []) if (out.includes(x)) errors.push(`contains ${JSON.stringify(x)}`);
  for (const x of row.mustNotMatch ?? []) if (new RegExp(x, 'u').test(out)) errors.push(`matches ${x}`);
  for (const x of row.mustContain ?? []) if (!out.includes(x)) errors.push(`lost ${JSON.stringify(x)}`);
  return errors;
}

describe.skipIf(!HAVE_FIXTURES)('the terminal sanitiser on the shared attack corpus', () => {
  const rows = HAVE_FIXTURES ? readJsonl<TerminalRow>('terminal.jsonl') : [];

  it('passes every row, fed whole or in the corpus chunks', () => {
    const failures: string[] = [];
    for (const row of rows) {
      const options = { singleLine: isSingleLineContext(row.context) };
      const whole = sanitizeText(row.input, options);
      const errs = check(row, whole);
      if (row.chunks) errs.push(...check(row, feed(createSanitizer(options), row.chunks)));
      if (errs.length) failures.push(`${row.id}: ${errs.join(', ')}`);
    }
    expect(failures).toEqual([]);
    expect(rows.length).toBeGreaterThan(40);
  });

  it('gives the same output at every two-way split of every row', () => {
    const failures: string[] = [];
    for (const row of rows) {
      const options = { singleLine: isSingleLineContext(row.context) };
      const whole = sanitizeText(row.input, options);
      for (let k = 0; k <= row.input.length; k++) {
        if (feed(createSanitizer(options), [row.input.slice(0, k), row.input.slice(k)]) !== whole) {
          failures.push(`${row.id} @${k}`);
          break;
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

// Hand-made cases (ours), so that a bare clone still tests the sanitiser.
describe('the terminal sanitiser', () => {
  const ESC = '\u001b';

  it('drops SGR and cursor moves but keeps the text they tried to hide', () => {
    expect(sanitizeText(`echo ok ${ESC}[31mevil${ESC}[0m${ESC}[24D${ESC}[K done`)).toBe('echo ok evil done');
  });

  it('skips OSC 8, OSC 52 and title strings terminated by BEL or ST', () => {
    const input = `${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\ ${ESC}]52;c;ZXZpbA==\u0007${ESC}]0;title\u0007end`;
    expect(sanitizeText(input)).toBe('link end');
  });

  it('skips DCS, APC, PM and SOS strings, including a tmux passthrough', () => {
    expect(
      sanitizeText(
        `a${ESC}Ptmux;${ESC}${ESC}]52;c;x\u0007${ESC}\\b${ESC}_Gf=1;x${ESC}\\c${ESC}^pm${ESC}\\d${ESC}Xsos${ESC}\\e`,
      ),
    ).toBe('abcde');
  });

  it('deletes C1 controls as characters so that text after them stays visible', () => {
    expect(sanitizeText('keep\u009b31mthis\u0090data\u009dx')).toBe('keep31mthisdatax');
  });

  it('turns a lone CR into a newline and CRLF into one newline', () => {
    expect(sanitizeText('10%\r100%\r\nnext')).toBe('10%\n100%\nnext');
  });

  it('deletes backspace, DEL and other C0 controls but keeps tab and newline', () => {
    expect(sanitizeText('rm -rf /\b\b\bls\u007f\u0000\ta\nb')).toBe('rm -rf /ls\ta\nb');
  });

  it('removes bidi controls, zero-width characters and tag characters but keeps emoji joiners', () => {
    const tags = String.fromCodePoint(0xe0069, 0xe0067);
    expect(sanitizeText(`inv\u202eoice\u200b.txt${tags} 👨\u200d👩 ❤\ufe0f`)).toBe('invoice.txt 👨\u200d👩 ❤\ufe0f');
  });

  it('keeps multi-line text with line feeds and tabs as it is, and merges a CRLF split before a line feed', () => {
    const s = createSanitizer();
    expect(s.push('a\tb\nc')).toBe('a\tb\nc');
    expect(s.push('line\r')).toBe('line\n');
    expect(s.push('\nnext\n')).toBe('next\n'); // the CR already became the newline of this CRLF
    expect(s.push('\n\tx')).toBe('\n\tx');
    // A variation selector stays "last" across line feeds only (a second one is dropped).
    expect(s.push('\u2764\ufe0f')).toBe('\u2764\ufe0f');
    expect(s.push('\n')).toBe('\n');
    expect(s.push('\ufe0fz')).toBe('z');
  });

  it('escapes line breaks and tabs visibly in one-line fields', () => {
    expect(sanitizeText('src/a.ts\n\trm -rf ~\r', { singleLine: true })).toBe('src/a.ts\\n\\trm -rf ~\\n');
  });

  it('carries parser state across chunks and holds back only a split surrogate', () => {
    const s = createSanitizer();
    expect(s.push(`hello ${ESC}`)).toBe('hello ');
    expect(s.push('[31mred')).toBe('red');
    expect(s.push('x\udb40')).toBe('x'); // first half of a tag character
    expect(s.push('\udc69y')).toBe('y');
    expect(s.end()).toBe('');
  });

  it('returns to ground after an unterminated string longer than the bound', () => {
    const out = sanitizeText(`${ESC}]0;${'A'.repeat(100)}visible`, { maxStringLength: 50 });
    expect(out.endsWith('visible')).toBe(true);
    expect(out).not.toContain(ESC);
  });

  it('gives the same output for any chunking (property)', () => {
    const alphabet = fc.constantFrom(
      'a',
      ' ',
      '\n',
      '\r',
      '\t',
      '\ufe0f',
      ESC,
      '[',
      ']',
      '3',
      '1',
      'm',
      ';',
      '\u0007',
      '\\',
      '\u009b',
      '\u202e',
      '\ud83d',
      '\ude00',
      '\u200b',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), fc.array(fc.nat(60), { maxLength: 6 }), (chars, cuts) => {
        const text = chars.join('');
        expect(feed(createSanitizer(), splitTextAt(text, cuts))).toBe(sanitizeText(text));
      }),
      { numRuns: 300 },
    );
  });
});
