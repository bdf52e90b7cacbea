/**
 * Escalation in the interactive mode, through a real terminal (tmux) and real bubblewrap: a
 * command the sandbox refused is followed by one more question, to rerun it outside the
 * sandbox; `y` reruns it (the write lands), `n` leaves the refusal standing. The model is a
 * loopback replay of a hand-made cassette. Skipped, saying why, without tmux or bwrap.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from '../chat/tmux-driver.js';
import { writeChatCassette } from '../exec/helpers.js';
import { bwrapSkipNote, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/chat-escalation-tmux.test.ts');
if (!HAVE_TMUX)
  console.warn('test/sandbox/chat-escalation-tmux.test.ts: skipped, tmux is not installed (apt-get install -y tmux)');

/** Outside /tmp (private inside the sandbox), so a write there is refused and would show on the host. */
const base = fs.realpathSync(
  fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'minicode-chat-sandbox-')),
);
const terms: TmuxTerm[] = [];
afterAll(() => {
  for (const t of terms) t.kill();
  fs.rmSync(base, { recursive: true, force: true });
});

describe.skipIf(!HAVE_TMUX || !HAVE_BWRAP)('escalation in minicode chat', () => {
  it('asks to rerun a refused command outside the sandbox: y reruns it, n keeps the refusal', async () => {
    const project = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    const home = path.join(base, 'home');
    fs.mkdirSync(project);
    fs.mkdirSync(outside);
    const target = (name: string) => path.join(outside, name);
    const commands = [`echo x > ${target('escalated.txt')}`, `echo x > ${target('denied.txt')}`];
    const turns = commands.flatMap((command, i) => [
      { calls: [{ id: `call_chat_sb_${i + 1}`, name: 'bash', args: { command } }] },
      { text: `answer ${i + 1} done` },
    ]);
    const cassette = writeChatCassette(
      path.join(base, 'cassette'),
      'one bash call per prompt, each writing outside the workspace, then an answer',
      turns,
    );
    const t = startTerm(['chat', '--provider', 'replay', '--cassette', cassette, '--cwd', project], {
      cols: 200,
      rows: 50,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color' },
    });
    terms.push(t);

    // Approved: bash itself, then the rerun outside the sandbox.
    t.type('write it');
    t.send('Enter');
    await t.waitFor('Answer: y allow once');
    t.send('y');
    // Asked under its own tool name, so an earlier "always" for bash would not answer it.
    await t.waitFor(`Allow bash (unsandboxed): rerun outside the sandbox: echo x > ${target('escalated.txt')}?`);
    // The footer shows what the sandbox refused with the question: the refused call's own output
    // (which ends with the same line) is printed only once the question is answered.
    expect(t.capture()).toMatch(
      /\[the sandbox \(workspace-write\) refused a write outside the workspace: [^\n]*\n[^\n]*Allow bash \(unsandboxed\)/,
    );
    expect(t.capture()).not.toContain('Read-only file system');
    expect(fs.existsSync(target('escalated.txt'))).toBe(false);
    t.send('y');
    await t.waitFor('answer 1 done');
    expect(fs.existsSync(target('escalated.txt'))).toBe(true);

    // Denied: the refused result stands.
    t.type('write another');
    t.send('Enter');
    await t.waitFor(/write another[\s\S]*Answer: y allow once/);
    t.send('y');
    await t.waitFor(`Allow bash (unsandboxed): rerun outside the sandbox: echo x > ${target('denied.txt')}?`);
    t.send('n');
    await t.waitFor('answer 2 done');
    expect(fs.existsSync(target('denied.txt'))).toBe(false);
    t.type('/exit');
    t.send('Enter');
    await t.waitFor('EXIT=0', { join: true });
    const sessionId = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(t.captureAll())?.[1];

    // The store: the rerun is its own call, marked escalated and unsandboxed, under the refused one.
    expect(sessionId).toBeDefined();
    const replay = await runCli(['replay', sessionId!, '--json'], { env: { MINICODE_HOME: home } });
    expect(replay.code).toBe(0);
    const started = replay.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
      .filter((e) => e.type === 'tool.started')
      .map((e) => [e.payload.toolCallId, e.payload.sandbox, e.payload.escalated ?? false]);
    expect(started).toEqual([
      ['call_chat_sb_1', 'workspace-write', false],
      ['call_chat_sb_1.unsandboxed', 'off', true],
      ['call_chat_sb_2', 'workspace-write', false],
    ]);
    // Each escalation question's user.approval.requested carries the refusal line; bash's own do not.
    const asked = replay.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
      .filter((e) => e.type === 'user.approval.requested')
      .map((e) => [e.payload.toolName, e.payload.sandboxRefusal]);
    const refusal = expect.stringMatching(/^\[the sandbox \(workspace-write\) refused a write outside the workspace: /);
    expect(asked).toEqual([
      ['bash', undefined],
      ['bash (unsandboxed)', refusal],
      ['bash', undefined],
      ['bash (unsandboxed)', refusal],
    ]);
  }, 120_000);
});
