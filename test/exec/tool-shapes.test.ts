/**
 * Model-native tool shapes end to end, through the built CLI and a loopback provider whose
 * captured request bodies show what each model was offered: Claude 4 gets the Messages API's text
 * editor and bash, GPT-5 over Responses the freeform apply_patch tool with its grammar, GPT-4.1
 * over Chat Completions apply_patch as a function, Gemini minicode's own tools; the model's
 * native calls run as our tools (events, file changes) and go back to the provider in its own
 * shape. The streams are hand-made in the providers' wire formats (cassettes/wire-formats.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { sha256Of } from '../../lib/instructions/load.js';
import { APPLY_PATCH_GRAMMAR } from '../../lib/tools/shapes.js';
import { contentTypeOf, execJson, ofType, tempDir, turnBody } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

type Turn = {
  text?: string;
  calls?: ({ id: string; name: string; args: unknown } | { id: string; name: string; input: string })[];
};

/** A loopback server answering `bodies` in order, with the CLI flags that point a run at it. */
async function serve(
  format: string,
  model: string,
  bodies: string[],
): Promise<{ args: string[]; env: NodeJS.ProcessEnv; sent: () => any[] }> {
  const server = await startReplayServer(bodies.map((b) => streamOk(b, contentTypeOf(format))));
  servers.push(server);
  const base = format.startsWith('openai') ? `${server.origin}/v1` : server.origin;
  const env =
    format === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'sk-ant-shapes-fake-0123456789' }
      : format === 'gemini'
        ? { GEMINI_API_KEY: 'gemini-shapes-fake-0123456789' }
        : {};
  return {
    args: ['--provider', format, '--model', model, '--base-url', base],
    env,
    sent: () => server.requests.map((r) => JSON.parse(r.body)),
  };
}

const turns = (format: string, list: Turn[]): string[] => list.map((t, i) => turnBody(format, t, i + 1));

