/**
 * SessionEnd under ACP: a session the client closes (`session/close`) runs its SessionEnd hooks
 * with reason `exit`, and one still open when the connection ends runs them with reason `other`.
 * The real agent (`minicode acp` as a subprocess) driven by the official SDK's client, a loopback
 * provider, real hook subprocesses that write the JSON they were given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client } from '@agentclientprotocol/sdk';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { waitFor } from '../helpers/wait.js';
import { initializeFullClient, promptText, spawnAcp } from '../acp/acp-child.js';
import { contentTypeOf, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('SessionEnd hooks under ACP', () => {
  it('run with reason exit when the client closes a session and reason other for one still open when the connection ends', async () => {
    const dir = tempDir('minicode-acp-end-');
    const log = path.join(dir, 'ends.jsonl');
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] }] },
      }),
    );
    const server = await startReplayServer(
      [1, 2].map((n) => streamOk(turnBody('anthropic', { text: `answer ${n}` }, n), contentTypeOf('anthropic'))),
    );
    servers.push(server);
    const acp = spawnAcp(
      ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin, '--sandbox', 'off'],
      {
        scripted: false,
        env: { MINICODE_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-acp-end-fake-0123456789' },
      },
    );
    const conn = client({ name: 'session-end-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    const init = await initializeFullClient(conn, 'session-end-test');
    expect(init.agentCapabilities?.sessionCapabilities?.close).toEqual({});
    const project = fs.realpathSync(scratchProject());
    const closed = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, closed.sessionId, 'one')).stopReason).toBe('end_turn');
    const open = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, open.sessionId, 'two')).stopReason).toBe('end_turn');
    await conn.agent.request('session/close', { sessionId: closed.sessionId });
    const ends = (): Record<string, unknown>[] =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l))
        : [];
    // session/close answers once the session ended: its hook has run.
    expect(ends()).toEqual([
      expect.objectContaining({
        hook_event_name: 'SessionEnd',
        reason: 'exit',
        session_id: closed.sessionId,
        cwd: project,
      }),
    ]);
    conn.close();
    expect(await acp.close()).toBe(0);
    await waitFor(() => ends().length === 2, { what: 'the open session to end with the connection' });
    expect(ends()[1]).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', session_id: open.sessionId });
  });
});
