/**
 * Child sessions (the `task` tool) end to end: the real CLI against a scripted OpenAI-compatible
 * provider on loopback (hand-made chat completion streams), the real store. The provider tells
 * the parent from its children by the first user message of each request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from '../../lib/pid-alive.js';
import { afterAll, describe, expect, it } from 'vitest';
import {
  startScriptedProvider,
  type Answer,
  type ScriptedProvider,
  type SeenRequest,
} from '../helpers/scripted-provider.js';
import { execJson, ofType, scratchProject, spawnExec, cleanEnv, tempDir } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { processesTagged } from '../mcp/helpers.js';
import { HAVE_BWRAP } from '../sandbox/helpers.js';

const providers: ScriptedProvider[] = [];
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
});

const PARENT_PROMPT = 'Survey the project with two helpers';

/** The first user message of a request (the prompt its session started from). */
function promptOf(request: SeenRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

/** How many tool results the request carries (the step the session is at). */
function toolResults(request: SeenRequest): { role: string; content?: unknown; tool_call_id?: string }[] {
  return request.body.messages.filter((m) => m.role === 'tool') as {
    role: string;
    content?: unknown;
    tool_call_id?: string;
  }[];
}

const taskCall = (id: string, agent: string, prompt: string) => ({
  id,
  name: 'task',
  argumentsText: JSON.stringify({ description: `${agent} helper`, prompt, subagent_type: agent }),
});

async function serve(
  answer: (request: SeenRequest) => Answer | Promise<Answer>,
): Promise<{ provider: ScriptedProvider; args: string[]; env: NodeJS.ProcessEnv }> {
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
    env: { OPENAI_API_KEY: 'sk-test-children-0123456789' },
  };
}

