import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { promptText, spawnAcp, updatesFor, type AcpChild } from './acp-child.js';

/** A client that offers neither `fs` nor `terminal`: edits land on disk, commands run in the agent. */
describe('minicode acp with a client that offers no fs or terminal', () => {
  let acp: AcpChild;
  let conn: ClientConnection;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-'));
    fs.writeFileSync(path.join(dir, 'notes.md'), 'draft one\n');
    acp = spawnAcp();
    conn = client({ name: 'bare-client' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow-always' } }))
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  });

  afterAll(async () => {
    conn?.close();
    await acp?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes edits to the local file system when the client has no fs capability', async () => {
    const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    await conn.agent.request('session/set_mode', { sessionId, modeId: 'auto' });
    const result = await promptText(conn, sessionId, 'edit notes.md one -> two');
    expect(result.stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(dir, 'notes.md'), 'utf8')).toBe('draft two\n');
    expect(acp.wire.some((l) => /"method":"(fs|terminal)\//.test(l.text))).toBe(false);
  });

  it('remembers an always-allow answer for the rest of the session', async () => {
    const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    const asked = () => acp.wire.filter((l) => l.text.includes('"session/request_permission"')).length;
    const before = asked();
    await promptText(conn, sessionId, 'run ls');
    const start = acp.wire.length;
    await promptText(conn, sessionId, 'run ls -la');
    expect(asked()).toBe(before + 1);
    expect(
      updatesFor(acp.wire, sessionId, start)
        .filter((u) => u.sessionUpdate === 'tool_call_update')
        .at(-1),
    ).toMatchObject({
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'ran: ls -la' } }],
    });
  });

  it('denies gated tools without asking in read-only mode', async () => {
    const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    await conn.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'read-only' });
    const asked = acp.wire.filter((l) => l.text.includes('"session/request_permission"')).length;
    const start = acp.wire.length;
    await promptText(conn, sessionId, 'run make');
    expect(acp.wire.filter((l) => l.text.includes('"session/request_permission"')).length).toBe(asked);
    expect(
      updatesFor(acp.wire, sessionId, start)
        .filter((u) => u.sessionUpdate === 'tool_call_update')
        .at(-1),
    ).toMatchObject({ status: 'failed' });
    expect(acp.violations).toEqual([]);
  });
});
