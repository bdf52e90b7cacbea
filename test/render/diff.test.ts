/**
 * Edit diffs from the tool to the screen: the bounded `FileDiff` the edit tools compute (and
 * preview for an approval), the events that carry it, and the lines every human renderer
 * prints from it, coloured on a TTY and plain `+`/`-` lines without colour.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FILE_DIFF_MAX_LINES,
  OutputEventSchema,
  createEnveloper,
  type EventDraft,
  type FileDiff,
  type OutputEvent,
} from '../../lib/events/index.js';
import { draft } from '../../lib/events/draft.js';
import { createApprovalHook } from '../../lib/policy/index.js';
import { initialState, reduce } from '../../lib/reducer/index.js';
import { createLinearRenderer, diffLines, viewOf } from '../../lib/render/index.js';
import { createLineStyler } from '../../lib/render/color.js';
import { factLines } from '../../lib/render/format.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { editTool } from '../../lib/tools/edit.js';
import { executeToolCall } from '../../lib/tools/execute.js';
import { makeFileDiff } from '../../lib/tools/file-diff.js';
import { writeFileTool } from '../../lib/tools/write-file.js';
import { context, scratch } from '../tools/helpers.js';

const GREET = "function greet(name) {\n  return 'Hello ' + name;\n}\n\nmodule.exports = greet;\n";

describe('makeFileDiff', () => {
  it('gives the hunk of an edit with its context and counts', async () => {
    const diff = await makeFileDiff(GREET, GREET.replace("'Hello ' + name", '`Hello, ${name}!`'));
    expect(diff).toEqual({
      lines: [
        '@@ -1,5 +1,5 @@',
        ' function greet(name) {',
        "-  return 'Hello ' + name;",
        '+  return `Hello, ${name}!`;',
        ' }',
        ' ',
        ' module.exports = greet;',
      ],
      added: 1,
      removed: 1,
      omitted: 0,
    });
  });

  it('shows a new file as added lines', async () => {
    expect(await makeFileDiff(undefined, 'a\nb\n')).toEqual({
      lines: ['@@ -0,0 +1,2 @@', '+a', '+b'],
      added: 2,
      removed: 0,
      omitted: 0,
    });
  });

  it('keeps at most the event bound and counts the rest, cutting very long lines', async () => {
    const after = Array.from({ length: 500 }, (_, i) => (i === 0 ? 'x'.repeat(1000) : `line ${i}`)).join('\n');
    const diff = (await makeFileDiff(undefined, after))!;
    expect(diff.lines).toHaveLength(FILE_DIFF_MAX_LINES);
    expect(diff.omitted).toBe(501 - FILE_DIFF_MAX_LINES);
    expect(diff.added).toBe(500);
    expect(diff.lines[1]!.endsWith('…')).toBe(true);
    expect(diff.lines[1]!.length).toBeLessThanOrEqual(400);
  });

  it('does not mark every line of a CRLF file as changed', async () => {
    const diff = (await makeFileDiff('a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n'))!;
    expect(diff).toMatchObject({ added: 1, removed: 1 });
    expect(diff.lines.join('\n')).not.toContain('\r');
  });

  it('diffs only the changed middle of a large file, with line numbers of the whole file', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `const v${i} = f(${i});`);
    const before = `${lines.join('\n')}\n`;
    const diff = (await makeFileDiff(before, before.replace('f(50000)', 'g(50000)')))!;
    expect(diff).toEqual({
      lines: [
        '@@ -49998,7 +49998,7 @@',
        ' const v49997 = f(49997);',
        ' const v49998 = f(49998);',
        ' const v49999 = f(49999);',
        '-const v50000 = f(50000);',
        '+const v50000 = g(50000);',
        ' const v50001 = f(50001);',
        ' const v50002 = f(50002);',
        ' const v50003 = f(50003);',
      ],
      added: 1,
      removed: 1,
      omitted: 0,
    });
  });

  it('gives the same hunks as a diff of the whole text, for any small edit', async () => {
    const { structuredPatch } = await import('diff');
    const line = fc.constantFrom('a', 'b', 'c', '', 'x y');
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 30 }),
        fc.array(line, { maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        async (a, b, endA, endB) => {
          const before = a.join('\n') + (endA ? '\n' : '');
          const after = b.join('\n') + (endB ? '\n' : '');
          fc.pre(before !== '' && before !== after && !before.includes('\u0000'));
          const whole = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 });
          const expected = whole.hunks.flatMap((h) => [
            `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
            ...h.lines,
          ]);
          expect((await makeFileDiff(before, after))?.lines ?? []).toEqual(expected);
        },
      ),
      { numRuns: 300, seed: 24 },
    );
  });

  it('shows a change too large to diff line by line as a replacement, bounded', async () => {
    const before = `${Array.from({ length: 6_000 }, (_, i) => `line ${i}`).join('\n')}\n`;
    const after = before.toUpperCase();
    const diff = (await makeFileDiff(before, after))!;
    expect(diff).toMatchObject({ added: 6_000, removed: 6_000 });
    expect(diff.lines[0]).toBe('@@ -1,6000 +1,6000 @@');
    expect(diff.lines[1]).toBe('-line 0');
    expect(diff.lines).toHaveLength(FILE_DIFF_MAX_LINES);
    expect(diff.omitted).toBe(12_001 - FILE_DIFF_MAX_LINES);
  });

  it('keeps a missing final newline where the file lacks it', async () => {
    expect((await makeFileDiff('a\nb', 'a\nc'))!.lines).toEqual([
      '@@ -1,2 +1,2 @@',
      ' a',
      '-b',
      '\\ No newline at end of file',
      '+c',
      '\\ No newline at end of file',
    ]);
  });

  it('gives no diff for binary content or no change', async () => {
    expect(await makeFileDiff('a\u0000b', 'a\u0000c')).toBeUndefined();
    expect(await makeFileDiff('same', 'same')).toBeUndefined();
  });
});

describe('diff lines for people', () => {
  const big: FileDiff = {
    lines: ['@@ -1,30 +1,30 @@', ...Array.from({ length: 30 }, (_, i) => `+line ${i}`)],
    added: 30,
    removed: 0,
    omitted: 40,
  };

  it('cut to the display bound with a marker counting what the display and the event left out', () => {
    const lines = diffLines(big, 5);
    expect(lines.map((l) => l.text)).toEqual([
      '  @@ -1,30 +1,30 @@',
      '  +line 0',
      '  +line 1',
      '  +line 2',
      '  +line 3',
      '  … +66 more lines',
    ]);
  });

  it('are sanitised: no escape sequence from the file reaches the terminal', () => {
    const lines = diffLines({ lines: ['+\u001b[2Jcleared\u001b]0;title\u0007\tx'], added: 1, removed: 0, omitted: 0 });
    expect(lines[0]!.text).toBe('  +cleared  x');
  });

  it('are plain + and - lines without colour, and coloured by role with it', () => {
    const fact = {
      kind: 'files' as const,
      changes: [
        {
          path: 'greet.js',
          kind: 'modify',
          diff: { lines: ['@@ -1 +1 @@', '-old', '+new'], added: 1, removed: 1, omitted: 0 },
        },
      ],
    };
    const lines = factLines(fact);
    const plain = createLineStyler(0).style;
    expect(lines.map(plain)).toEqual(['files: modify greet.js (+1 -1)', '  @@ -1 +1 @@', '  -old', '  +new']);
    const colored = createLineStyler(1).style;
    expect(colored(lines[2]!)).toBe('\u001b[31m  -old\u001b[39m');
    expect(colored(lines[3]!)).toBe('\u001b[32m  +new\u001b[39m');
  });
});

/** Run one tool call through the executor (ask mode, a person answering `decision`); enveloped events. */
async function execute(dir: string, name: string, args: unknown, decision: 'allow' | 'deny'): Promise<OutputEvent[]> {
  const drafts: EventDraft[] = [];
  const approve = createApprovalHook({ tty: true, prompt: async () => decision, onEvent: (e) => drafts.push(e) });
  const { ctx } = context(dir, { tty: true, approve });
  await executeToolCall({
    registry: createToolRegistry(),
    call: { id: 'call_1', name, argumentsText: JSON.stringify(args) },
    policy: 'ask',
    ctx,
    onEvent: (e) => drafts.push(e),
  });
  const enveloper = createEnveloper({ sessionId: 's', clock: () => 0 });
  return drafts.map((d) => OutputEventSchema.parse(enveloper.wrap(d)));
}

