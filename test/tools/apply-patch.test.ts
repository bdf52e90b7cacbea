import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../lib/tools/patch-parse.js';
import { applyChunks, seekLines } from '../../lib/tools/patch-apply.js';
import { applyPatchTool } from '../../lib/tools/apply-patch.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { context, scratch } from './helpers.js';

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

describe('parsePatch', () => {
  it('reads adds, deletes, updates with a move and several chunks', () => {
    const parsed = parsePatch(
      patch(
        '*** Add File: src/new.txt',
        '+hello',
        '+',
        '*** Delete File: old.txt',
        '*** Update File: a.py',
        '*** Move to: b.py',
        '@@ def f():',
        '-    pass',
        '+    return 1',
        '@@',
        ' x = 1',
        '-y = 2',
        '+y = 3',
      ),
    );
    expect(parsed).toEqual({
      ok: true,
      operations: [
        { kind: 'add', path: 'src/new.txt', contents: 'hello\n\n' },
        { kind: 'delete', path: 'old.txt' },
        {
          kind: 'update',
          path: 'a.py',
          moveTo: 'b.py',
          chunks: [
            { context: 'def f():', oldLines: ['    pass'], newLines: ['    return 1'], endOfFile: false },
            { oldLines: ['x = 1', 'y = 2'], newLines: ['x = 1', 'y = 3'], endOfFile: false },
          ],
        },
      ],
    });
  });

  it('accepts CRLF, padded markers, a heredoc wrapper and a first chunk without @@', () => {
    const text = [
      "<<'EOF'",
      '*** Begin Patch  ',
      '*** Update File: f.txt',
      ' keep',
      '+added',
      '  *** End Patch',
      'EOF',
    ].join('\r\n');
    expect(parsePatch(text)).toEqual({
      ok: true,
      operations: [
        {
          kind: 'update',
          path: 'f.txt',
          chunks: [{ oldLines: ['keep'], newLines: ['keep', 'added'], endOfFile: false }],
        },
      ],
    });
  });

  it('marks a chunk that ends the file', () => {
    const parsed = parsePatch(patch('*** Update File: f.txt', '@@', ' last', '+after', '*** End of File'));
    expect(parsed.ok && parsed.operations[0]).toMatchObject({ chunks: [{ endOfFile: true }] });
  });

  it.each([
    ['no begin marker', 'hello\n*** End Patch', 1, /first line/],
    ['no end marker', '*** Begin Patch\n*** Delete File: a', 2, /last line/],
    ['an empty patch', patch(), 2, /no file operation/],
    ['an unknown header', patch('*** Rename File: a'), 2, /not a file operation/],
    ['an update with no chunk', patch('*** Update File: a.txt'), 2, /has no change/],
    ['a chunk line without a prefix', patch('*** Update File: a.txt', '@@', 'oops'), 4, /must start with/],
    [
      'a second chunk without @@',
      patch('*** Update File: a.txt', '@@', '-a', '+b', '*** Bad', 'x'),
      6,
      /not a file operation/,
    ],
    ['an end-of-file marker with no lines', patch('*** Update File: a.txt', '@@', '*** End of File'), 4, /no lines/],
  ])('refuses %s, naming the line', (_name, text, line, message) => {
    const parsed = parsePatch(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.line).toBe(line);
    expect(parsed.message).toMatch(message);
  });
});

describe('applyChunks', () => {
  const chunk = (oldLines: string[], newLines: string[], extra: { context?: string; endOfFile?: boolean } = {}) => ({
    oldLines,
    newLines,
    endOfFile: false,
    ...extra,
  });

  it('applies several chunks in order, each after the previous one', () => {
    const text = 'a\nx\nb\nx\nc\n';
    const result = applyChunks(text, [chunk(['a', 'x'], ['a', 'X1']), chunk(['x'], ['X2'])], 'f');
    expect(result).toEqual({ ok: true, text: 'a\nX1\nb\nX2\nc\n' });
  });

  it('uses the @@ context line to choose between repeated lines', () => {
    const text = 'def a():\n    pass\ndef b():\n    pass\n';
    expect(applyChunks(text, [chunk(['    pass'], ['    return 2'], { context: 'def b():' })], 'f')).toEqual({
      ok: true,
      text: 'def a():\n    pass\ndef b():\n    return 2\n',
    });
  });

  it('fails on a context mismatch with the lines it looked for', () => {
    const result = applyChunks('one\ntwo\n', [chunk(['three'], ['3'])], 'f.txt');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/context mismatch.*three/);
  });

  it('matches past trailing whitespace and typographic punctuation, exact matches first', () => {
    expect(seekLines(['a  ', 'b'], ['a', 'b'], 0, false)).toBe(0);
    expect(seekLines(['say \u201chi\u201d \u2014 ok'], ['say "hi" - ok'], 0, false)).toBe(0);
    expect(seekLines(['x ', 'x'], ['x'], 0, false)).toBe(1);
  });

  it('puts a pure addition after its context line, or at the end without one', () => {
    expect(applyChunks('a\nb\n', [chunk([], ['new'], { context: 'a' })], 'f')).toEqual({
      ok: true,
      text: 'a\nnew\nb\n',
    });
    expect(applyChunks('a\nb\n', [chunk([], ['new'])], 'f')).toEqual({ ok: true, text: 'a\nb\nnew\n' });
  });

  it('finds an end-of-file chunk at the end and keeps CRLF line ends', () => {
    const text = 'end\r\nmiddle\r\nend\r\n';
    expect(applyChunks(text, [chunk(['end'], ['END'], { endOfFile: true })], 'f')).toEqual({
      ok: true,
      text: 'end\r\nmiddle\r\nEND\r\n',
    });
  });
});

