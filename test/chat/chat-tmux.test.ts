/**
 * The interactive mode driven through a real terminal (tmux): keys in with send-keys, the
 * screen out with capture-pane, the provider a loopback replay server over hand-made
 * cassettes (test/cassettes/chat-*). Then the stored session replays with `minicode replay
 * --json` to the same facts the screen showed. Skipped with a note where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputEvent } from '../../lib/events/index.js';
import { rebuild } from '../../lib/reducer/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat tmux tests: tmux is not installed (apt-get install -y tmux)');

const cassette = (name: string): string => path.join(ROOT, 'test/cassettes', name);

interface Replayed {
  events: { type: string; payload: Record<string, unknown> }[];
  summary: Record<string, unknown>;
}

async function replay(home: string, sessionId: string): Promise<Replayed> {
  const r = await runCli(['replay', sessionId, '--json'], { env: { MINICODE_HOME: home } });
  expect(r.code).toBe(0);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const summary = lines.pop() as Record<string, unknown>;
  // The replayed envelopes rebuild without anomalies (no second terminal, no orphan, no conflict).
  expect(rebuild(lines as unknown as OutputEvent[]).anomalies).toEqual([]);
  return { events: lines as Replayed['events'], summary };
}

function sessionIdOf(screen: string): string {
  const m = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(screen);
  if (!m) throw new Error(`no session id on screen:\n${screen}`);
  return m[1]!;
}

describe.skipIf(!HAVE_TMUX)('minicode chat in a terminal', () => {
  let home: string;
  let project: string;
  let sessionId: string;
  const terms: TmuxTerm[] = [];
  const open = (args: string[], size: { cols: number; rows: number }, env: Record<string, string> = {}): TmuxTerm => {
    const term = startTerm(['chat', '--provider', 'replay', '--cwd', project, ...args], {
      ...size,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color', ...env },
    });
    terms.push(term);
    return term;
  };

  beforeAll(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-'));
    home = path.join(dir, 'home');
    project = path.join(dir, 'project');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, 'README.md'), '# chat test project\n');
  });
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  it('holds a two-turn conversation, answers /status with labelled figures and exits cleanly', async () => {
    const t = open(['--cassette', cassette('chat-two-turn')], { cols: 80, rows: 40 });
    await t.waitFor('New session');
    t.type('hi there');
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    expect(t.capture()).toContain('Hello! I am minicode. Ask me about this project.');
    t.type('what is in the readme');
    t.send('Enter');
    await t.waitFor(turnsDone(2));
    // The idle footer is drawn once the turn has settled.
    const second = await t.waitFor(/^› *$/m);
    expect(second).toMatch(/✓ read_file\(README\.md\) completed /);
    expect(second).toContain('The README says this is the chat test project.');
    // The footer: the context window estimate on its own line, spend apart from it.
    expect(second).toMatch(/^Context: ~[\d,]+ of 200,000 tokens \(\d+%\)$/m);
    expect(second).toMatch(/^Spend: 3,600 in, 174 out, \$0\.0134 est\. · Budget: none$/m);
    t.type('/status');
    t.send('Enter');
    const status = await t.waitFor('Budget:  none');
    for (const label of [
      /^Context: ~[\d,]+ of 200,000 tokens .* window estimate/m,
      /^Input: +3,600 tokens - provider usage/m,
      /^Output: +174 tokens/m,
      /^Total: +3,774 tokens/m,
      /^Cost: +\$0\.0134 \(estimated/m,
    ]) {
      expect(status).toMatch(label);
    }
    t.type('/frobnicate');
    t.send('Enter');
    await t.waitFor('Unknown command /frobnicate; type /help for the list.');
    // A bare slash lists the commands instead of going to the model.
    t.type('/');
    t.send('Enter');
    await t.waitFor('Commands (/help adds the keys):');
    await t.waitFor('/status - context estimate');
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    sessionId = sessionIdOf(end);

    const { events, summary } = await replay(home, sessionId);
    expect(summary).toMatchObject({
      ok: true,
      outcome: 'completed',
      sessionId,
      tools: { completed: 1, failed: 0, denied: 0, cancelled: 0 },
    });
    expect(events[0]).toMatchObject({ type: 'session.started', payload: { origin: 'chat', cwd: project } });
    const messages = events.filter((e) => e.type === 'assistant.message.completed').map((e) => e.payload.text);
    expect(messages).toEqual([
      'Hello! I am minicode. Ask me about this project.',
      'Let me read the README.',
      'The README says this is the chat test project.',
    ]);
    expect(events.filter((e) => e.type === 'user.message.received').map((e) => e.payload.text)).toEqual([
      'hi there',
      'what is in the readme',
    ]);
    expect(events.filter((e) => e.type === 'session.ended')).toHaveLength(1);
  });

  it('resumes the session with its history and answers approvals allow and deny', async () => {
    const t = open(['--resume', sessionId, '--cassette', cassette('chat-approval')], { cols: 80, rows: 50 });
    await t.waitFor(`Session ${sessionId} resumed`);
    // The history is printed after that line: wait for its last answer, not for the header.
    const start = await t.waitFor('The README says this is the chat test project.');
    expect(start).toContain('> hi there');
    expect(start).toContain('The README says this is the chat test project.');
    t.type('run the command');
    t.send('Enter');
    await t.waitFor('Answer: y allow once, a allow always, n deny');
    const asking = t.capture();
    expect(asking).toContain('Run `echo approved-output`?');
    // Asked once, in the footer with its keys; no internal ids in the normal view.
    expect(asking.split('Run `').length - 1).toBe(1);
    expect(asking).not.toMatch(/toolu_chat|approval-\d/);
    t.send('y');
    await t.waitFor('The command printed approved-output.');
    // One line for the call (no `running`, no `allowed approval` line), its output under it.
    expect(t.capture()).toMatch(/^✓ bash\(echo approved-output\) completed \d[^\n]* - exit 0\n {2}⎿ approved-output$/m);
    expect(t.capture()).not.toMatch(/allowed approval|… running/);
    t.type('write the file');
    t.send('Enter');
    await t.waitFor('Answer: y allow once');
    t.send('n');
    const denied = await t.waitFor('Understood, I did not write denied.txt.');
    expect(denied).toMatch(/^⊘ write_file\(denied\.txt\) denied /m);
    expect(fs.existsSync(path.join(project, 'denied.txt'))).toBe(false);
    t.type('/exit');
    t.send('Enter');
    await t.waitFor('EXIT=0', { join: true });

    const { events, summary } = await replay(home, sessionId);
    expect(summary).toMatchObject({
      outcome: 'completed',
      tools: { completed: 2, denied: 1, failed: 0, cancelled: 0 },
    });
    expect(
      events.filter((e) => e.type === 'user.approval.settled').map((e) => [e.payload.approvalId, e.payload.outcome]),
    ).toEqual([
      ['approval-1', 'allow'],
      ['approval-2', 'deny'],
    ]);
    const terminals = events
      .filter((e) => /^tool\.(completed|failed|denied|cancelled)$/.test(e.type))
      .map((e) => [e.payload.toolCallId, e.type]);
    expect(terminals).toEqual([
      ['toolu_chat_read_1', 'tool.completed'],
      ['toolu_chat_bash_1', 'tool.completed'],
      ['toolu_chat_write_1', 'tool.denied'],
    ]);
    expect(events.filter((e) => e.type === 'task.completed').map((e) => e.payload.taskId)).toEqual([
      'task-1',
      'task-2',
      'task-3',
      'task-4',
    ]);
  });

  it('aborts a streaming answer with Esc in a 40-column NO_COLOR window and goes on', async () => {
    const t = open(['--cassette', cassette('chat-slow')], { cols: 40, rows: 40 }, { NO_COLOR: '1' });
    await t.waitFor('New session');
    t.type('count slowly');
    t.send('Enter');
    await t.waitFor('Counting slowly');
    t.send('Escape');
    const aborted = await t.waitFor('◌ stopped (Esc)', { join: true });
    // The partial answer first, then the one line saying it was stopped.
    expect(aborted).toMatch(/Counting slowly[^◌]*\n◌ stopped \(Esc\)$/m);
    // Type once the aborted turn has settled and the prompt is back (its footer drawn above it).
    await t.waitFor(/^Cost: .*Budget: none\n(?:.*\n){1,2}› *$/m);
    t.type('are you there');
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    const after = await t.waitFor(/^Cost: \$/m);
    expect(after).toContain('Still here after the abort.');
    // The aborted turn's partial text is settled once: not again (nor live) in the next turn.
    expect(t.capture(true).match(/Counting slowly/g)).toHaveLength(1);
    // Narrow: the footer splits so that nothing is cut; no line is wider than the window.
    expect(after).toMatch(/^Context: ~[\d,]+ of 200,000 tokens \(\d+%\)$/m);
    expect(after).toMatch(/^Spend: 1,200 in, 58 out tokens$/m);
    expect(after).toMatch(/^Cost: \$0\.0045 est\. · Budget: none$/m);
    for (const line of after.split('\n')) expect([...line].length).toBeLessThanOrEqual(40);
    // NO_COLOR: no SGR colour sequence anywhere on the screen (escapes included in the capture).
    expect(t.capture()).not.toContain('\u001b');
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    const id = sessionIdOf(end);
    const { events, summary } = await replay(home, id);
    expect(events.filter((e) => e.type === 'task.cancelled').map((e) => e.payload.reason)).toEqual(['aborted']);
    expect(summary).toMatchObject({ outcome: 'completed' });
  });

  it('keeps what is typed while a turn runs and submits it once the prompt is back', async () => {
    const t = open(['--cassette', cassette('chat-slow')], { cols: 80, rows: 40 });
    await t.waitFor('New session');
    t.type('count slowly');
    t.send('Enter');
    await t.waitFor('Counting slowly');
    // Typed ahead while the answer still streams: not drawn yet, and not lost.
    t.type('are you there');
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    const second = await t.waitFor(turnsDone(2));
    expect(second).toContain('> are you there');
    expect(second).toContain('Still here after the abort.');
    await quitChat(t);
    await t.waitFor('EXIT=0', { join: true });
  });

  it('redraws its footer once after the window narrows, without stale rows above it', async () => {
    const t = open(['--cassette', cassette('chat-two-turn')], { cols: 100, rows: 30 });
    await t.waitFor(/^Model: .*\/help$/m);
    t.resize(50, 30);
    // Below 60 columns the cost gets a line of its own: the footer was drawn at the new width.
    const narrow = await t.waitFor(/^Cost: unknown · Budget: none$/m);
    expect(narrow.match(/Context:/g)).toHaveLength(1);
    expect(narrow.match(/Spend:/g)).toHaveLength(1);
    t.send('C-d');
    await t.waitFor('EXIT=0', { join: true });
  });

  it('reopens the latest session of the directory with --continue', async () => {
    const t = open(['--continue', '--cassette', cassette('chat-slow')], { cols: 80, rows: 40 });
    const screen = await t.waitFor('Still here after the abort.');
    expect(screen).toContain('resumed');
    t.send('C-d');
    await t.waitFor('EXIT=0', { join: true });
  });

  it('asks two approvals of one step in turn, and the turn ends once both are answered', async () => {
    const t = open(['--cassette', cassette('gated-tools')], { cols: 80, rows: 40 });
    await t.waitFor('New session');
    t.type('commit and ask');
    t.send('Enter');
    // git_commit and ask_user run together and both ask: the first question is not replaced.
    await t.waitFor(/^Allow git_commit: /m);
    t.send('n');
    await t.waitFor(/^Allow ask_user: /m);
    t.send('y');
    await t.waitFor('? Which branch should I use?');
    t.type('main');
    t.send('Enter');
    const done = await t.waitFor(turnsDone(1));
    expect(done).toMatch(/⊘ git_commit\(.*\) denied/);
    expect(done).toMatch(/✓ ask_user\(.*\) completed .* user answered/);
    t.send('C-d');
    await t.waitFor('EXIT=0', { join: true });
  });
});
