/**
 * The `sandbox` option of an ACP session governs that session's stdio MCP servers as it governs
 * `bash`: the servers a client names in `session/new` and those of the config. Driven by the
 * official `@agentclientprotocol/sdk` client against the real agent (`minicode acp --provider
 * replay`, a hand-made cassette written here) with real bubblewrap. Each server is the hostile
 * test server with `--pid-file`: at start it appends its pid to a file outside the workspace, a
 * write the sandbox refuses (the server then fails to start), so the file counts the starts that
 * ran unsandboxed. Skipped, saying so, where bubblewrap does not work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { initializeFullClient, promptText, spawnAcp, type AcpChild } from '../acp/acp-child.js';
import { writeChatCassette } from '../exec/helpers.js';
import { alive, HOSTILE, pidsIn, waitFor } from '../mcp/helpers.js';
import { bwrapSkipNote, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/acp-mcp.test.ts');

/** Outside /tmp (private inside the sandbox), so the servers' writes there are refused and would show on the host. */
const base = fs.realpathSync(
  fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'minicode-acp-mcp-sandbox-')),
);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** One connection: `minicode acp` with `args`, a config server `cfg` and a client server `ide`, each counting its unsandboxed starts in its own file. */
function connect(name: string, args: string[]) {
  const dir = path.join(base, name);
  const project = path.join(dir, 'project');
  const outside = path.join(dir, 'outside');
  const home = path.join(dir, 'home');
  for (const d of [project, outside, home]) fs.mkdirSync(d, { recursive: true });
  const pids = { cfg: path.join(outside, 'cfg.pids'), ide: path.join(outside, 'ide.pids') };
  fs.writeFileSync(
    path.join(home, 'config.json'),
    JSON.stringify({
      mcpServers: { cfg: { command: process.execPath, args: [HOSTILE, '--pid-file', pids.cfg] } },
    }),
  );
  const cassette = writeChatCassette(
    path.join(dir, 'cassette'),
    'a text answer per prompt',
    [1, 2, 3].map((i) => ({ text: `answer ${i}` })),
  );
  const acp: AcpChild = spawnAcp(['--provider', 'replay', '--cassette', cassette, ...args], {
    scripted: false,
    cwd: project,
    env: { MINICODE_HOME: home },
  });
  const conn: ClientConnection = client({ name: 'acp-mcp-sandbox-test' })
    .onNotification('session/update', () => {})
    .connect(acp.stream);
  const ide = { name: 'ide', command: process.execPath, args: [HOSTILE, '--pid-file', pids.ide], env: [] };
  const setSandbox = (sessionId: string, value: string) =>
    conn.agent.request('session/set_config_option', { sessionId, configId: 'sandbox', value });
  const close = async () => {
    conn.close();
    await acp.close();
  };
  return { project, pids, acp, conn, ide, setSandbox, close };
}

describe.skipIf(!HAVE_BWRAP)("an ACP session's sandbox option and its MCP servers", () => {
  it('starts the client and config servers sandboxed, unsandboxed once the session turns the sandbox off, and sandboxed again once it turns it back on', async () => {
    const c = connect('sandboxed-connection', []);
    try {
      await initializeFullClient(c.conn, 'acp-mcp-sandbox-test');
      const { sessionId } = await c.conn.agent.request('session/new', { cwd: c.project, mcpServers: [c.ide] });
      expect((await promptText(c.conn, sessionId, 'first')).stopReason).toBe('end_turn');
      // The connection's default (workspace-write): neither server could write outside.
      expect(pidsIn(c.pids.ide)).toEqual([]);
      expect(pidsIn(c.pids.cfg)).toEqual([]);

      await c.setSandbox(sessionId, 'off');
      expect((await promptText(c.conn, sessionId, 'second')).stopReason).toBe('end_turn');
      expect(pidsIn(c.pids.ide)).toHaveLength(1);
      expect(pidsIn(c.pids.cfg)).toHaveLength(1);
      const [unsandboxed] = pidsIn(c.pids.ide);

      await c.setSandbox(sessionId, 'workspace-write');
      expect((await promptText(c.conn, sessionId, 'third')).stopReason).toBe('end_turn');
      // Started again in the sandbox: no new unsandboxed start, and the unsandboxed server is gone.
      expect(pidsIn(c.pids.ide)).toHaveLength(1);
      expect(pidsIn(c.pids.cfg)).toHaveLength(1);
      await waitFor(() => !alive(unsandboxed!), 'the unsandboxed server to end');
      expect(c.acp.violations).toEqual([]);
    } finally {
      await c.close();
    }
  }, 180_000);

  it('starts them sandboxed when a session of a --sandbox off connection turns the sandbox on', async () => {
    const c = connect('unsandboxed-connection', ['--sandbox', 'off']);
    try {
      await initializeFullClient(c.conn, 'acp-mcp-sandbox-test');
      const { sessionId } = await c.conn.agent.request('session/new', { cwd: c.project, mcpServers: [c.ide] });
      // The connection's mode (off): the client's server started unsandboxed with the session.
      expect(pidsIn(c.pids.ide)).toHaveLength(1);
      const [unsandboxed] = pidsIn(c.pids.ide);

      await c.setSandbox(sessionId, 'read-only');
      expect((await promptText(c.conn, sessionId, 'first')).stopReason).toBe('end_turn');
      expect(pidsIn(c.pids.ide)).toHaveLength(1);
      await waitFor(() => !alive(unsandboxed!), 'the unsandboxed server to end');
      expect(pidsIn(c.pids.cfg)).toEqual([]);

      await c.setSandbox(sessionId, 'off');
      expect((await promptText(c.conn, sessionId, 'second')).stopReason).toBe('end_turn');
      expect(pidsIn(c.pids.ide)).toHaveLength(2);
      expect(pidsIn(c.pids.cfg)).toHaveLength(1);
      expect(c.acp.violations).toEqual([]);
    } finally {
      await c.close();
    }
  }, 180_000);
});
