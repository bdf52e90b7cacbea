import { describe, expect, it } from 'vitest';
import { decodeKey } from '../../lib/chat/keys.js';
import { applyKey, createEditor, submit, textOf, type EditKey, type Editor } from '../../lib/chat/line-editor.js';
import { footerLines, statusLines } from '../../lib/chat/observe.js';
import { isCommand } from '../../lib/chat/commands.js';
import { layoutArea } from '../../lib/chat/prompt-area.js';

const type = (e: Editor, text: string): Editor => applyKey(e, { kind: 'insert', text });
const keys = (e: Editor, ...ks: EditKey['kind'][]): Editor =>
  ks.reduce((x, k) => applyKey(x, { kind: k } as EditKey), e);

describe('the line editor', () => {
  it('continues a line ending in a backslash and submits the whole text on Enter', () => {
    let e = type(createEditor(), 'first \\');
    e = submit(e).editor;
    e = type(e, 'second');
    expect(e.lines).toEqual(['first ', 'second']);
    const r = submit(e);
    expect(r.text).toBe('first \nsecond');
    expect(textOf(r.editor)).toBe('');
    expect(r.editor.history).toEqual(['first \nsecond']);
  });

  it('browses history with up and down and brings the draft back', () => {
    let e = createEditor(['one', 'two']);
    e = type(e, 'draft');
    e = keys(e, 'up');
    expect(textOf(e)).toBe('two');
    e = keys(e, 'up', 'up');
    expect(textOf(e)).toBe('one');
    e = keys(e, 'down', 'down');
    expect(textOf(e)).toBe('draft');
  });

  it('edits in the middle of a line and joins lines on backspace', () => {
    let e = type(createEditor(), 'ac');
    e = keys(e, 'left');
    e = type(e, 'b');
    expect(textOf(e)).toBe('abc');
    e = keys(e, 'end', 'newline');
    e = type(e, 'd');
    e = keys(e, 'home', 'backspace');
    expect(textOf(e)).toBe('abcd');
  });

  it('splits pasted text with newlines into lines', () => {
    expect(type(createEditor(), 'x\r\ny').lines).toEqual(['x', 'y']);
  });
});

describe('the key decoder', () => {
  it('maps Enter, Alt+Enter, Esc, Ctrl+C, Ctrl+O and printable text', () => {
    expect(decodeKey('\r', { name: 'return' })).toEqual({ kind: 'submit' });
    expect(decodeKey(undefined, { name: 'return', meta: true })).toEqual({ kind: 'edit', key: { kind: 'newline' } });
    expect(decodeKey(undefined, { name: 'escape' })).toEqual({ kind: 'abort' });
    expect(decodeKey('\u0003', { name: 'c', ctrl: true })).toEqual({ kind: 'interrupt' });
    expect(decodeKey('\u000f', { name: 'o', ctrl: true })).toEqual({ kind: 'toggle-reasoning' });
    expect(decodeKey('é', { sequence: 'é' })).toEqual({ kind: 'edit', key: { kind: 'insert', text: 'é' } });
    expect(decodeKey('\u001b[99~', { sequence: '\u001b[99~' })).toEqual({ kind: 'ignore' });
  });
});

describe('the footer and /status', () => {
  const observed = {
    contextTokens: 1234,
    anchored: true,
    windowTokens: 200_000,
    usage: { inputTokens: 3600, outputTokens: 174 },
    costUsd: 0.0134,
    model: 'claude-sonnet-4-5',
  };

  it('keep the context window and spend on separate labelled lines, unknown as unknown', () => {
    expect(footerLines(observed, 80)).toEqual([
      'Context: ~1,234 of 200,000 tokens (1%)',
      'Spend: 3,600 in, 174 out, $0.0134 est. · Budget: none',
      'Model: claude-sonnet-4-5',
    ]);
    expect(footerLines({ ...observed, usage: {}, costUsd: undefined } as never, 39)).toEqual([
      'Context: ~1,234 of 200,000 tokens (1%)',
      'Spend: unknown in, unknown out tokens',
      'Cost: unknown · Budget: none',
      'Model: claude-sonnet-4-5',
    ]);
    const status = statusLines({ ...observed, budget: { limitUsd: 0.01 } });
    expect(status.map((l) => l.split(':')[0])).toEqual([
      'Model',
      'Context',
      expect.stringMatching(/^ +\(next request/),
      'Input',
      'Output',
      'Total',
      'Cache',
      'Cost',
      'Budget',
      'Sandbox',
    ]);
    expect(status[6]).toBe('Cache:   unknown - provider usage, session');
    expect(statusLines({ ...observed, cacheHitRatio: 0.8 })[6]).toBe(
      'Cache:   80% of input read from cache - provider usage, session',
    );
    expect(status[8]).toBe('Budget:  over (limit $0.0100)');
    // The sandbox is named, and its absence never silent.
    expect(status[9]).toBe('Sandbox: off (commands run unsandboxed)');
    expect(statusLines({ ...observed, sandbox: { mode: 'workspace-write', network: false } })[9]).toBe(
      'Sandbox: workspace-write, network off',
    );
    expect(footerLines({ ...observed, approvalMode: 'auto', sandbox: { mode: 'off', network: true } }, 80).at(-1)).toBe(
      'Model: claude-sonnet-4-5 · approvals: auto · sandbox off',
    );
  });

  it('tells a slash command from a path', () => {
    expect(isCommand('/status')).toBe(true);
    expect(isCommand('/model gpt-4.1')).toBe(true);
    expect(isCommand('/etc/hosts is wrong')).toBe(false);
    expect(isCommand('/')).toBe(true);
    expect(isCommand(' / ')).toBe(true);
  });

  it('lays out the prompt with the cursor at the editing point, wrapping at the width', () => {
    const e = type(createEditor(), 'x'.repeat(12));
    const layout = layoutArea(['Context: ~1'], e, 10);
    expect(layout.lines).toEqual(['Context: ~1', `› ${'x'.repeat(12)}`]);
    expect(layout).toMatchObject({ cursorRow: 3, cursorCol: 4, rows: 4 });
  });
});
