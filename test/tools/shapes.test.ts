import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../lib/tools/index.js';
import { chooseToolShape, toolShapeFor, withShapeTools } from '../../lib/tools/shapes.js';
import { scratch } from './helpers.js';

describe('choosing a tool shape', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-5', 'anthropic-editor'],
    ['anthropic', 'claude-opus-4-1-20250805', 'anthropic-editor'],
    ['anthropic', 'claude-haiku-4-5-20251001', 'anthropic-editor'],
    ['anthropic', 'claude-3-7-sonnet-20250219', 'minicode'],
    ['anthropic', 'claude-3-5-haiku-latest', 'minicode'],
    ['anthropic', 'kimi-k2', 'minicode'],
    ['openai-responses', 'gpt-5', 'openai-patch-freeform'],
    ['openai-responses', 'gpt-5.1-codex', 'openai-patch-freeform'],
    ['openai-responses', 'openai/gpt-5-mini', 'openai-patch-freeform'],
    ['openai-chat', 'gpt-5', 'openai-patch-function'],
    ['openai-chat', 'gpt-4.1-mini', 'openai-patch-function'],
    ['openai-chat', 'gpt-4o', 'minicode'],
    ['openai-chat', 'anthropic/claude-sonnet-4.5', 'minicode'],
    ['openai-chat', 'llama3.2', 'minicode'],
    ['gemini', 'gemini-2.5-pro', 'minicode'],
    ['ollama', 'gpt-oss:20b', 'minicode'],
  ] as const)('%s %s gets %s', (format, model, shape) => {
    expect(chooseToolShape(format, model)).toBe(shape);
  });

  it('gives minicode shapes to every model when the setting says so', () => {
    expect(chooseToolShape('anthropic', 'claude-sonnet-4-5', 'minicode')).toBe('minicode');
    expect(chooseToolShape('openai-responses', 'gpt-5', 'minicode')).toBe('minicode');
  });
});

describe('the Anthropic editor shape', () => {
  const shape = toolShapeFor('anthropic', 'claude-sonnet-4-5');
  const call = (args: unknown, name = 'str_replace_based_edit_tool') => ({
    id: 't1',
    name,
    argumentsText: JSON.stringify(args),
  });
  const mapped = (args: unknown, name?: string) => {
    const shaped = shape.toOurs(call(args, name), scratch({ 'dir/x.txt': 'x' }));
    return { name: shaped.call.name, args: JSON.parse(shaped.call.argumentsText) as unknown, outcome: shaped.outcome };
  };

  it('maps each editor command onto our tool with our argument names, keeping the id', () => {
    expect(mapped({ command: 'view', path: 'a.ts' })).toMatchObject({ name: 'read_file', args: { path: 'a.ts' } });
    expect(mapped({ command: 'view', path: 'a.ts', view_range: [3, 7] })).toMatchObject({
      name: 'read_file',
      args: { path: 'a.ts', offset: 3, limit: 5 },
    });
    expect(mapped({ command: 'view', path: 'dir' })).toMatchObject({
      name: 'glob',
      args: { pattern: '*', path: 'dir' },
    });
    expect(mapped({ command: 'create', path: 'n.ts', file_text: 'x' })).toMatchObject({
      name: 'write_file',
      args: { path: 'n.ts', content: 'x' },
    });
    expect(mapped({ command: 'str_replace', path: 'a.ts', old_str: 'a', new_str: 'b' })).toMatchObject({
      name: 'edit',
      args: { path: 'a.ts', old_string: 'a', new_string: 'b' },
    });
    expect(mapped({ command: 'str_replace', path: 'a.ts', old_str: 'gone' })).toMatchObject({
      name: 'edit',
      args: { new_string: '' },
    });
    expect(mapped({ command: 'insert', path: 'a.ts', insert_line: 2, new_str: 'y' })).toMatchObject({
      name: 'insert_text',
      args: { path: 'a.ts', insert_line: 2, text: 'y' },
    });
    expect(shape.toOurs(call({ command: 'view', path: 'a' }), '/').call.id).toBe('t1');
  });

  it('answers a bash restart without running a command, as a restart of the shell, and passes bash commands through', () => {
    expect(mapped({ restart: true }, 'bash').outcome).toMatchObject({ status: 'completed' });
    expect(shape.toOurs(call({ restart: true }, 'bash'), '/').restartShell).toBe(true);
    expect(shape.persistentShell).toBe(true);
    expect(mapped({ command: 'ls' }, 'bash')).toMatchObject({
      name: 'bash',
      args: { command: 'ls' },
      outcome: undefined,
    });
  });

  it('fails an unknown command or arguments that are not an object, with a hint', () => {
    expect(mapped({ command: 'undo_edit', path: 'a' }).outcome).toMatchObject({
      status: 'failed',
      cause: 'MODEL_ERROR',
      hint: expect.stringContaining('undo_edit is not available'),
    });
    expect(
      shape.toOurs({ id: 't', name: 'str_replace_based_edit_tool', argumentsText: '[1]' }, '/').outcome,
    ).toMatchObject({ status: 'failed' });
  });

  it('offers the editor only when read_file, write_file and edit are all in the run', () => {
    expect(shape.offer(createToolRegistry({ only: ['read_file', 'grep'] })).map((t) => t.name)).toEqual([
      'read_file',
      'grep',
    ]);
    const full = shape.offer(createToolRegistry()).map((t) => t.name);
    expect(full[0]).toBe('str_replace_based_edit_tool');
    expect(full).not.toContain('insert_text');
  });
});

