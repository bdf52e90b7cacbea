/**
 * The child-session limits of `minicode acp` (`--max-child-depth`, `--max-children`, as `exec`,
 * `chat` and `batch` take them): the official SDK client drives the real agent (a subprocess)
 * against a scripted OpenAI-compatible provider on loopback (hand-made chat completion streams),
 * which tells sessions apart by the first user message of each request. A bad value is a usage
 * error when the server starts, not an error answering the first prompt.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { runCli } from '../helpers/cli.js';
import {
  startScriptedProvider,
  type Answer,
  type ScriptedProvider,
  type SeenRequest,
} from '../helpers/scripted-provider.js';
import {
  finalToolStatuses,
  initializeFullClient,
  promptText,
  spawnAcp,
  updatesFor,
  type AcpChild,
} from './acp-child.js';

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
  argumentsText: JSON.stringify({ description: prompt, prompt, subagent_type: 'general' }),
});

describe('child session limits under ACP', () => {
  const providers: ScriptedProvider[] = [];
  const opened: { acp: AcpChild; conn: ClientConnection }[] = [];
  afterAll(async () => {
    for (const { acp, conn } of opened) {
      conn.close();
      await acp.close();
    }
    await Promise.all(providers.map((p) => p.close()));
  });

  /** A provider answering with `answer`, an ACP server with `flags` on it, a session in a scratch project. */
  const start = async (flags: string[], answer: (request: SeenRequest) => Answer) => {
    const provider = await startScriptedProvider(answer);
    providers.push(provider);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-child-limits-home-'));
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-child-limits-')));
    fs.writeFileSync(path.join(project, 'README.md'), '# survey\n');
    const acp = spawnAcp(
      [
        '--provider',
        'openai-chat',
        '--model',
        'gpt-4.1',
        '--base-url',
        provider.settings.baseUrl,
        '--sandbox',
        'off',
        ...flags,
      ],
      { scripted: false, env: { OPENAI_API_KEY: 'sk-test-acp-child-limits-0123', MINICODE_HOME: home } },
    );
    const conn = client({ name: 'child-limits-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    opened.push({ acp, conn });
    await initializeFullClient(conn, 'child-limits-test');
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    return { provider, acp, conn, sessionId };
  };

  it('--max-child-depth 0 offers the model no task tool; without it the session is offered one', async () => {
    const none = await start(['--max-child-depth', '0'], () => ({ text: 'Done alone.' }));
    expect((await promptText(none.conn, none.sessionId, PARENT)).stopReason).toBe('end_turn');
    expect(toolNames(none.provider.requests[0]!)).not.toContain('task');
    const plain = await start([], () => ({ text: 'Done alone.' }));
    await promptText(plain.conn, plain.sessionId, PARENT);
    expect(toolNames(plain.provider.requests[0]!)).toContain('task');
    expect(none.acp.violations).toEqual([]);
  });

  it('--max-children 1 runs two task calls of one step one after the other, each one tool call of the turn', async () => {
    const order: string[] = [];
    const run = await start(['--max-children', '1'], (request) => {
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
            toolCalls: [{ id: `read_${order.length}`, name: 'read_file', argumentsText: '{"path":"README.md"}' }],
          }
        : { text: `${prompt} finished.` };
    });
    expect((await promptText(run.conn, run.sessionId, PARENT)).stopReason).toBe('end_turn');
    const jobs = order.map((o) => o.split('#')[0]);
    expect(jobs).toHaveLength(4);
    expect(jobs[1]).toBe(jobs[0]);
    expect(jobs[3]).toBe(jobs[2]);
    expect(new Set(jobs)).toEqual(new Set(['First job', 'Second job']));
    // The client sees the two children as the parent's two task calls, both completed.
    const statuses = finalToolStatuses(updatesFor(run.acp.wire, run.sessionId));
    expect(statuses.get('call_a')).toBe('completed');
    expect(statuses.get('call_b')).toBe('completed');
    expect(run.acp.violations).toEqual([]);
  });

  it('refuses a bad limit when the server starts: exit 2, one line on stderr naming the flag, nothing on stdout', async () => {
    for (const bad of [
      ['--max-children', '0'],
      ['--max-child-depth', '-1'],
      ['--max-child-depth', 'two'],
    ]) {
      const result = await runCli(['acp', ...bad], { input: '' });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(bad[0]);
      expect(result.stderr.trim().split('\n')[0]).toMatch(/^minicode: /);
    }
  });
});
