import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertAfterLine, insertTextTool } from '../../lib/tools/insert-text.js';
import { context, scratch } from './helpers.js';

describe('insert_text', () => {
  it('inserts after a line, at the top with 0 and at the end with the line count', () => {
    expect(insertAfterLine('a\nb\n', 1, 'x', 'f')).toBe('a\nx\nb\n');
    expect(insertAfterLine('a\nb\n', 0, 'x\ny\n', 'f')).toBe('x\ny\na\nb\n');
    expect(insertAfterLine('a\nb\n', 2, 'z', 'f')).toBe('a\nb\nz\n');
    expect(insertAfterLine('', 0, 'only', 'f')).toBe('only\n');
    expect(insertAfterLine('a\r\nb\r\n', 1, 'x', 'f')).toBe('a\r\nx\r\nb\r\n');
  });

  it('fails past the end of the file with the valid range', () => {
    expect(insertAfterLine('a\n', 5, 'x', 'f.txt')).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      hint: 'use a line from 0 to 1',
    });
  });

  it('writes the file and reports the change with its diff', async () => {
    const dir = scratch({ 'f.txt': 'one\ntwo\n' });
    const { ctx } = context(dir);
    const outcome = await insertTextTool.run({ path: 'f.txt', insert_line: 1, text: 'inserted' }, ctx);
    expect(outcome).toMatchObject({
      status: 'completed',
      fileChanges: [{ path: 'f.txt', kind: 'modify', diff: { added: 1, removed: 0 } }],
    });
    expect(fs.readFileSync(path.join(dir, 'f.txt'), 'utf8')).toBe('one\ninserted\ntwo\n');
  });

  it('asks before a file outside the workspace', async () => {
    const { ctx, asked } = context(scratch(), { decision: 'deny' });
    const outcome = await insertTextTool.run(
      { path: path.join(scratch({ 'x.txt': 'x\n' }), 'x.txt'), insert_line: 0, text: 'no' },
      ctx,
    );
    expect(outcome.status).toBe('denied');
    expect(asked[0]).toMatchObject({ toolName: 'insert_text', reason: 'outside-workspace' });
  });
});