describe('apply_patch', () => {
  it('adds, updates, moves and deletes files in one call and reports each change', async () => {
    const dir = scratch({ 'keep.txt': 'alpha\nbeta\ngamma\n', 'old/name.txt': 'one\ntwo\n', 'gone.txt': 'bye\n' });
    const { ctx } = context(dir);
    const outcome = await applyPatchTool.run(
      {
        input: patch(
          '*** Add File: nested/new.txt',
          '+fresh',
          '*** Update File: keep.txt',
          '@@',
          ' alpha',
          '-beta',
          '+BETA',
          '*** Update File: old/name.txt',
          '*** Move to: renamed/name.txt',
          '@@',
          '-two',
          '+TWO',
          '*** Delete File: gone.txt',
        ),
      },
      ctx,
    );
    expect(outcome).toMatchObject({
      status: 'completed',
      output:
        'Success. Updated the following files:\nA nested/new.txt\nM keep.txt\nD old/name.txt\nA renamed/name.txt\nD gone.txt',
    });
    expect(fs.readFileSync(path.join(dir, 'nested/new.txt'), 'utf8')).toBe('fresh\n');
    expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(fs.readFileSync(path.join(dir, 'renamed/name.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(fs.existsSync(path.join(dir, 'old/name.txt'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'gone.txt'))).toBe(false);
    if (outcome.status !== 'completed') return;
    expect(outcome.fileChanges?.map((c) => [c.path, c.kind])).toEqual([
      ['nested/new.txt', 'create'],
      ['keep.txt', 'modify'],
      ['old/name.txt', 'move'],
      ['renamed/name.txt', 'create'],
      ['gone.txt', 'delete'],
    ]);
    expect(outcome.fileChanges?.[1]?.diff).toMatchObject({ added: 1, removed: 1 });
  });

  it('changes nothing when a later operation does not apply', async () => {
    const dir = scratch({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const { ctx } = context(dir);
    const outcome = await applyPatchTool.run(
      { input: patch('*** Update File: a.txt', '-a', '+A', '*** Update File: b.txt', '-not there', '+B') },
      ctx,
    );
    expect(outcome).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('fails a malformed patch with the line and a hint about the format', async () => {
    const { ctx } = context(scratch());
    const outcome = await applyPatchTool.run({ input: '*** Begin Patch\n*** Frobnicate: x\n*** End Patch' }, ctx);
    expect(outcome).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: expect.stringMatching(/^invalid patch at line 2/),
      hint: expect.stringContaining('*** Begin Patch'),
    });
  });

  it('refuses to update or delete a file that does not exist', async () => {
    const { ctx } = context(scratch());
    expect(await applyPatchTool.run({ input: patch('*** Delete File: nope.txt') }, ctx)).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/no such file/),
    });
    expect(
      await applyPatchTool.run({ input: patch('*** Update File: nope.txt', '@@', '-a', '+b') }, ctx),
    ).toMatchObject({ status: 'failed', message: expect.stringMatching(/no such file/) });
  });

  it('asks before a path outside the workspace and writes nothing when denied', async () => {
    const outside = scratch();
    const dir = scratch();
    const { ctx, asked } = context(dir, { decision: 'deny' });
    const target = path.join(outside, 'x.txt');
    const outcome = await applyPatchTool.run(
      { input: patch('*** Add File: local.txt', '+ok', `*** Add File: ${target}`, '+no') },
      ctx,
    );
    expect(outcome.status).toBe('denied');
    expect(asked[0]).toMatchObject({ toolName: 'apply_patch', reason: 'outside-workspace' });
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'local.txt'))).toBe(false);
  });

  it('asks before writing into .git, as write_file does', async () => {
    const dir = scratch({ '.git/config': '[core]\n' });
    const { ctx, asked } = context(dir, { decision: 'deny' });
    const outcome = await applyPatchTool.run(
      { input: patch('*** Update File: .git/config', '@@', ' [core]', '+\thooksPath = /tmp') },
      ctx,
    );
    expect(outcome.status).toBe('denied');
    expect(asked[0]).toMatchObject({ reason: 'git-internals' });
  });

  it("is in the registry but not in minicode's own tool list", () => {
    const registry = createToolRegistry();
    expect(registry.get('apply_patch')).toBeDefined();
    expect(registry.get('insert_text')).toBeDefined();
    expect(registry.definitions().map((d) => d.name)).not.toContain('apply_patch');
    expect(registry.definitions().map((d) => d.name)).not.toContain('insert_text');
  });
});