function project(files: Record<string, string>): string {
  const dir = tempDir('minicode-shapes-');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const toolEvents = (records: Record<string, unknown>[]) =>
  ofType(records, 'tool.started').map((e) => [e.payload.name, e.payload.input]);

describe('model-native tool shapes', () => {
  it('offers Claude 4 the text editor and bash tool types, and runs their commands as read_file, edit, write_file, insert_text and a shell restart', async () => {
    const cwd = project({ 'notes.txt': 'alpha\nbeta\n', 'src/a.ts': 'export const a = 1;\n' });
    const editor = 'str_replace_based_edit_tool';
    const p = await serve(
      'anthropic',
      'claude-sonnet-4-5',
      turns('anthropic', [
        {
          calls: [
            { id: 'toolu_1', name: editor, args: { command: 'view', path: 'notes.txt', view_range: [2, -1] } },
            { id: 'toolu_2', name: editor, args: { command: 'view', path: 'src' } },
          ],
        },
        {
          calls: [
            {
              id: 'toolu_3',
              name: editor,
              args: { command: 'str_replace', path: 'notes.txt', old_str: 'beta', new_str: 'BETA' },
            },
          ],
        },
        {
          calls: [
            {
              id: 'toolu_4',
              name: editor,
              args: { command: 'insert', path: 'notes.txt', insert_line: 0, insert_text: 'top' },
            },
          ],
        },
        { calls: [{ id: 'toolu_5', name: editor, args: { command: 'create', path: 'new.md', file_text: '# new\n' } }] },
        { calls: [{ id: 'toolu_6', name: 'bash', args: { restart: true } }] },
        { calls: [{ id: 'toolu_7', name: editor, args: { command: 'undo_edit', path: 'notes.txt' } }] },
        { text: 'done' },
      ]),
    );
    const run = await execJson(p.args, { cwd, env: p.env });
    expect(run.code, run.stderr).toBe(0);
    const [first, ...rest] = p.sent();
    const tools = first.tools.map((t: any) => ({ ...t, cache_control: undefined }));
    expect(tools).toContainEqual({ type: 'text_editor_20250728', name: editor, cache_control: undefined });
    expect(tools).toContainEqual({ type: 'bash_20250124', name: 'bash', cache_control: undefined });
    const names = first.tools.map((t: any) => t.name);
    for (const ours of ['read_file', 'write_file', 'edit']) expect(names).not.toContain(ours);
    expect(names).toEqual(expect.arrayContaining(['grep', 'glob', 'submit_result', 'update_plan']));
    // The system prompt names the tools the model is offered, and session.started hashes what was sent.
    const system = first.system.map((b: any) => b.text).join('');
    expect(system).toContain('str_replace_based_edit_tool stands in for read_file, write_file and edit');
    expect(ofType(run.records, 'session.started')[0]!.payload.systemPromptDigest).toBe(sha256Of(system));
    // Events report our tools with our arguments.
    expect(toolEvents(run.records)).toEqual([
      ['read_file', { path: 'notes.txt', offset: 2 }],
      ['glob', { pattern: '*', path: 'src' }],
      ['edit', { path: 'notes.txt', old_string: 'beta', new_string: 'BETA' }],
      ['insert_text', { path: 'notes.txt', insert_line: 0, text: 'top' }],
      ['write_file', { path: 'new.md', content: '# new\n' }],
      ['bash', { restart: true }],
      [editor, { command: 'undo_edit', path: 'notes.txt' }],
    ]);
    expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('top\nalpha\nBETA\n');
    expect(fs.readFileSync(path.join(cwd, 'new.md'), 'utf8')).toBe('# new\n');
    // The provider gets its own shape back: tool_use blocks as the model wrote them, our results.
    const second = rest[0];
    const uses = second.messages[1].content.filter((b: any) => b.type === 'tool_use');
    expect(uses.map((b: any) => [b.name, b.input])).toEqual([
      [editor, { command: 'view', path: 'notes.txt', view_range: [2, -1] }],
      [editor, { command: 'view', path: 'src' }],
    ]);
    const results = second.messages[2].content.filter((b: any) => b.type === 'tool_result');
    expect(results[0].content).toContain('2\tbeta');
    expect(results[1].content).toContain('src/a.ts');
    const last = rest.at(-1);
    const lastResults = last.messages.at(-1).content.filter((b: any) => b.type === 'tool_result');
    expect(lastResults[0]).toMatchObject({
      is_error: true,
      content: expect.stringContaining('no command "undo_edit"'),
    });
    const restart = rest[4].messages.at(-1).content.find((b: any) => b.tool_use_id === 'toolu_6');
    expect(restart.content).toMatch(/restarted/);
  });

  it('offers GPT-5 over Responses the freeform apply_patch tool with its grammar, and answers its call with custom_tool_call_output', async () => {
    const cwd = project({ 'app.py': 'def greet():\n    print("Hi")\n' });
    const patch =
      '*** Begin Patch\n*** Update File: app.py\n@@ def greet():\n-    print("Hi")\n+    print("Hello")\n*** Add File: README.md\n+# app\n*** End Patch\n';
    const p = await serve(
      'openai-responses',
      'gpt-5',
      turns('openai-responses', [
        { calls: [{ id: 'call_patch1', name: 'apply_patch', input: patch }] },
        { text: 'patched' },
      ]),
    );
    const run = await execJson(p.args, { cwd });
    expect(run.code, run.stderr).toBe(0);
    const [first, second] = p.sent();
    const patchTool = first.tools.find((t: any) => t.name === 'apply_patch');
    expect(patchTool).toMatchObject({
      type: 'custom',
      name: 'apply_patch',
      format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_GRAMMAR },
    });
    const names = first.tools.map((t: any) => t.name);
    expect(names).not.toContain('write_file');
    expect(names).not.toContain('edit');
    expect(names).toContain('read_file');
    expect(first.instructions).toContain('apply_patch stands in for write_file and edit');
    expect(toolEvents(run.records)).toEqual([['apply_patch', { input: patch }]]);
    expect(fs.readFileSync(path.join(cwd, 'app.py'), 'utf8')).toBe('def greet():\n    print("Hello")\n');
    expect(fs.readFileSync(path.join(cwd, 'README.md'), 'utf8')).toBe('# app\n');
    const changed = ofType(run.records, 'file.changed')[0]!.payload.changes;
    // From the checkpoint's diff, in its order.
    expect(changed.map((c: any) => [c.path, c.kind]).sort()).toEqual([
      ['README.md', 'create'],
      ['app.py', 'modify'],
    ]);
    expect(second.input).toContainEqual({
      type: 'custom_tool_call',
      call_id: 'call_patch1',
      name: 'apply_patch',
      input: patch,
    });
    expect(second.input).toContainEqual({
      type: 'custom_tool_call_output',
      call_id: 'call_patch1',
      output: 'Success. Updated the following files:\nM app.py\nA README.md',
    });
  });

  it('offers GPT-4.1 over Chat Completions apply_patch as a function taking the patch as input', async () => {
    const cwd = project({ 'a.txt': 'one\n' });
    const patch = '*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** End Patch';
    const p = await serve(
      'openai-chat',
      'gpt-4.1',
      turns('openai-chat', [
        { calls: [{ id: 'call_1', name: 'apply_patch', args: { input: patch } }] },
        { text: 'ok' },
      ]),
    );
    const run = await execJson(p.args, { cwd });
    expect(run.code, run.stderr).toBe(0);
    const fn = p.sent()[0].tools.find((t: any) => t.function.name === 'apply_patch').function;
    expect(fn.parameters).toMatchObject({
      type: 'object',
      properties: { input: { type: 'string' } },
      required: ['input'],
    });
    expect(fn.description).toContain('*** Begin Patch');
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
  });

  it("gives Gemini minicode's own tools, and --tool-shapes minicode gives them to Claude too", async () => {
    const gemini = await serve('gemini', 'gemini-2.5-flash', turns('gemini', [{ text: 'ok' }]));
    expect((await execJson(gemini.args, { cwd: project({}), env: gemini.env })).code).toBe(0);
    const declared = gemini.sent()[0].tools[0].functionDeclarations.map((d: any) => d.name);
    expect(declared).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit', 'bash']));
    expect(declared).not.toContain('apply_patch');

    const claude = await serve('anthropic', 'claude-opus-4-1', turns('anthropic', [{ text: 'ok' }]));
    const run = await execJson([...claude.args, '--tool-shapes', 'minicode'], { cwd: project({}), env: claude.env });
    expect(run.code, run.stderr).toBe(0);
    const body = claude.sent()[0];
    expect(body.tools.every((t: any) => t.type === undefined && t.input_schema)).toBe(true);
    expect(body.tools.map((t: any) => t.name)).toEqual(
      expect.arrayContaining(['read_file', 'write_file', 'edit', 'bash']),
    );
    expect(body.system.map((b: any) => b.text).join('')).not.toContain('# Tools in this run');
  });

  it('takes tools.shapes from the config, and keeps our shapes for Claude 3.x', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ tools: { shapes: 'minicode' } }));
    const gpt = await serve('openai-responses', 'gpt-5', turns('openai-responses', [{ text: 'ok' }]));
    expect((await execJson(gpt.args, { cwd: project({}), home })).code).toBe(0);
    expect(gpt.sent()[0].tools.every((t: any) => t.type === 'function')).toBe(true);

    const old = await serve('anthropic', 'claude-3-7-sonnet-20250219', turns('anthropic', [{ text: 'ok' }]));
    expect((await execJson(old.args, { cwd: project({}), env: old.env })).code).toBe(0);
    expect(old.sent()[0].tools.map((t: any) => t.name)).toContain('read_file');
  });
});