describe('the task tool starts child sessions', () => {
  it('runs two children in parallel, stores each as its own session linked to the parent, and returns their answers as tool results', async () => {
    let bothStarted!: () => void;
    const started = new Set<string>();
    const together = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const { provider, args, env } = await serve(async (request) => {
      const prompt = promptOf(request);
      if (prompt === PARENT_PROMPT) {
        if (toolResults(request).length === 0)
          return {
            text: '',
            toolCalls: [
              taskCall('call_a', 'explore', 'Find the README'),
              taskCall('call_b', 'general', 'Count the files'),
            ],
          };
        return { text: 'Both helpers reported back.', usage: { inputTokens: 50, outputTokens: 5 } };
      }
      // Each child's first request waits until the other child's has arrived: they run at once.
      started.add(prompt);
      if (started.size === 2) bothStarted();
      await together;
      return { text: `answer to: ${prompt}`, usage: { inputTokens: 20, outputTokens: 4 } };
    });
    const cwd = scratchProject();
    const home = tempDir('minicode-home-');
    const run = await execJson(args, { cwd, env, home, prompt: PARENT_PROMPT });
    expect(run.code, run.stderr).toBe(0);
    const parentStart = run.records.find(
      (r) => r.type === 'session.started' && !(r.payload as Record<string, unknown>).parentSessionId,
    ) as Record<string, any>;
    const parentId = parentStart.sessionId as string;
    const childStarts = ofType(run.records, 'session.started').filter((r) => r.payload.parentSessionId === parentId);
    expect(childStarts.map((r) => r.payload.parentToolCallId).sort()).toEqual(['call_a', 'call_b']);
    expect(childStarts.map((r) => r.payload.subagentType).sort()).toEqual(['explore', 'general']);
    for (const child of childStarts) expect(child.payload.origin).toBe('task');
    // The children's lines sit between the parent's tool.started and its tool.completed.
    const index = (pred: (r: Record<string, any>) => boolean): number => run.records.findIndex(pred);
    const toolStarted = index((r) => r.type === 'tool.started' && r.payload.toolCallId === 'call_a');
    const childEnded = index((r) => r.type === 'session.ended' && r.sessionId === childStarts[0]!.sessionId);
    const toolDone = index(
      (r) => r.type === 'tool.completed' && r.payload.toolCallId === childStarts[0]!.payload.parentToolCallId,
    );
    expect(toolStarted).toBeGreaterThan(0);
    expect(childEnded).toBeGreaterThan(toolStarted);
    expect(toolDone).toBeGreaterThan(childEnded);
    // The parent's second request carries each child's answer as the tool result.
    const last = provider.requests.filter((r) => promptOf(r) === PARENT_PROMPT).at(-1)!;
    const results = Object.fromEntries(toolResults(last).map((m) => [m.tool_call_id, m.content]));
    expect(results).toEqual({ call_a: 'answer to: Find the README', call_b: 'answer to: Count the files' });
    // explore got read-only tools; general the parent's (without task: a child may not start children).
    const childTools = (prompt: string): string[] =>
      ((provider.requests.find((r) => promptOf(r) === prompt)!.body.tools as { function: { name: string } }[]) ?? [])
        .map((t) => t.function.name)
        .sort();
    expect(childTools('Find the README')).toEqual([
      'glob',
      'grep',
      'read_file',
      'read_image',
      'submit_result',
      'update_plan',
    ]);
    expect(childTools('Count the files')).not.toContain('task');
    expect(childTools('Count the files')).toContain('bash');
    const parentTools = (provider.requests[0]!.body.tools as { function: { name: string } }[]).map(
      (t) => t.function.name,
    );
    expect(parentTools).toContain('task');
    // Stored: the parent and both children, each rebuilt on its own.
    const list = await runCli(['sessions', '--json'], { env: cleanEnv(home) });
    const entries = list.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toHaveLength(3);
    expect(entries.every((e) => e.outcome === 'completed')).toBe(true);
    // sessions --tree: the parent, then its children under it.
    const tree = await runCli(['sessions', '--json', '--tree'], { env: cleanEnv(home) });
    const rows = tree.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      rows.map((r) => [
        r.sessionId === parentId ? 'parent' : r.parentSessionId === parentId ? 'child' : 'other',
        r.depth,
      ]),
    ).toEqual([
      ['parent', 0],
      ['child', 1],
      ['child', 1],
    ]);
    const treeText = await runCli(['sessions', '--tree'], { env: cleanEnv(home) });
    expect(treeText.stdout.split('\n').filter((l) => l.startsWith('└ '))).toHaveLength(2);
    // replay of the parent shows each child's events nested after the call that started it.
    const nested = await runCli(['replay', parentId, '--json'], { env: cleanEnv(home) });
    const lines = nested.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    for (const child of childStarts) {
      const callAt = lines.findIndex(
        (r) => r.type === 'tool.started' && r.payload.toolCallId === child.payload.parentToolCallId,
      );
      const childAt = lines.findIndex((r) => r.type === 'session.started' && r.sessionId === child.sessionId);
      const doneAt = lines.findIndex(
        (r) => r.type === 'tool.completed' && r.payload.toolCallId === child.payload.parentToolCallId,
      );
      expect(childAt).toBeGreaterThan(callAt);
      expect(doneAt).toBeGreaterThan(childAt);
    }
    expect(lines.at(-1)).toMatchObject({ type: 'summary', outcome: 'completed', sessionId: parentId });
    const linear = await runCli(['replay', parentId, '--linear'], { env: cleanEnv(home) });
    expect(linear.stdout).toContain('  │ ');
    for (const child of childStarts) {
      const replay = await runCli(['replay', child.sessionId as string, '--json'], { env: cleanEnv(home) });
      expect(replay.code, replay.stderr).toBe(0);
      const summary = JSON.parse(replay.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(summary).toMatchObject({ outcome: 'completed' });
    }
  });

  it('keeps a child from starting a grandchild: the call fails with the depth limit, no third session exists', async () => {
    const { provider, args, env } = await serve((request) => {
      const prompt = promptOf(request);
      const step = toolResults(request).length;
      if (prompt === PARENT_PROMPT)
        return step === 0
          ? { text: '', toolCalls: [taskCall('call_p', 'general', 'Delegate further')] }
          : { text: 'Done.' };
      if (step === 0) return { text: '', toolCalls: [taskCall('call_g', 'general', 'Grandchild work')] };
      return { text: 'I could not delegate.' };
    });
    const home = tempDir('minicode-home-');
    const run = await execJson(args, { cwd: scratchProject(), env, home, prompt: PARENT_PROMPT });
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'session.started')).toHaveLength(2);
    const refused = ofType(run.records, 'tool.failed').find((r) => r.payload.toolCallId === 'call_g')!;
    expect(refused.payload.message).toContain('depth limit');
    expect(provider.requests.some((r) => promptOf(r) === 'Grandchild work')).toBe(false);
  });

  it("with --json-children summary prints only the children's session.started and session.ended", async () => {
    const { args, env } = await serve((request) => {
      const prompt = promptOf(request);
      if (prompt === PARENT_PROMPT)
        return toolResults(request).length === 0
          ? { text: '', toolCalls: [taskCall('call_s', 'explore', 'Look around')] }
          : { text: 'Done.' };
      return {
        text: '',
        toolCalls:
          toolResults(request).length === 0
            ? [{ id: 'call_r', name: 'read_file', argumentsText: '{"path":"README.md"}' }]
            : [],
      };
    });
    const run = await execJson([...args, '--json-children', 'summary'], {
      cwd: scratchProject(),
      env,
      prompt: PARENT_PROMPT,
    });
    expect(run.code, run.stderr).toBe(0);
    const parentId = run.records[0]!.sessionId;
    const childLines = run.records
      .filter((r) => r.sessionId !== undefined && r.sessionId !== parentId)
      .map((r) => r.type);
    expect(childLines).toEqual(['session.started', 'session.ended']);
  });
});

