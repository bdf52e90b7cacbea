/**
 * `minicode run --agent` and a hang-up as soon as its session is stored: the compiled CLI as a
 * subprocess, a stand-in agent that runs until it is stopped.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { committedRepo, standIn } from '../helpers/stand-in.js';

const tmp = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

describe('run --agent and a hang-up', () => {
  it('settles the session as cancelled (aborted) when the window closes the moment session.started is out', async () => {
    const home = tmp('minicode-hangup-home-');
    const env = {
      ...process.env,
      NO_COLOR: '1',
      MINICODE_HOME: home,
      MINICODE_CLAUDE_BIN: standIn(tmp('minicode-hangup-bin-'), 'claude', { STAND_IN_HANG: '1' }),
    };
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--agent', 'claude-code', 'wait', '--json', '--cwd', committedRepo('minicode-hangup-ws-')],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      // At once, not after a poll: the earliest moment a person's hang-up could follow the line.
      if (!sent && stdout.includes('"type":"session.started"')) {
        sent = true;
        child.kill('SIGHUP');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(sent).toBe(true);
    expect(code).toBe(130);
    const sessionId = /"sessionId":"([^"]+)"/.exec(stdout)?.[1];
    expect(sessionId).toBeDefined();
    const replay = await runCli(['replay', sessionId!, '--json'], { env: { MINICODE_HOME: home } });
    expect(replay.code).toBe(0);
    const ended = replay.stdout.split('\n').find((l) => l.includes('"type":"session.ended"'));
    expect(ended, replay.stdout).toBeDefined();
    expect(JSON.parse(ended!).payload).toEqual({ outcome: 'cancelled', reason: 'aborted' });
  });
});
