/**
 * The child-session limits set from the command line and the config (`--max-child-depth`,
 * `--max-children`, config `children.{maxDepth, maxConcurrent}`): the real CLI against a scripted
 * OpenAI-compatible provider on loopback (hand-made chat completion streams), the real store. The
 * provider tells sessions apart by the first user message of each request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  startScriptedProvider,
  type Answer,
  type ScriptedProvider,
  type SeenRequest,
} from '../helpers/scripted-provider.js';
import { execJson, ofType, scratchProject, tempDir } from '../exec/helpers.js';

const providers: ScriptedProvider[] = [];
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
});

const PARENT = 'Delegate the survey';

function promptOf(request: SeenRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}
const toolCount = (request: SeenRequest): number => request.body.messages.filter((m) => m.role === 'tool').length;
const toolNames = (request: SeenRequest): string[] =>
  ((request.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);
const taskCall = (id: string, prompt: string) => ({
  id,
  name: 'task',
  argumentsText: JSON.stringify({ description: 'helper', prompt, subagent_type: 'general' }),
});

async function serve(answer: (request: SeenRequest) => Answer | Promise<Answer>) {
  const provider = await startScriptedProvider(answer);
  providers.push(provider);
  return {
    provider,
    args: [
      '--provider',
      'openai-chat',
      '--model',
      'gpt-4.1',
      '--base-url',
      provider.settings.baseUrl,
      '--sandbox',
      'off',
    ],
    env: { OPENAI_API_KEY: 'sk-test-children-limits-0123' },
  };
}

describe('child session limits', () => {
  it('--max-child-depth 0 offers no task tool, and config children.maxDepth 0 does the same', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'Done alone.' }));
    const flagged = await execJson([...args, '--max-child-depth', '0'], { cwd: scratchProject(), env, prompt: PARENT });
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(toolNames(provider.requests[0]!)).not.toContain('task');
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ children: { maxDepth: 0 } }));
    const configured = await execJson(args, { cwd: scratchProject(), env, home, prompt: PARENT });
    expect(configured.code, configured.stderr).toBe(0);
    expect(toolNames(provider.requests[1]!)).not.toContain('task');
    // Without either, the default depth 1 offers it to the top-level session.
    await execJson(args, { cwd: scratchProject(), env, prompt: PARENT });
    expect(toolNames(provider.requests[2]!)).toContain('task');
  });

  it('--max-child-depth 2 lets a child start a grandchild, linked to the child, which is not offered the tool', async () => {
    const { provider, args, env } = await serve((request) => {
      const prompt = promptOf(request);
      const step = toolCount(request);
      if (prompt === PARENT)
        return step === 0
          ? { text: '', toolCalls: [taskCall('call_child', 'Plan the survey')] }
          : { text: 'The chain reported back.' };
      if (prompt === 'Plan the survey')
        return step === 0
          ? { text: '', toolCalls: [taskCall('call_grandchild', 'Count the files')] }
          : { text: 'The grandchild counted.' };
      return { text: 'There are three files.' };
    });
    const run = await execJson([...args, '--max-child-depth', '2'], { cwd: scratchProject(), env, prompt: PARENT });
    expect(run.code, run.stderr).toBe(0);
    const starts = ofType(run.records, 'session.started');
    expect(starts).toHaveLength(3);
    const [parent, child, grandchild] = starts;
    expect(child!.payload).toMatchObject({ parentSessionId: parent!.sessionId, parentToolCallId: 'call_child' });
    expect(grandchild!.payload).toMatchObject({
      parentSessionId: child!.sessionId,
      parentToolCallId: 'call_grandchild',
    });
    // The child may start one; the grandchild, at the limit, is not offered the tool.
    expect(toolNames(provider.requests.find((r) => promptOf(r) === 'Plan the survey')!)).toContain('task');
    expect(toolNames(provider.requests.find((r) => promptOf(r) === 'Count the files')!)).not.toContain('task');
    const results = provider.requests
      .filter((r) => promptOf(r) === PARENT)
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual(['The grandchild counted.']);
  });

  it('--max-children 1 runs two task calls of one step one after the other', async () => {
    const order: string[] = [];
    const { args, env } = await serve((request) => {
      const prompt = promptOf(request);
      if (prompt === PARENT)
        return toolCount(request) === 0
          ? { text: '', toolCalls: [taskCall('call_a', 'First job'), taskCall('call_b', 'Second job')] }
          : { text: 'Both done.' };
      // Each child takes two requests: with one slot, the other child's first request never falls between them.
      order.push(`${prompt}#${toolCount(request)}`);
      return toolCount(request) === 0
        ? {
            text: '',
            toolCalls: [
              { id: `read_${prompt.length}_${order.length}`, name: 'read_file', argumentsText: '{"path":"README.md"}' },
            ],
          }
        : { text: `${prompt} finished.` };
    });
    const run = await execJson([...args, '--max-children', '1'], { cwd: scratchProject(), env, prompt: PARENT });
    expect(run.code, run.stderr).toBe(0);
    const jobs = order.map((o) => o.split('#')[0]);
    expect(jobs).toHaveLength(4);
    expect(jobs[1]).toBe(jobs[0]);
    expect(jobs[3]).toBe(jobs[2]);
    expect(new Set(order.map((o) => o.split('#')[0]))).toEqual(new Set(['First job', 'Second job']));
  });

  it('refuses a bad limit as a usage error before any request (exit 2, one summary line)', async () => {
    const { provider, args, env } = await serve(() => ({ text: 'never' }));
    for (const bad of [
      ['--max-children', '0'],
      ['--max-child-depth', '-1'],
      ['--max-child-depth', 'two'],
    ]) {
      const run = await execJson([...args, ...bad], { cwd: scratchProject(), env, prompt: PARENT });
      expect(run.code).toBe(2);
      expect(run.records).toHaveLength(1);
      expect(run.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_USAGE' } });
    }
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ children: { maxConcurrent: 0 } }));
    const configured = await execJson(args, { cwd: scratchProject(), env, home, prompt: PARENT });
    expect(configured.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_CONFIG_INVALID' } });
    expect(provider.requests).toHaveLength(0);
  });
});