/** The records of a finished `spawnExec`. */
function recordsOf(lines: string[]): Record<string, any>[] {
  return lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, any>);
}

/** The index entries of a store, by session id. */
async function entriesOf(home: string): Promise<Map<string, Record<string, unknown>>> {
  const list = await runCli(['sessions', '--json'], { env: cleanEnv(home) });
  return new Map(
    list.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((e) => [e.sessionId as string, e]),
  );
}

/** The last line (the summary) of `replay SESSION --json`. */
async function replayed(home: string, sessionId: string): Promise<Record<string, unknown>> {
  const replay = await runCli(['replay', sessionId, '--json'], { env: cleanEnv(home) });
  expect(replay.code, replay.stderr).toBe(0);
  return JSON.parse(replay.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('a child never outlives its parent', () => {
  /** A parent that starts one general child whose bash writes its pid and sleeps. */
  async function sleepingChild(pidFile: string) {
    return serve((request) => {
      const prompt = promptOf(request);
      const step = toolResults(request).length;
      if (prompt === PARENT_PROMPT)
        return step === 0
          ? { text: '', toolCalls: [taskCall('call_c', 'general', 'Run the slow command')] }
          : { text: 'Done.' };
      if (step === 0)
        return {
          text: '',
          toolCalls: [
            {
              id: 'call_sleep',
              name: 'bash',
              argumentsText: JSON.stringify({ command: `echo $$ > ${pidFile}; exec sleep 60` }),
            },
          ],
        };
      return { text: 'slept' };
    });
  }

  it('Ctrl+C on the parent cancels the child (cause parent-cancel), kills its command, and both sessions rebuild as they ended', async () => {
    const pidFile = path.join(tempDir('minicode-pid-'), 'pid');
    const { args, env } = await sleepingChild(pidFile);
    const home = tempDir('minicode-home-');
    const run = spawnExec([PARENT_PROMPT, '--json', '--cwd', scratchProject(), ...args], cleanEnv(home, env));
    const pid = await waitFor(
      () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) || undefined : undefined),
      { what: 'the child bash to write its pid' },
    );
    run.child.kill('SIGINT');
    const done = await run.done;
    expect(done.code, done.stderr).toBe(130);
    await waitFor(() => !pidAlive(pid), { what: `the child's command (pid ${pid}) to be gone` });
    const records = recordsOf(run.lines);
    const starts = ofType(records, 'session.started');
    const parentId = starts.find((r) => !r.payload.parentSessionId)!.sessionId as string;
    const childId = starts.find((r) => r.payload.parentSessionId === parentId)!.sessionId as string;
    const cancelled = ofType(records, 'task.cancelled');
    expect(cancelled.find((r) => r.sessionId === childId)!.payload).toMatchObject({
      reason: 'aborted',
      cause: 'parent-cancel',
    });
    expect(cancelled.find((r) => r.sessionId === parentId)!.payload).toMatchObject({ reason: 'aborted' });
    expect(cancelled.find((r) => r.sessionId === parentId)!.payload.cause).toBeUndefined();
    // The child's session ends before the parent's.
    const ended = (id: string): number => records.findIndex((r) => r.type === 'session.ended' && r.sessionId === id);
    expect(ended(childId)).toBeGreaterThan(0);
    expect(ended(parentId)).toBeGreaterThan(ended(childId));
    const entries = await entriesOf(home);
    expect(entries.get(parentId)).toMatchObject({ outcome: 'cancelled' });
    expect(entries.get(childId)).toMatchObject({ outcome: 'cancelled' });
    expect(await replayed(home, childId)).toMatchObject({ outcome: 'cancelled', reason: 'aborted' });
    expect(await replayed(home, parentId)).toMatchObject({ outcome: 'cancelled', reason: 'aborted' });
  });

  it("the parent's --timeout cancels the child with cause parent-cancel", async () => {
    const pidFile = path.join(tempDir('minicode-pid-'), 'pid');
    const { args, env } = await sleepingChild(pidFile);
    const run = await execJson([...args, '--timeout', '4000'], { cwd: scratchProject(), env, prompt: PARENT_PROMPT });
    expect(run.code, run.stderr).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'timeout' });
    const parentId = run.records[0]!.sessionId;
    const child = ofType(run.records, 'task.cancelled').find((r) => r.sessionId !== parentId)!;
    expect(child.payload).toMatchObject({ reason: 'timeout', cause: 'parent-cancel' });
    // When the child got as far as its command, the command is gone too.
    const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) : 0;
    if (pid > 0) await waitFor(() => !pidAlive(pid), { what: `the child's command (pid ${pid}) to be gone` });
  });

  it('after SIGKILL mid-child both sessions rebuild as interrupted, the child still linked to its parent, nothing showing success', async () => {
    const pidFile = path.join(tempDir('minicode-pid-'), 'pid');
    const { args, env } = await sleepingChild(pidFile);
    const home = tempDir('minicode-home-');
    const run = spawnExec([PARENT_PROMPT, '--json', '--cwd', scratchProject(), ...args], cleanEnv(home, env));
    const pid = await waitFor(
      () => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) || undefined : undefined),
      { what: 'the child bash to write its pid' },
    );
    run.child.kill('SIGKILL');
    await run.done;
    // Unsandboxed, the command ran in its own process group; SIGKILL of minicode cannot reach it, so the test does.
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    const live = recordsOf(run.lines);
    const parentId = ofType(live, 'session.started').find((r) => !r.payload.parentSessionId)!.sessionId as string;
    const entries = await entriesOf(home);
    expect([...entries.keys()].sort()).toHaveLength(2);
    const childId = [...entries.keys()].find((id) => id !== parentId)!;
    expect(entries.get(parentId)).toMatchObject({ outcome: 'interrupted' });
    expect(entries.get(childId)).toMatchObject({
      outcome: 'interrupted',
      parentSessionId: parentId,
      parentToolCallId: 'call_c',
    });
    // Rebuilt in another process: both interrupted, the child nested under the parent's task call.
    const parentReplay = await runCli(['replay', parentId, '--json'], { env: cleanEnv(home) });
    expect(parentReplay.code, parentReplay.stderr).toBe(0);
    const lines = parentReplay.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({ outcome: 'interrupted', ok: false });
    const events = lines.slice(0, -1);
    const taskStarted = events.findIndex((e) => e.type === 'tool.started' && e.payload.toolCallId === 'call_c');
    const childStarted = events.findIndex((e) => e.type === 'session.started' && e.sessionId === childId);
    expect(taskStarted).toBeGreaterThanOrEqual(0);
    expect(childStarted).toBeGreaterThan(taskStarted);
    expect(events[childStarted]!.payload).toMatchObject({ parentSessionId: parentId, parentToolCallId: 'call_c' });
    // Nothing in either session claims success: no completed task, tool or session, no result.
    const success = events.filter(
      (e) =>
        e.type === 'task.completed' ||
        e.type === 'result.produced' ||
        (e.type === 'tool.completed' && ['call_c', 'call_sleep'].includes(e.payload.toolCallId)) ||
        (e.type === 'session.ended' && e.payload.outcome === 'success'),
    );
    expect(success).toEqual([]);
    expect(await replayed(home, childId)).toMatchObject({ outcome: 'interrupted', ok: false });
    const tree = await runCli(['sessions', '--tree', '--json'], { env: cleanEnv(home) });
    expect(
      tree.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .map((e) => [e.sessionId, e.depth]),
    ).toEqual([
      [parentId, 0],
      [childId, 1],
    ]);
  });
});

