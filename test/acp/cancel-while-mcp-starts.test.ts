/**
 * A client may cancel at any time: `session/cancel` while the first prompt still waits for a
 * config MCP server that is slow to start settles that prompt with `stopReason: "cancelled"`,
 * and the agent goes on serving the connection. `minicode acp` (the real agent port, a
 * replayed provider) is driven by the official ACP client.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { ROOT } from '../helpers/cli.js';
import { HOSTILE, pidsIn, tempDir, waitFor } from '../mcp/helpers.js';
import { initializeFullClient, promptText, spawnAcp, type AcpChild } from './acp-child.js';

describe('session/cancel during the first prompt while a config MCP server starts', () => {
  let acp: AcpChild | undefined;
  let conn: ClientConnection | undefined;

  afterAll(async () => {
    conn?.close();
    await acp?.close();
  });

  it('answers the prompt with stopReason cancelled and keeps serving the connection', async () => {
    const home = tempDir('minicode-acp-home-');
    const pidFile = path.join(tempDir(), 'pids');
    // Long enough that the cancel surely lands while it starts; the agent never waits it out.
    // Unsandboxed: the server writes its pid file, which the sandbox would keep in its private /tmp.
    const config = {
      mcpServers: {
        slow: {
          command: process.execPath,
          args: [HOSTILE, '--slow-start', '3000', '--pid-file', pidFile],
          sandbox: 'off',
        },
      },
    };
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-cancel-')));
    acp = spawnAcp(
      [
        '--provider',
        'replay',
        '--cassette',
        path.join(ROOT, 'test/cassettes/acp-conformance'),
        '--store',
        tempDir('minicode-acp-store-'),
      ],
      {
        scripted: false,
        env: { MINICODE_HOME: home },
      },
    );
    conn = client({ name: 'cancel-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'cancelled' } }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await initializeFullClient(conn, 'cancel-test');
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    const prompt = promptText(conn, sessionId, 'hello');
    // The server is started (its pid written) and still in its slow start: cancel now.
    await acp.waitFor(
      (l) => l.from === 'client' && (l.message as { method?: string } | undefined)?.method === 'session/prompt',
      'the prompt on the wire',
    );
    await waitFor(() => pidsIn(pidFile).length > 0, 'the slow MCP server to be spawned');
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    // The agent is alive and answers on the same connection.
    const second = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect(second.sessionId).toMatch(/\S/);
    expect(acp.child.exitCode).toBeNull();
    expect(acp.stderr()).not.toMatch(/UnhandledPromiseRejection|#<Object>/);
    expect(acp.violations).toEqual([]);
  }, 60_000);
});