function linear(events: readonly OutputEvent[]): string {
  const out: string[] = [];
  const renderer = createLinearRenderer({ out: (s) => void out.push(s), viewOf });
  let state = initialState('s');
  for (const e of events) {
    state = reduce(state, e);
    renderer.onEvent(e, state);
  }
  return out.join('');
}

describe('edit tools and their events', () => {
  it('an edit asks with the diff it would make, then reports the same diff in file.changed', async () => {
    const dir = scratch({ 'greet.js': GREET });
    const events = await execute(
      dir,
      'edit',
      { path: 'greet.js', old_string: "'Hello ' + name", new_string: '`Hello, ${name}!`' },
      'allow',
    );
    const asked = events.find((e) => e.type === 'user.approval.requested')!;
    const changed = events.find((e) => e.type === 'file.changed')!;
    expect(asked.payload).toMatchObject({ toolName: 'edit', diff: { added: 1, removed: 1 } });
    expect((changed.payload as { changes: { diff?: FileDiff }[] }).changes[0]!.diff).toEqual(
      (asked.payload as { diff: FileDiff }).diff,
    );
    const text = linear(events);
    expect(text).toContain(
      "files: modify greet.js (+1 -1)\n  @@ -1,5 +1,5 @@\n   function greet(name) {\n  -  return 'Hello ' + name;\n  +  return `Hello, ${name}!`;\n",
    );
  });

  it('a denied write_file asks with the diff and changes nothing', async () => {
    const dir = scratch({ 'a.txt': 'one\ntwo\n' });
    const events = await execute(dir, 'write_file', { path: 'a.txt', content: 'one\n2\n' }, 'deny');
    expect(events.find((e) => e.type === 'user.approval.requested')!.payload).toMatchObject({
      diff: { lines: ['@@ -1,2 +1,2 @@', ' one', '-two', '+2'] },
    });
    expect(events.some((e) => e.type === 'file.changed')).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('preview never writes and never asks, even for a path outside the workspace', async () => {
    const dir = scratch({ 'a.txt': 'x\n' });
    const { ctx, asked } = context(dir);
    expect(await writeFileTool.preview!({ path: 'new.txt', content: 'hi\n' }, ctx)).toMatchObject({ added: 1 });
    expect(await editTool.preview!({ path: 'a.txt', old_string: 'x', new_string: 'y' }, ctx)).toMatchObject({
      added: 1,
      removed: 1,
    });
    expect(await editTool.preview!({ path: 'a.txt', old_string: 'absent', new_string: 'y' }, ctx)).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('x\n');
    expect(asked).toEqual([]);
  });

  it('a session stored before diffs still validates and renders its files line', () => {
    const enveloper = createEnveloper({ sessionId: 's', clock: () => 0 });
    const old = OutputEventSchema.parse(
      enveloper.wrap(draft('file.changed', { changes: [{ path: 'src/a.ts', kind: 'modify' }], toolCallId: 'call_4' })),
    );
    expect(linear([old])).toBe('files: modify src/a.ts\n');
  });
});
