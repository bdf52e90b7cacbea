import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../lib/tools/index.js';
import { readFileTool } from '../../lib/tools/read-file.js';
import { writeFileTool } from '../../lib/tools/write-file.js';
import { editTool } from '../../lib/tools/edit.js';
import { context, scratch } from './helpers.js';

describe('read_file', () => {
  it('shows numbered lines and pages with offset and limit', async () => {
    const dir = scratch({ 'a.txt': 'one\ntwo\nthree\nfour\n' });
    const { ctx } = context(dir);
    const all = await readFileTool.run({ path: 'a.txt' }, ctx);
    expect(all).toMatchObject({ status: 'completed', output: '1\tone\n2\ttwo\n3\tthree\n4\tfour' });
    const page = await readFileTool.run({ path: 'a.txt', offset: 2, limit: 2 }, ctx);
    expect(page.status).toBe('completed');
    if (page.status !== 'completed') return;
    expect(page.output).toContain('2\ttwo\n3\tthree');
    expect(page.output).toContain('use offset=4 for more');
    expect(page.receipt?.lines).toBe(2);
  });

  it('refuses a file over the size cap with a hint', async () => {
    const dir = scratch({ 'big.txt': 'x'.repeat(5000) });
    const { ctx } = context(dir, { limits: { maxFileBytes: 1000 } });
    const outcome = await readFileTool.run({ path: 'big.txt' }, ctx);
    expect(outcome).toMatchObject({ status: 'failed', cause: 'FILESYSTEM_ERROR' });
  });

  it('caps a long page at the output limit with a marker', async () => {
    const dir = scratch({
      'long.txt': Array.from({ length: 500 }, (_, i) => `line ${i} ${'y'.repeat(50)}`).join('\n'),
    });
    const { ctx } = context(dir, { limits: { maxOutputChars: 2000 } });
    const outcome = await readFileTool.run({ path: 'long.txt' }, ctx);
    if (outcome.status !== 'completed') throw new Error('expected completed');
    expect(outcome.output.length).toBeLessThan(2200);
    expect(outcome.output).toMatch(/characters truncated by minicode/);
  });

  it('reports a missing file as a filesystem failure', async () => {
    const { ctx } = context(scratch());
    expect(await readFileTool.run({ path: 'nope.txt' }, ctx)).toMatchObject({
      status: 'failed',
      cause: 'FILESYSTEM_ERROR',
    });
  });

  it('asks before reading outside the workspace and is denied when refused', async () => {
    const dir = scratch();
    const { ctx, asked } = context(dir, { decision: 'deny' });
    const outcome = await readFileTool.run({ path: '/etc/hostname' }, ctx);
    expect(outcome.status).toBe('denied');
    expect(asked[0]).toMatchObject({ toolName: 'read_file', reason: 'outside-workspace' });
  });

  it('treats a symlink pointing outside the workspace as outside', async () => {
    const dir = scratch();
    fs.symlinkSync('/etc', path.join(dir, 'etc-link'));
    const { ctx, asked } = context(dir);
    expect((await readFileTool.run({ path: 'etc-link/hostname' }, ctx)).status).toBe('denied');
    expect(asked).toHaveLength(1);
  });
});

describe('write_file', () => {
  it('creates a file with its directories and reports a create change', async () => {
    const dir = scratch();
    const { ctx } = context(dir);
    const outcome = await writeFileTool.run({ path: 'src/new.js', content: 'hi\n' }, ctx);
    expect(outcome).toMatchObject({ status: 'completed', fileChanges: [{ path: 'src/new.js', kind: 'create' }] });
    expect(fs.readFileSync(path.join(dir, 'src/new.js'), 'utf8')).toBe('hi\n');
  });

  it('reports an overwrite as a modify change', async () => {
    const dir = scratch({ 'a.txt': 'old' });
    const outcome = await writeFileTool.run({ path: 'a.txt', content: 'new' }, context(dir).ctx);
    expect(outcome).toMatchObject({ status: 'completed', fileChanges: [{ path: 'a.txt', kind: 'modify' }] });
  });

  it('writes outside the workspace only when approved', async () => {
    const outside = scratch();
    const dir = scratch();
    const target = path.join(outside, 'x.txt');
    expect((await writeFileTool.run({ path: target, content: 'x' }, context(dir).ctx)).status).toBe('denied');
    expect(fs.existsSync(target)).toBe(false);
    expect(
      (await writeFileTool.run({ path: target, content: 'x' }, context(dir, { decision: 'allow' }).ctx)).status,
    ).toBe('completed');
    expect(
      (await writeFileTool.run({ path: target, content: 'y' }, context(dir, { allowedPaths: [outside] }).ctx)).status,
    ).toBe('completed');
  });
});

