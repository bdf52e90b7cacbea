/** `/undo` and `/checkpoints` in the interactive mode, over a store a real `exec` run made. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../lib/chat/commands.js';
import type { ChatSession } from '../../lib/chat/session.js';
import { DEFAULT_CHECKPOINT_LIMITS } from '../../lib/checkpoints/settings.js';
import type { EventStore } from '../../lib/store/index.js';
import { execCassette, plainWorkspace, tempDir } from './helpers.js';

/** The two fields the checkpoint commands read; the rest of a session is not involved. */
const sessionWith = (checkpoints: ChatSession['checkpoints']): ChatSession =>
  ({ checkpoints }) as unknown as ChatSession;
const store = {} as EventStore;

describe('the checkpoint commands of the interactive mode', { timeout: 240_000 }, () => {
  it('list the checkpoints, undo the last turn, and say when checkpoints are off', async () => {
    const dir = plainWorkspace();
    const home = tempDir('minicode-home-');
    expect((await execCassette('checkpoint-second', dir, home)).code).toBe(0);
    const settings = { home: path.join(home, 'checkpoints'), limits: { ...DEFAULT_CHECKPOINT_LIMITS } };

    const list = runCommand('/checkpoints', { session: sessionWith(settings), store, cwd: dir });
    const listed = await list.later!;
    expect(listed[0]).toMatch(/^[0-9a-f]{12} .* turn 1 {2}1 file\(s\)$/);
    expect(listed[1]).toBe('    M notes.txt');

    const undo = runCommand('/undo', { session: sessionWith(settings), store, cwd: dir });
    const lines = await undo.later!;
    expect(lines[0]).toMatch(
      /^Undo: restored checkpoint [0-9a-f]{12} \(turn 1 of session ses_\w+\); 1 file\(s\) changed$/,
    );
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');

    const off = runCommand('/undo', { session: sessionWith(undefined), store, cwd: dir });
    expect(off.later).toBeUndefined();
    expect(off.lines).toEqual(['Checkpoints are off (--no-checkpoint or config checkpoints: false)']);
  });

  it('turns a failure into lines, never a throw', async () => {
    const dir = plainWorkspace();
    const settings = {
      home: path.join(tempDir('minicode-home-'), 'checkpoints'),
      limits: { ...DEFAULT_CHECKPOINT_LIMITS },
    };
    const lines = await runCommand('/undo', { session: sessionWith(settings), store, cwd: dir }).later!;
    expect(lines[0]).toMatch(/^\/undo: no checkpoints for /);
  });
});
