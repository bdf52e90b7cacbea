/**
 * The keys and commands people expect at the chat prompt, through a real terminal (tmux):
 * Ctrl+C clears a draft and only a second one quits, typing `/` lists the commands as a popup
 * and Tab completes one, `/approval` switches the mode, `!command` runs without asking,
 * `/clear` ends the session and starts a new one, `/compact` folds the conversation, and
 * `--continue` reopens a session with the provider and model it ran with. The provider is a
 * loopback replay server (the hand-made cassettes). Skipped where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette, startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, turnBody } from '../exec/helpers.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { HAVE_TMUX, QUIT_HINT, quitChat, startTerm, turnsDone, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat keys tmux tests: tmux is not installed (apt-get install -y tmux)');

const cassette = (name: string): string => path.join(ROOT, 'test/cassettes', name);

interface Listed {
  sessionId: string;
  outcome: string;
  provider?: string;
  model?: string;
}

async function sessions(home: string): Promise<Listed[]> {
  const r = await runCli(['sessions', '--json'], { env: { MINICODE_HOME: home } });
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Listed);
}

describe.skipIf(!HAVE_TMUX)('the keys and commands of the chat prompt', () => {
  const terms: TmuxTerm[] = [];
  let dir: string;
  let home: string;
  let project: string;
  const open = (args: string[], env: Record<string, string> = {}, cols = 100): TmuxTerm => {
    const t = startTerm(['chat', '--cwd', project, ...args], {
      cols,
      rows: 40,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color', ...env },
    });
    terms.push(t);
    return t;
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-keys-'));
    project = path.join(dir, 'project');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, 'README.md'), '# chat test project\n');
  });
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  it('clears a draft with Ctrl+C and stays open, and quits on a second Ctrl+C', async () => {
    home = path.join(dir, 'home-keys');
    const t = open(['--provider', 'replay', '--cassette', cassette('chat-two-turn')]);
    await t.waitFor('New session');
    t.type('a draft to throw away');
    await t.waitFor('› a draft to throw away');
    t.send('C-c');
    const cleared = await t.waitFor(QUIT_HINT);
    expect(cleared).not.toContain('a draft to throw away');
    expect(cleared).toMatch(/^›\s*$/m);
    expect(cleared).not.toContain('EXIT=');
    // Any other key disarms it: a Ctrl+C after typing clears again instead of quitting.
    t.type('x');
    await t.waitFor(/^› x$/m);
    expect(t.capture()).not.toContain(QUIT_HINT);
    t.send('C-c');
    await t.waitFor(QUIT_HINT);
    expect(t.capture()).toMatch(/^›\s*$/m);
    t.send('C-c');
    await t.waitFor('EXIT=0', { join: true });
  });

  it('lists the matching slash commands as they are typed, completes one with Tab, and suggests the one meant by a typo', async () => {
    home = path.join(dir, 'home-slash');
    const t = open(['--provider', 'replay', '--cassette', cassette('chat-two-turn')]);
    await t.waitFor('New session');
    t.type('/c');
    const popup = await t.waitFor(/^ {2}\/compact +fold the older messages/m);
    expect(popup).toMatch(/^ {2}\/clear +end this session/m);
    expect(popup).toMatch(/^ {2}\/checkpoints +checkpoints of this workspace/m);
    expect(popup).not.toMatch(/^ {2}\/status/m);
    t.type('om');
    await t.waitFor(/^› \/com$/m);
    t.send('Tab');
    await t.waitFor(/^› \/compact\s*$/m);
    t.send('C-u');
    t.type('/stauts');
    t.send('Enter');
    await t.waitFor('Unknown command /stauts; did you mean /status? type /help for the list.');
    await quitChat(t);
    await t.waitFor('EXIT=0', { join: true });
  });

  it('switches the approval mode with /approval and runs a !command without asking in ask mode', async () => {
    home = path.join(dir, 'home-approval');
    const t = open(['--provider', 'replay', '--cassette', cassette('chat-two-turn')]);
    await t.waitFor(/^Model: .* · approvals: ask/m);
    t.type('!echo typed-by-hand > by-hand.txt; echo done');
    t.send('Enter');
    const ran = await t.waitFor('✓ exit 0 (kept for the next message)');
    expect(ran).toMatch(/^ {2}done$/m);
    expect(ran).not.toContain('Approve?');
    expect(fs.readFileSync(path.join(project, 'by-hand.txt'), 'utf8')).toBe('typed-by-hand\n');
    t.type('/approval read-only');
    t.send('Enter');
    await t.waitFor('Approval: read-only from the next tool call (edits and commands are refused)');
    await t.waitFor(/^Model: .* · approvals: read-only/m);
    t.type('/approval sometimes');
    t.send('Enter');
    await t.waitFor('Approval: "sometimes" is not a mode; use one of ask, auto, read-only');
    await quitChat(t);
    await t.waitFor('EXIT=0', { join: true });
  });

  it('ends the session with /clear and stores the next prompt in a new one', async () => {
    home = path.join(dir, 'home-clear');
    const t = open(['--provider', 'replay', '--cassette', cassette('chat-two-turn')]);
    await t.waitFor('New session');
    t.type('hi there');
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    t.type('/clear');
    t.send('Enter');
    const cleared = await t.waitFor(/^Session (ses_[a-z0-9_]+) ended \(minicode --resume \1 reopens it\)$/m);
    const first = /^Session (ses_[a-z0-9_]+) ended/m.exec(cleared)![1]!;
    t.type('what is in the readme');
    t.send('Enter');
    await t.waitFor(turnsDone(2));
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    const second = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)![1]!;
    expect(second).not.toBe(first);
    const listed = await sessions(home);
    expect(listed.map((s) => s.sessionId).sort()).toEqual([first, second].sort());
    expect(listed.every((s) => s.outcome === 'completed')).toBe(true);
  });

  it('folds the conversation with /compact and stores that it did', async () => {
    home = path.join(dir, 'home-compact');
    const t = open(['--provider', 'replay', '--cassette', cassette('chat-two-turn')]);
    await t.waitFor('New session');
    // A prompt longer than the 250 characters a folded user message keeps.
    t.paste(`${'please keep this long request in mind: '.repeat(12)}thanks`);
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    t.type('what is in the readme');
    t.send('Enter');
    await t.waitFor(turnsDone(2));
    t.type('/compact');
    t.send('Enter');
    const compacted = await t.waitFor(/^Compact: ~[\d,]+ -> ~[\d,]+ tokens$/m);
    const [, before, after] = /^Compact: ~([\d,]+) -> ~([\d,]+) tokens$/m.exec(compacted)!;
    expect(Number(after!.replace(/,/g, ''))).toBeLessThan(Number(before!.replace(/,/g, '')));
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    const id = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)![1]!;
    const r = await runCli(['replay', id, '--json'], { env: { MINICODE_HOME: home } });
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(events.filter((e) => e.type === 'context.compacted').map((e) => e.payload.reason)).toEqual(['manual']);
  });

  describe('with an OpenAI-compatible server given only by --base-url', () => {
    let server: ReplayServer;
    beforeAll(async () => {
      // The recorded turn, then one more answer for the prompt after --continue.
      server = await startReplayServer([
        ...loadCassette(path.join(ROOT, 'cassettes/openai-chat-two-turn')).exchanges,
        streamOk(turnBody('openai-chat', { text: 'The tests pass.' }, 3), contentTypeOf('openai-chat')),
      ]);
    });
    afterAll(async () => {
      await server.close();
    });

    it('reopens the session with --continue alone on the model and base URL it ran with', async () => {
      home = path.join(dir, 'home-continue');
      const baseUrl = `${server.origin}/v1`;
      const t = open(['--base-url', baseUrl, '--model', 'served-model']);
      await t.waitFor('minicode chat · served-model (openai-chat)');
      t.type('what is in the readme');
      t.send('Enter');
      await t.waitFor(turnsDone(1));
      await quitChat(t);
      await t.waitFor('EXIT=0', { join: true });

      const again = open(['--continue']);
      const screen = await again.waitFor(/resumed/);
      expect(screen).toContain('minicode chat · served-model (openai-chat)');
      expect(screen).not.toContain('no model given');
      // The next prompt goes to the server the session ran against, not to the provider's public API.
      again.type('and the tests?');
      again.send('Enter');
      await waitFor(() => server.requests.length === 3, { what: 'the resumed turn to reach the base URL' });
      expect(server.requests[2]!.body.toString('utf8')).toContain('and the tests?');
      await again.waitFor('The tests pass.');
      await quitChat(again);
      await again.waitFor('EXIT=0', { join: true });
      expect((await sessions(home)).map((s) => s.model)).toEqual(['served-model']);
    });
  });
});