describe('edit', () => {
  it('replaces a unique exact match and reports the change', async () => {
    const dir = scratch({ 'a.js': 'const a = 1;\nconst b = 2;\n' });
    const outcome = await editTool.run(
      { path: 'a.js', old_string: 'const b = 2;', new_string: 'const b = 3;' },
      context(dir).ctx,
    );
    expect(outcome).toMatchObject({ status: 'completed', fileChanges: [{ path: 'a.js', kind: 'modify' }] });
    expect(fs.readFileSync(path.join(dir, 'a.js'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('fails clearly when the old text is absent', async () => {
    const dir = scratch({ 'a.js': 'x' });
    const outcome = await editTool.run({ path: 'a.js', old_string: 'y', new_string: 'z' }, context(dir).ctx);
    expect(outcome).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    if (outcome.status === 'failed') expect(outcome.message).toContain('not found');
  });

  it('fails with the occurrence count when the old text is ambiguous, and replace_all changes all', async () => {
    const dir = scratch({ 'a.js': 'foo foo foo' });
    const ambiguous = await editTool.run({ path: 'a.js', old_string: 'foo', new_string: 'bar' }, context(dir).ctx);
    expect(ambiguous.status).toBe('failed');
    if (ambiguous.status === 'failed') expect(ambiguous.message).toContain('3 times');
    expect(fs.readFileSync(path.join(dir, 'a.js'), 'utf8')).toBe('foo foo foo');
    const all = await editTool.run(
      { path: 'a.js', old_string: 'foo', new_string: '$&bar', replace_all: true },
      context(dir).ctx,
    );
    expect(all.status).toBe('completed');
    expect(fs.readFileSync(path.join(dir, 'a.js'), 'utf8')).toBe('$&bar $&bar $&bar');
  });

  it('refuses an edit whose old and new text are the same', async () => {
    const dir = scratch({ 'a.js': 'x' });
    expect((await editTool.run({ path: 'a.js', old_string: 'x', new_string: 'x' }, context(dir).ctx)).status).toBe(
      'failed',
    );
  });
});

describe('the tool registry', () => {
  it('publishes a JSON Schema per tool without $schema', () => {
    const defs = createToolRegistry().definitions();
    expect(defs.map((d) => d.name)).toEqual([
      'read_file',
      'write_file',
      'edit',
      'bash',
      'grep',
      'glob',
      'git_commit',
      'submit_result',
      'update_plan',
      'ask_user',
      'read_image',
    ]);
    const read = defs.find((d) => d.name === 'read_file')!;
    expect(read.jsonSchema).toMatchObject({ type: 'object', required: ['path'] });
    expect(read.jsonSchema).not.toHaveProperty('$schema');
  });

  it('turns bad JSON, schema mismatches and unknown tools into failures the model can fix', async () => {
    const registry = createToolRegistry();
    const { ctx } = context(scratch());
    expect(await registry.invoke('read_file', '{nope', ctx)).toMatchObject({ status: 'failed', cause: 'MODEL_ERROR' });
    expect(await registry.invoke('read_file', '{"path": 3}', ctx)).toMatchObject({
      status: 'failed',
      cause: 'MODEL_ERROR',
    });
    expect(await registry.invoke('rm_rf', '{}', ctx)).toMatchObject({ status: 'failed', cause: 'MODEL_ERROR' });
  });
});
