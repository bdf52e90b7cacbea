/**
 * Project instructions under ACP: each new session reads its folder's AGENTS.md when it opens,
 * so a changed file reaches the model on the next session/new. Driven by the official ACP SDK's
 * client against the real agent (`minicode acp` as a subprocess) whose model is a loopback
 * server answering hand-made Anthropic streams; the captured request bodies show the system
 * prompt each session sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, turnBody } from '../exec/helpers.js';
import { initializeFullClient, promptText, spawnAcp, type AcpChild } from './acp-child.js';

let server: ReplayServer | undefined;
let acp: AcpChild | undefined;
let conn: ClientConnection | undefined;
afterAll(async () => {
  conn?.close();
  await acp?.close();
  await server?.close();
});

const systemOf = (body: { system: { text: string }[] }): string => body.system.map((b) => b.text).join('');

describe('project instructions under ACP', () => {
  it('gives a new session the AGENTS.md its folder has when the session opens, a changed file included', async () => {
    const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-agents-')));
    fs.mkdirSync(path.join(project, '.git'));
    fs.writeFileSync(path.join(project, 'AGENTS.md'), 'FIRST VERSION: use tabs.\n');
    server = await startReplayServer(
      [1, 2].map((n) => streamOk(turnBody('anthropic', { text: `answer ${n}` }, n), contentTypeOf('anthropic'))),
    );
    acp = spawnAcp(
      ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin, '--sandbox', 'off'],
      {
        scripted: false,
        env: { ANTHROPIC_API_KEY: 'sk-ant-acp-agents-fake-0123456789' },
      },
    );
    conn = client({ name: 'instructions-refresh-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await initializeFullClient(conn, 'instructions-refresh-test');

    const first = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, first.sessionId, 'hello')).stopReason).toBe('end_turn');
    fs.writeFileSync(path.join(project, 'AGENTS.md'), 'SECOND VERSION: use spaces.\n');
    const second = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, second.sessionId, 'hello again')).stopReason).toBe('end_turn');

    const [one, two] = server.requests.map((r) => systemOf(JSON.parse(r.body)));
    expect(one).toContain('FIRST VERSION: use tabs.');
    expect(two).toContain('SECOND VERSION: use spaces.');
    expect(two).not.toContain('FIRST VERSION');
  });
});
