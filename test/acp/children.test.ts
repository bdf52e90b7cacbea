/**
 * A child session (the `task` tool) under ACP: the official SDK client drives the real agent
 * (`minicode acp` as a subprocess) whose model is a scripted OpenAI-compatible provider on
 * loopback. The client sees the child as one tool call of its session, with the child's steps
 * as that call's content and the child's answer as its result.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { startScriptedProvider, type ScriptedProvider, type SeenRequest } from '../helpers/scripted-provider.js';
import { initializeFullClient, promptText, spawnAcp, updatesFor, type AcpChild } from './acp-child.js';

const PARENT_PROMPT = 'Ask a helper about the README';

function promptOf(request: SeenRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}
const toolResults = (request: SeenRequest) => request.body.messages.filter((m) => m.role === 'tool');

describe('a child session under ACP', () => {
  let provider: ScriptedProvider;
  let acp: AcpChild;
  let conn: ClientConnection;
  const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-project-')));
  fs.writeFileSync(path.join(project, 'README.md'), '# Demo\nA demo project.\n');

  afterAll(async () => {
    conn?.close();
    await acp?.close();
    await provider?.close();
  });

  it('is one tool call of the client session, its steps as content, its answer as the result', async () => {
    provider = await startScriptedProvider((request) => {
      const step = toolResults(request).length;
      if (promptOf(request).includes(PARENT_PROMPT)) {
        return step === 0
          ? {
              text: '',
              toolCalls: [
                {
                  id: 'call_task',
                  name: 'task',
                  argumentsText: JSON.stringify({
                    description: 'read the README',
                    prompt: 'What does README.md say?',
                    subagent_type: 'explore',
                  }),
                },
              ],
            }
          : { text: 'The helper says it is a demo.' };
      }
      return step === 0
        ? {
            text: 'Reading it.',
            toolCalls: [{ id: 'call_read', name: 'read_file', argumentsText: '{"path":"README.md"}' }],
          }
        : { text: 'README.md: a demo project.' };
    });
    acp = spawnAcp(
      ['--provider', 'openai-chat', '--model', 'gpt-4.1', '--base-url', provider.settings.baseUrl, '--sandbox', 'off'],
      {
        scripted: false,
        env: { OPENAI_API_KEY: 'sk-test-acp-children-0123456789' },
      },
    );
    conn = client({ name: 'children-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
      .onRequest('fs/read_text_file', ({ params }) => ({ content: fs.readFileSync(params.path, 'utf8') }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await initializeFullClient(conn, 'children-test');
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    const start = acp.wire.length;
    expect((await promptText(conn, sessionId, PARENT_PROMPT)).stopReason).toBe('end_turn');
    const updates = updatesFor(acp.wire, sessionId, start);
    // One tool call: the child's own read_file is not a call of the client's session.
    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((c) => c.toolCallId)).toEqual(['call_task']);
    const progress = updates.filter(
      (u) => u.toolCallId === 'call_task' && u.status === 'in_progress' && u.content !== undefined,
    );
    expect(JSON.stringify(progress.at(-1)?.content)).toContain('read_file');
    const final = updates.filter((u) => u.toolCallId === 'call_task').at(-1)!;
    expect(final.status).toBe('completed');
    expect(JSON.stringify(final.content)).toContain('README.md: a demo project.');
    // No update names another session: the child's events stay out of the client's session.
    const sessions = new Set(
      acp.wire
        .filter((l) => l.from === 'agent' && (l.message as { method?: string }).method === 'session/update')
        .map((l) => (l.message as { params: { sessionId: string } }).params.sessionId),
    );
    expect([...sessions]).toEqual([sessionId]);
    expect(acp.violations).toEqual([]);
  });
});
