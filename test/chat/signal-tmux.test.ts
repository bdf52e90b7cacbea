/**
 * The interactive mode when its terminal goes away (the window closes: SIGHUP) or it is
 * killed (SIGTERM): what runs is stopped (a `!command`'s process group included), the stored
 * session ends with its turn settled, and the process exits instead of leaving children behind.
 * Also `exec` and `run --agent` in a window that is closed.
 * Driven in tmux over the hand-made cassettes; skipped with a note where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../lib/events/index.js';
import { rebuild } from '../../lib/reducer/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { NATIVE_STREAMS, standIn } from '../helpers/stand-in.js';
import { waitFor } from '../helpers/wait.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat signal tests: tmux is not installed (apt-get install -y tmux)');

const cassette = (name: string): string => path.join(ROOT, 'test/cassettes', name);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!HAVE_TMUX)('minicode chat stopped by a signal', () => {
  let dir: string;
  const terms: TmuxTerm[] = [];
  /** Commands a failing test would leave running. */
  const commands: number[] = [];
  const open = (home: string, project: string, args: string[], exitFile?: string): TmuxTerm => {
    const term = startTerm(['chat', '--provider', 'replay', '--cwd', project, ...args], {
      cols: 80,
      rows: 24,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color' },
      ...(exitFile ? { exitFile } : {}),
    });
    terms.push(term);
    return term;
  };
  const fresh = (name: string): { home: string; project: string } => {
    const home = path.join(dir, name, 'home');
    const project = path.join(dir, name, 'project');
    fs.mkdirSync(project, { recursive: true });
    return { home, project };
  };
  /** The one stored session's events, once it has ended. */
  const endedSession = async (home: string): Promise<OutputEvent[]> =>
    waitFor(
      async () => {
        const listed = await runCli(['sessions', '--json'], { env: { MINICODE_HOME: home } });
        const id = /"sessionId":"(ses_[a-z0-9_]+)"/.exec(listed.stdout)?.[1];
        if (!id) return undefined;
        const r = await runCli(['replay', id, '--json'], { env: { MINICODE_HOME: home } });
        const events = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as OutputEvent)
          .filter((e) => e.type !== ('summary' as string));
        return events.some((e) => e.type === 'session.ended') ? events : undefined;
      },
      { what: 'the stored session to end' },
    );

  /** Close the window of `t` (the CLI gets SIGHUP): the stored session ends with its task cancelled and nothing left open, and the CLI exits. */
  const closeAndExpectCancelled = async (t: TmuxTerm, home: string): Promise<void> => {
    const pid = t.pid();
    t.kill();
    const events = await endedSession(home);
    expect(events.map((e) => e.type)).toContain('task.cancelled');
    expect(rebuild(events).anomalies).toEqual([]);
    await waitFor(() => !alive(pid), { what: 'the CLI to exit' });
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-signal-'));
  });
  afterAll(() => {
    for (const t of terms) t.kill();
    for (const pid of commands) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('settles the running turn, ends the session and exits 130 on SIGTERM', async () => {
    const { home, project } = fresh('term');
    const t = open(home, project, ['--cassette', cassette('chat-slow')]);
    await t.waitFor('New session');
    t.type('count');
    t.send('Enter');
    await t.waitFor('Counting slowly');
    process.kill(t.pid(), 'SIGTERM');
    await t.waitFor('EXIT=130');
    const events = await endedSession(home);
    expect(events.map((e) => e.type)).toContain('task.cancelled');
    expect(events.at(-1)?.type).toBe('session.ended');
    expect(rebuild(events).anomalies).toEqual([]);
  });

  it('kills the process group of a running !command on SIGTERM', async () => {
    const { home, project } = fresh('shell');
    const t = open(home, project, ['--cassette', cassette('chat-two-turn')]);
    await t.waitFor('New session');
    t.type('!echo $$ > shell.pid; sleep 300');
    // The person typed it: it runs without a question.
    t.send('Enter');
    const pidFile = path.join(project, 'shell.pid');
    const shellPid = await waitFor(() => fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8').trim()), {
      what: 'the command to start',
    });
    commands.push(shellPid);
    process.kill(t.pid(), 'SIGTERM');
    const screen = await t.waitFor('EXIT=130');
    expect(screen).toContain('command aborted; its process group was killed');
    await waitFor(() => !alive(shellPid), { what: 'the command to be gone' });
  });

  it('ends the session with its turn settled when the terminal is closed', async () => {
    const { home, project } = fresh('hangup');
    const t = open(home, project, ['--cassette', cassette('chat-slow')]);
    await t.waitFor('New session');
    t.type('count');
    t.send('Enter');
    await t.waitFor('Counting slowly');
    await closeAndExpectCancelled(t, home);
  });

  it('settles an exec run too when its window is closed', async () => {
    const { home, project } = fresh('exec');
    const t = startTerm(
      ['exec', 'count', '--provider', 'replay', '--cassette', cassette('chat-slow'), '--cwd', project],
      {
        cols: 80,
        rows: 24,
        cwd: project,
        env: { MINICODE_HOME: home, TERM: 'xterm-256color' },
      },
    );
    terms.push(t);
    await t.waitFor('Counting slowly');
    await closeAndExpectCancelled(t, home);
  });

  it('settles a run of a native agent too when its window is closed', async () => {
    const { home, project } = fresh('native');
    const agent = standIn(path.join(dir, 'native'), 'codex', {
      STAND_IN_REPLAY: path.join(NATIVE_STREAMS, 'codex-interrupted.jsonl'),
      STAND_IN_HANG: '1',
    });
    const t = startTerm(['run', '--agent', 'codex', 'count', '--no-checkpoint', '--cwd', project], {
      cols: 80,
      rows: 24,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color', MINICODE_CODEX_BIN: agent },
    });
    terms.push(t);
    // The agent's command is on screen: the run is under way (its signal handlers in place).
    await t.waitFor('npm test');
    const pid = t.pid();
    t.kill();
    const events = await endedSession(home);
    expect(rebuild(events).anomalies).toEqual([]);
    await waitFor(() => !alive(pid), { what: 'the CLI to exit' });
  });

  it('ends the session and exits 130 when the terminal is gone without a SIGHUP', async () => {
    // The window's shell ignores SIGHUP and stays: no signal reaches the CLI, only its input ends.
    const { home, project } = fresh('eof');
    const exitFile = path.join(dir, 'eof', 'exit-code');
    const t = open(home, project, ['--cassette', cassette('chat-slow')], exitFile);
    await t.waitFor('New session');
    t.type('count');
    t.send('Enter');
    await t.waitFor('Counting slowly');
    const pid = t.pid();
    commands.push(pid);
    t.kill();
    const events = await endedSession(home);
    expect(events.map((e) => e.type)).toContain('task.cancelled');
    expect(rebuild(events).anomalies).toEqual([]);
    // 130, not 134: Node's exit does not abort on restoring the hung-up terminal's mode.
    const code = await waitFor(() => fs.existsSync(exitFile) && fs.readFileSync(exitFile, 'utf8').trim(), {
      what: 'the exit code',
    });
    expect(code).toBe('130');
  });
});