describe.skipIf(!HAVE_BWRAP)('a sandboxed child command and SIGKILL of minicode', () => {
  it("dies with minicode: bwrap's --die-with-parent leaves no orphan of the child's command", async () => {
    const tag = `60.${process.pid}${Date.now() % 100_000}`;
    const { args, env } = await serve((request) => {
      const prompt = promptOf(request);
      if (prompt === PARENT_PROMPT)
        return { text: '', toolCalls: [taskCall('call_c', 'general', 'Run the slow command')] };
      return {
        text: '',
        toolCalls: [
          { id: 'call_sleep', name: 'bash', argumentsText: JSON.stringify({ command: `exec sleep ${tag}` }) },
        ],
      };
    });
    const home = tempDir('minicode-home-');
    const sandboxed = [...args.slice(0, -1), 'workspace-write'];
    const run = spawnExec([PARENT_PROMPT, '--json', '--cwd', scratchProject(), ...sandboxed], cleanEnv(home, env));
    // The sleep itself (its arguments NUL-separated), not only the bwrap starting it: bwrap arms
    // --die-with-parent in each of its processes as it starts, and a kill before that escapes it.
    await waitFor(() => processesTagged(`sleep\u0000${tag}`).length > 0 || undefined, {
      what: "the child's sandboxed sleep to start",
    });
    run.child.kill('SIGKILL');
    await run.done;
    await waitFor(() => processesTagged(tag).length === 0 || undefined, {
      what: 'the sandboxed sleep and its bwrap to end with minicode',
    });
    const entries = await entriesOf(home);
    expect([...entries.values()].map((e) => e.outcome)).toEqual(['interrupted', 'interrupted']);
  });
});

