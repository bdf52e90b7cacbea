import { Chalk } from 'chalk';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown, renderMarkdown } from '../../lib/render/markdown/index.js';
import { displayWidth } from '../../lib/render/width.js';

const ANSWER = [
  '## Result',
  '',
  'The **fix** is in `greet.js`, see [the docs](https://example.dev/greet).',
  '',
  '- one item that is long enough to wrap around a narrow terminal width',
  '- two',
  '',
  '> quoted *text*',
  '',
  '| name | value |',
  '|---|---:|',
  '| alpha | 1 |',
  '| 日本 | 22 |',
  '',
  '```js',
  'const a = "x"; // hi',
  'return 42',
  '```',
].join('\n');

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });
const rows = (text: string, width: number, chalk = plain) => renderMarkdown(text, width, chalk)!.map((l) => l.plain);

describe('Markdown for the terminal', () => {
  beforeAll(() => loadMarkdown());

  it('renders headings, emphasis, lists, quotes, links, tables and code without their markers', () => {
    expect(rows(ANSWER, 80)).toEqual([
      'Result',
      '',
      'The fix is in `greet.js`, see the docs (https://example.dev/greet).',
      '',
      '• one item that is long enough to wrap around a narrow terminal width',
      '• two',
      '',
      '│ quoted text',
      '',
      'name  │ value',
      '──────┼──────',
      'alpha │     1',
      '日本  │    22',
      '',
      '```js',
      '  const a = "x"; // hi',
      '  return 42',
      '```',
    ]);
  });

  it('keeps every row within the width, wrapping list items under their bullet', () => {
    for (const width of [24, 40]) {
      const out = rows(ANSWER, width);
      for (const row of out) expect(displayWidth(row)).toBeLessThanOrEqual(width);
      const item = out.findIndex((r) => r.startsWith('• one'));
      expect(out[item + 1]).toMatch(/^ {2}[a-z]/);
    }
  });

  it('falls back to one "header: value" row per cell when a table is wider than the terminal', () => {
    expect(rows('| a long header | another long header |\n|---|---|\n| x | y |', 24)).toEqual([
      'a long header: x',
      'another long header: y',
    ]);
  });

  it('colours code by language and styles emphasis, while the plain text stays the same words', () => {
    const styled = renderMarkdown(ANSWER, 80, colour)!;
    const code = styled.find((l) => l.plain.includes('const a'))!;
    expect(code.styled).toContain('\u001b[35mconst\u001b[39m');
    expect(code.styled).toContain('\u001b[32m"x"\u001b[39m');
    expect(styled[0]!.styled).toContain('\u001b[1m');
    expect(styled.map((l) => l.plain)).toContain('The fix is in greet.js, see the docs (https://example.dev/greet).');
  });

  it('renders a fence still arriving as code and a table still arriving as its text', () => {
    expect(rows('# Plan\n\n```py\ndef f(', 40)).toEqual(['Plan', '', '```py', '  def f(', '```']);
    expect(rows('| a | b |', 40)).toEqual(['| a | b |']);
    expect(rows('| a | b |\n|---|---|\n| 1', 40)).toEqual(['a │ b', '──┼──', '1 │']);
  });
});
