/**
 * `minicode acp` with the real agent: a prompt turn is checkpointed in the client's cwd under
 * the ACP session id, its bash changes are seen, and `minicode undo --session <id>` takes the
 * turn back (ACP has no rewind method of its own). The official SDK's client over the compiled
 * CLI, the hand-made `checkpoint-bash` cassette replayed over loopback, real git.
 */
import { client } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { promptText, spawnAcp } from '../acp/acp-child.js';
import { TEST_CASSETTES } from '../exec/helpers.js';
import { checkpointCli, gitWorkspace, repoFingerprint, tempDir, treeOf } from './helpers.js';
import path from 'node:path';

describe('checkpoints of ACP prompt turns', { timeout: 240_000 }, () => {
  it('checkpoint the turn before its first change, and undo --session with the ACP session id takes it back', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    const repoBefore = repoFingerprint(dir);
    const acp = spawnAcp(['--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, 'checkpoint-bash')], {
      scripted: false,
      env: { MINICODE_HOME: home },
      cwd: dir,
    });
    // A client without fs or terminal services: the tools work on the disk themselves.
    const app = client({ name: 'checkpoint-test' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow' } }))
      .onNotification('session/update', () => {});
    const conn = app.connect(acp.stream);
    try {
      await conn.agent.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: 'checkpoint-test', version: '1.0.0' },
      });
      const { sessionId } = await conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
      await conn.agent.request('session/set_mode', { sessionId, modeId: 'auto' });
      expect((await promptText(conn, sessionId, 'change the files')).stopReason).toBe('end_turn');
      expect(treeOf(dir)).not.toEqual(before);

      const list = await checkpointCli(['checkpoints', '--session', sessionId], dir, home);
      expect(list.json.checkpoints).toHaveLength(1);
      expect(list.json.checkpoints[0].changes.length).toBeGreaterThan(0);
      // The agent process outlives its turns, but the journal marks the turn ended: the idle
      // session is undone without --force (a running turn is refused: undo-live.test.ts).
      const undo = await checkpointCli(['undo', '--session', sessionId], dir, home);
      expect(undo.code, undo.stderr).toBe(0);
      expect(treeOf(dir)).toEqual(before);
      expect(repoFingerprint(dir)).toEqual(repoBefore);
    } finally {
      conn.close();
      await acp.close();
    }
  });
});