describe('a selection of tools (a child agent definition)', () => {
  const offeredNames = (format: 'anthropic' | 'openai-responses', model: string, only: string[]) =>
    toolShapeFor(format, model)
      .offer(createToolRegistry({ only: withShapeTools(only) }))
      .map((t) => t.name);
  const noteOf = (format: 'anthropic' | 'openai-responses', model: string, only: string[]) => {
    const names = withShapeTools(only);
    return toolShapeFor(format, model).noteFor((n) => names.includes(n));
  };

  it('gets the tools only a native shape reaches when it has every tool they stand in for', () => {
    expect(withShapeTools(['read_file', 'write_file', 'edit'])).toEqual([
      'read_file',
      'write_file',
      'edit',
      'insert_text',
      'apply_patch',
    ]);
    expect(withShapeTools(['read_file', 'grep'])).toEqual(['read_file', 'grep']);
    expect(offeredNames('anthropic', 'claude-sonnet-4-5', ['read_file', 'write_file', 'edit', 'bash'])).toEqual([
      'str_replace_based_edit_tool',
      'bash',
    ]);
    expect(offeredNames('openai-responses', 'gpt-5', ['write_file', 'edit'])).toEqual(['apply_patch']);
  });

  it('has a note that names only the stand-ins it is offered', () => {
    const editorAndBash = noteOf('anthropic', 'claude-sonnet-4-5', ['read_file', 'write_file', 'edit', 'bash']);
    expect(editorAndBash).toContain('str_replace_based_edit_tool stands in');
    expect(editorAndBash).toContain('bash keeps its working directory');
    const bashOnly = noteOf('anthropic', 'claude-sonnet-4-5', ['read_file', 'bash']);
    expect(bashOnly).not.toContain('str_replace_based_edit_tool');
    expect(bashOnly).toContain('bash keeps');
    expect(noteOf('anthropic', 'claude-sonnet-4-5', ['read_file', 'grep'])).toBeUndefined();
    expect(noteOf('openai-responses', 'gpt-5', ['read_file', 'grep'])).toBeUndefined();
    expect(noteOf('openai-responses', 'gpt-5', ['write_file', 'edit'])).toContain('apply_patch stands in');
  });
});
