/**
 * `/mcp` in the interactive mode, through the chat's own command runner and a session holding
 * real MCP servers (our hostile one over stdio): the servers with their state, one server's
 * tools, and a reconnect that starts a server again after it exited.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { runCommand } from '../../lib/chat/commands.js';
import { createChatSession } from '../../lib/chat/session.js';
import { startMcp, type McpManager } from '../../lib/mcp/index.js';
import { openStore } from '../../lib/store/index.js';
import { context } from '../tools/helpers.js';
import { alive, HOSTILE, pidsIn, tempDir, waitFor } from './helpers.js';

const managers: McpManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((m) => m.close()));
});

async function lines(
  line: string,
  session: ReturnType<typeof createChatSession>,
  store: ReturnType<typeof openStore>,
  cwd: string,
): Promise<string[]> {
  const result = runCommand(line, { session, store, cwd });
  return [...result.lines, ...((await result.later) ?? [])];
}

describe('/mcp in chat', () => {
  it('lists the servers and their state, one server with its tools, and reconnects one that exited', async () => {
    const root = tempDir();
    const pidFile = path.join(root, 'pids');
    const manager = (await startMcp(
      {
        hostile: {
          command: process.execPath,
          args: [HOSTILE, '--pid-file', pidFile],
          includeTools: ['echo', 'crash'],
          startupTimeoutMs: 60_000,
        },
        typo: { command: 'x', excludeTool: [] },
      },
      { env: process.env, cwd: root },
    ))!;
    managers.push(manager);
    const store = openStore({ dir: path.join(root, '.store') });
    try {
      const session = createChatSession({
        provider: providerSettings({ format: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:9' }),
        limits: runLimits(),
        environment: toolEnvironment(root, { env: {}, toolSource: manager }),
        mcp: manager,
        store,
      });
      const all = await lines('/mcp', session, store, root);
      expect(all[0]).toContain('MCP servers');
      expect(all.find((l) => l.startsWith('hostile  ready stdio'))).toContain('2 tools');
      expect(all.find((l) => l.startsWith('typo  invalid'))).toBeDefined();
      expect(await lines('/mcp hostile', session, store, root)).toEqual(
        expect.arrayContaining(['  mcp__hostile__echo', '  mcp__hostile__crash']),
      );
      // The server exits mid-session; reconnect starts a new process and its tools come back.
      const [first] = pidsIn(pidFile);
      const crash = manager.tools().find((t) => t.name === 'mcp__hostile__crash')!;
      await crash.run({}, context(root).ctx);
      await waitFor(() => manager.statuses()[0]!.state === 'exited', 'the server to be seen exiting');
      const reconnected = await lines('/mcp reconnect hostile', session, store, root);
      expect(reconnected[0]).toMatch(/^hostile {2}ready stdio/);
      expect(pidsIn(pidFile)).toHaveLength(2);
      expect(alive(first!)).toBe(false);
      expect(manager.tools().map((t) => t.name)).toContain('mcp__hostile__echo');
      expect(await lines('/mcp reconnect nope', session, store, root)).toEqual(['MCP: no started server named nope']);
    } finally {
      await store.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
