/**
 * `session/cancel` while a child session (the `task` tool) runs: the official SDK client drives
 * the real agent (`minicode acp` as a subprocess) against a scripted OpenAI-compatible provider
 * on loopback whose answer to the child never ends. The cancel stops the child with its parent:
 * the turn answers `cancelled`, the child's request is abandoned, and the stored child session
 * ends cancelled with cause `parent-cancel`, rebuilt so by `minicode replay` in another process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { runCli } from '../helpers/cli.js';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { waitFor } from '../helpers/wait.js';
import { finalToolStatuses, initializeFullClient, spawnAcp, updatesFor, type AcpChild } from './acp-child.js';

const PARENT_PROMPT = 'Ask a helper to look around';
const CHILD_PROMPT = 'Look around the project';

function promptOf(request: SeenRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

describe('session/cancel while a child session runs', () => {
  let provider: ScriptedProvider;
  let acp: AcpChild;
  let conn: ClientConnection;
  afterAll(async () => {
    conn?.close();
    await acp?.close();
    await provider?.close();
  });

  it('cancels the child with the turn: the turn answers cancelled, the child ends cancelled by its parent, and replay rebuilds it so', async () => {
    provider = await startScriptedProvider((request) =>
      promptOf(request) === CHILD_PROMPT
        ? 'hang'
        : {
            text: '',
            toolCalls: [
              {
                id: 'call_task',
                name: 'task',
                argumentsText: JSON.stringify({
                  description: 'look around',
                  prompt: CHILD_PROMPT,
                  subagent_type: 'explore',
                }),
              },
            ],
          },
    );
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-cancel-child-'));
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-project-')));
    acp = spawnAcp(
      ['--provider', 'openai-chat', '--model', 'gpt-4.1', '--base-url', provider.settings.baseUrl, '--sandbox', 'off'],
      {
        scripted: false,
        env: { OPENAI_API_KEY: 'sk-test-acp-cancel-child-0123', MINICODE_HOME: home },
      },
    );
    conn = client({ name: 'cancel-child-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await initializeFullClient(conn, 'cancel-child-test');
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    const start = acp.wire.length;
    const turn = conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: PARENT_PROMPT }] });
    await waitFor(() => provider.requests.some((r) => promptOf(r) === CHILD_PROMPT), { what: "the child's request" });
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    await waitFor(() => provider.abandoned >= 1, { what: "the child's request to be abandoned" });
    // The client saw one tool call, ended (not left in progress) before the turn's answer.
    const statuses = finalToolStatuses(updatesFor(acp.wire, sessionId, start));
    expect([...statuses.keys()]).toEqual(['call_task']);
    expect(statuses.get('call_task')).not.toBe('in_progress');
    expect(acp.violations).toEqual([]);

    // Another process reads the store: the child session, linked to the parent, ended cancelled by it.
    const listed = await runCli(['sessions', '--json'], { env: { MINICODE_HOME: home } });
    const entries = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const child = entries.find((e) => e.parentSessionId === sessionId)!;
    expect(child).toMatchObject({ parentToolCallId: 'call_task', outcome: 'cancelled' });
    const replayed = await runCli(['replay', child.sessionId as string, '--json'], { env: { MINICODE_HOME: home } });
    expect(replayed.code, replayed.stderr).toBe(0);
    const events = replayed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(events.find((e) => e.type === 'task.cancelled')?.payload).toMatchObject({
      reason: 'aborted',
      cause: 'parent-cancel',
    });
    expect(events.find((e) => e.type === 'session.ended')?.payload).toMatchObject({ outcome: 'cancelled' });
  });
});