describe("a child's spend counts in the parent's budget", () => {
  it('stops the parent with budget_exceeded when the child alone passes --budget, and the child with it', async () => {
    const { provider, args, env } = await serve((request) => {
      const prompt = promptOf(request);
      const step = toolResults(request).length;
      if (prompt === PARENT_PROMPT)
        return step === 0
          ? {
              text: '',
              toolCalls: [taskCall('call_b', 'explore', 'Spend a lot')],
              usage: { inputTokens: 100, outputTokens: 10 },
            }
          : { text: 'Done.' };
      // One million input tokens of gpt-4.1 cost far more than the budget of $0.01.
      return {
        text: '',
        toolCalls: [{ id: 'call_read', name: 'read_file', argumentsText: '{"path":"README.md"}' }],
        usage: { inputTokens: 1_000_000, outputTokens: 10 },
      };
    });
    const run = await execJson([...args, '--budget', '0.01'], { cwd: scratchProject(), env, prompt: PARENT_PROMPT });
    expect(run.code, run.stderr).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'budget_exceeded' });
    const parentId = run.records[0]!.sessionId;
    const child = ofType(run.records, 'task.cancelled').find((r) => r.sessionId !== parentId)!;
    expect(child.payload).toMatchObject({ reason: 'budget_exceeded', cause: 'parent-cancel' });
    // The parent never asked the model again after its child's spend.
    expect(provider.requests.filter((r) => promptOf(r) === PARENT_PROMPT)).toHaveLength(1);
  });

  it("adds the parent's spend and every child's: each under --budget alone, their sum over it stops the run", async () => {
    // gpt-4.1 input costs $2 per million tokens: each first request below is $0.40 against a $1 budget.
    const spend = { inputTokens: 200_000, outputTokens: 0 };
    const { provider, args, env } = await serve((request) => {
      const prompt = promptOf(request);
      const step = toolResults(request).length;
      if (prompt === PARENT_PROMPT)
        return step === 0
          ? {
              text: '',
              toolCalls: [taskCall('call_a', 'explore', 'First job'), taskCall('call_b', 'explore', 'Second job')],
              usage: spend,
            }
          : { text: 'Done.' };
      return step === 0
        ? {
            text: '',
            toolCalls: [{ id: `read_${prompt.length}`, name: 'read_file', argumentsText: '{"path":"README.md"}' }],
            usage: spend,
          }
        : { text: `${prompt}: done.`, usage: { inputTokens: 0, outputTokens: 0 } };
    });
    // One child at a time: the first ends at $0.80 in all, the second's first answer takes it to $1.20.
    const run = await execJson([...args, '--budget', '1', '--max-children', '1'], {
      cwd: scratchProject(),
      env,
      prompt: PARENT_PROMPT,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'budget_exceeded' });
    const parentId = run.records[0]!.sessionId;
    const childIds = ofType(run.records, 'session.started')
      .filter((r) => r.payload.parentSessionId === parentId)
      .map((r) => r.sessionId as string);
    expect(childIds).toHaveLength(2);
    // Every session's own spend stayed under the budget.
    for (const id of [parentId, ...childIds]) {
      const costs = ofType(run.records, 'usage.reported')
        .filter((r) => r.sessionId === id)
        .map((r) => r.payload.costUsd as number);
      expect(costs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(0.4 + 1e-9);
    }
    const ended = (id: string) =>
      run.records.find((r) => r.sessionId === id && (r.type === 'task.completed' || r.type === 'task.cancelled'))!;
    const [first, second] = childIds.map(ended);
    expect(first).toMatchObject({ type: 'task.completed' });
    expect(second).toMatchObject({
      type: 'task.cancelled',
      payload: { reason: 'budget_exceeded', cause: 'parent-cancel' },
    });
    expect(ofType(run.records, 'task.cancelled').find((r) => r.sessionId === parentId)!.payload).toMatchObject({
      reason: 'budget_exceeded',
    });
    expect(provider.requests.filter((r) => promptOf(r) === PARENT_PROMPT)).toHaveLength(1);
  });
});
