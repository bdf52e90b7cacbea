/**
 * `minicode run --agent`: a native agent edits the workspace itself, so the checkpoint is taken
 * before it starts and its changes come from the checkpoint diff. A stand-in agent (a real
 * subprocess replaying a recorded Codex stream) writes a file; `minicode undo` takes it back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { checkpointCli, gitWorkspace, repoFingerprint, tempDir, treeOf } from './helpers.js';

const STAND_IN = path.join(ROOT, 'test/helpers/stand-in-agent.mjs');
const REPLAY = path.join(ROOT, 'test/streams/native/codex-all-items.jsonl');
const SLOW = { timeout: 240_000 };

const records = (stdout: string): Record<string, any>[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('checkpoints of a native agent run', SLOW, () => {
  it('checkpoints before the agent starts, reports what it changed, and undo takes the run back', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    const repoBefore = repoFingerprint(dir);
    const env = {
      MINICODE_HOME: home,
      MINICODE_CODEX_BIN: STAND_IN,
      STAND_IN_REPLAY: REPLAY,
      STAND_IN_DELAY_MS: '1',
      STAND_IN_WRITE: 'notes.txt=rewritten by the agent\n',
    };
    const run = await runCli(['run', '--agent', 'codex', 'rewrite the notes', '--json', '--cwd', dir], { env });
    expect(run.code, run.stderr).toBe(0);
    const lines = records(run.stdout);
    const checkpoint = lines.findIndex((l) => l.type === 'checkpoint.created');
    expect(checkpoint).toBeGreaterThan(-1);
    // Before anything the agent said: the agent had not started yet.
    expect(checkpoint).toBeLessThan(lines.findIndex((l) => l.type === 'task.started'));
    const diffSeen = lines.filter((l) => l.type === 'file.changed' && l.payload.toolCallId === undefined);
    expect(diffSeen.flatMap((l) => l.payload.changes)).toEqual([{ path: 'notes.txt', kind: 'modify' }]);

    const undo = await checkpointCli(['undo'], dir, home);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.json.restored).toBe(lines[checkpoint]!.payload.checkpointId);
    expect(treeOf(dir)).toEqual(before);
    expect(repoFingerprint(dir)).toEqual(repoBefore);
  });

  it('takes no checkpoint under --no-checkpoint', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const env = {
      MINICODE_HOME: home,
      MINICODE_CODEX_BIN: STAND_IN,
      STAND_IN_REPLAY: REPLAY,
      STAND_IN_DELAY_MS: '1',
      STAND_IN_WRITE: 'notes.txt=x\n',
    };
    const run = await runCli(['run', '--agent', 'codex', 'x', '--json', '--no-checkpoint', '--cwd', dir], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(records(run.stdout).some((l) => l.type === 'checkpoint.created')).toBe(false);
    expect(fs.existsSync(path.join(home, 'checkpoints'))).toBe(false);
  });
});
