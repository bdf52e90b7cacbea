/**
 * MCP servers an ACP client passes in `session/new`: `minicode acp` (the real agent port, a
 * replayed provider) driven by the official ACP client; the server is our hostile test server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection, type RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { ROOT } from '../helpers/cli.js';
import { chunkTexts, initializeFullClient, promptText, spawnAcp, updatesFor, type AcpChild } from '../acp/acp-child.js';
import { alive, HOSTILE, pidsIn, tempDir, waitFor } from './helpers.js';

describe('MCP servers passed by an ACP client', () => {
  let acp: AcpChild;
  let conn: ClientConnection;
  const answers: string[] = [];
  const requests: RequestPermissionRequest[] = [];
  const pidFile = path.join(tempDir(), 'pids');
  let project: string;
  let sessionId = '';

  beforeAll(() => {
    project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-mcp-')));
    const store = tempDir('minicode-acp-store-');
    // Unsandboxed: the IDE's server writes its pid file, which the sandbox would keep in its private /tmp.
    acp = spawnAcp(
      [
        '--provider',
        'replay',
        '--cassette',
        path.join(ROOT, 'test/cassettes/acp-mcp'),
        '--store',
        store,
        '--sandbox',
        'off',
      ],
      { scripted: false, env: { MINICODE_HOME: tempDir() } },
    );
    const app = client({ name: 'mcp-acp-test' })
      .onRequest('session/request_permission', ({ params }) => {
        requests.push(params);
        return { outcome: { outcome: 'selected', optionId: answers.shift() ?? 'deny' } };
      })
      .onNotification('session/update', () => {});
    conn = app.connect(acp.stream);
  });

  afterAll(async () => {
    conn?.close();
    await acp?.close();
  });

  it('advertises http and sse MCP servers and starts the client servers with session/new', async () => {
    const init = await initializeFullClient(conn, 'mcp-acp-test');
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const created = await conn.agent.request('session/new', {
      cwd: project,
      mcpServers: [
        {
          name: 'ide',
          command: process.execPath,
          args: [HOSTILE, '--pid-file', pidFile],
          env: [{ name: 'FROM_IDE', value: '1' }],
        },
      ],
    });
    sessionId = created.sessionId;
    expect(pidsIn(pidFile)).toHaveLength(1);
  });

  it('asks session/request_permission for an MCP call and runs it once allowed', async () => {
    answers.push('allow');
    const start = acp.wire.length;
    expect((await promptText(conn, sessionId, 'use the ide server')).stopReason).toBe('end_turn');
    expect(requests.at(-1)).toMatchObject({
      sessionId,
      toolCall: { toolCallId: 'toolu_acpmcp_1', title: 'ide: echo {"text":"from acp"}' },
    });
    const updates = updatesFor(acp.wire, sessionId, start).filter((u) => u.toolCallId === 'toolu_acpmcp_1');
    expect(updates.at(-1)).toMatchObject({
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'echo: from acp' } }],
    });
  });

  it('reports a call the client denies as failed with the denial, not as run', async () => {
    answers.push('deny');
    const start = acp.wire.length;
    expect((await promptText(conn, sessionId, 'again')).stopReason).toBe('end_turn');
    const updates = updatesFor(acp.wire, sessionId, start).filter((u) => u.toolCallId === 'toolu_acpmcp_2');
    expect(updates.at(-1)).toMatchObject({ status: 'failed' });
    expect(acp.violations).toEqual([]);
  });

  it('tells the client, in its session, which of its servers failed to start and where to fix it', async () => {
    const created = await conn.agent.request('session/new', {
      cwd: project,
      mcpServers: [{ name: 'broken', command: process.execPath, args: ['-e', 'process.exit(3)'], env: [] }],
    });
    await waitFor(
      () => chunkTexts(updatesFor(acp.wire, created.sessionId), 'agent_message_chunk').join('').includes('broken'),
      'a notice about the broken server',
    );
    const notice = chunkTexts(updatesFor(acp.wire, created.sessionId), 'agent_message_chunk').join('');
    expect(notice).toContain('MCP server broken failed to start');
    expect(notice).toContain('the mcpServers entry "broken" your ACP client passed in session/new');
    expect(notice).not.toContain('in the config');
    await waitFor(() => acp.stderr().includes('MCP server broken failed to start'), 'the notice on stderr');
  });

  it('stops the client servers when the connection ends', async () => {
    const [pid] = pidsIn(pidFile);
    conn.close();
    await acp.close();
    await waitFor(() => !alive(pid!), 'the ide server to be gone');
  });
});
