import { describe, expect, it } from 'vitest';
import { parseBatchInput } from '../../lib/batch/input.js';

describe('batch input parsing', () => {
  it('turns every line into a runnable line or a problem with its line number', () => {
    const text = [
      '{"id":"a","prompt":"one"}',
      '',
      'not json',
      '{"id":"b"}',
      '{"id":7,"prompt":"numeric id","max_steps":3,"budget":0.5,"metadata":{"k":1},"agent":"codex","cwd":"sub"}',
      '{"id":"c","prompt":"bad agent","agent":"vim"}',
      '[1,2]',
    ].join('\r\n');
    const parsed = parseBatchInput(text);
    expect(parsed.lines.map((l) => [l.id, l.line])).toEqual([
      ['a', 1],
      ['7', 5],
    ]);
    expect(parsed.lines[1]).toMatchObject({ maxSteps: 3, budget: 0.5, metadata: { k: 1 }, agent: 'codex', cwd: 'sub' });
    expect(parsed.problems.map((p) => [p.line, p.code])).toEqual([
      [3, 'MINICODE_E_BATCH_LINE_JSON'],
      [4, 'MINICODE_E_BATCH_LINE_SHAPE'],
      [6, 'MINICODE_E_BATCH_LINE_SHAPE'],
      [7, 'MINICODE_E_BATCH_LINE_SHAPE'],
    ]);
    expect(parsed.problems[1]).toMatchObject({ id: 'b' });
    expect(parsed.duplicates).toEqual([]);
  });

  it('reports keys that are not line fields, with their lines and the field a misspelling meant', () => {
    const parsed = parseBatchInput(
      [
        '{"id":"a","prompt":"1","maxSteps":3}',
        '{"id":"b","prompt":"2","maxSteps":3,"deadline":5}',
        '{"id":"c","prompt":"3","max_steps":2}',
        '{"id":"d","maxSteps":1}',
      ].join('\n'),
    );
    expect(parsed.lines.map((l) => l.maxSteps)).toEqual([undefined, undefined, 2]);
    expect(parsed.unknownKeys).toEqual([
      { key: 'maxSteps', lines: [1, 2], field: 'max_steps' },
      { key: 'deadline', lines: [2] },
    ]);
  });

  it('reads a first line after a UTF-8 byte order mark (files written by Windows tools)', () => {
    const parsed = parseBatchInput('\ufeff{"id":"a","prompt":"one"}\r\n{"id":"b","prompt":"two"}\r\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.lines.map((l) => l.id)).toEqual(['a', 'b']);
  });

  it('collects duplicate ids with every line they appear on', () => {
    const parsed = parseBatchInput(
      ['{"id":"x","prompt":"1"}', '{"id":"y","prompt":"2"}', '{"id":"x","prompt":"3"}', '{"id":"x","prompt":"4"}'].join(
        '\n',
      ),
    );
    expect(parsed.duplicates).toEqual([{ id: 'x', lines: [1, 3, 4] }]);
  });

  it('never drops a non-blank line silently', () => {
    const rows = [
      '{"id":"a","prompt":"p"}',
      '{',
      '{"prompt":"no id"}',
      '{"id":"","prompt":"empty id"}',
      '   ',
      '{"id":"b","prompt":""}',
    ];
    const parsed = parseBatchInput(rows.join('\n'));
    const accounted = parsed.lines.length + parsed.problems.length;
    expect(accounted).toBe(rows.filter((r) => r.trim() !== '').length);
  });
});
