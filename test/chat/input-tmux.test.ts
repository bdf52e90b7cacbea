/**
 * The prompt's input through a real terminal (tmux): `@path` completion with Tab and the file
 * attached to the message, a multi-line bracketed paste kept as one message, Ctrl+R search of
 * the history persisted under MINICODE_HOME by an earlier session, and a `!command` run (without
 * asking) and carried into the next message. What was sent is checked in the stored session
 * (`minicode replay --json`). The provider is a loopback replay server over the hand-made
 * `chat-two-turn` cassette. Skipped where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat input tmux tests: tmux is not installed (apt-get install -y tmux)');

async function sentPrompts(home: string, screen: string): Promise<string[]> {
  const id = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(screen)![1]!;
  const r = await runCli(['replay', id, '--json'], { env: { MINICODE_HOME: home } });
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; payload: { text?: string } })
    .filter((e) => e.type === 'user.message.received')
    .map((e) => e.payload.text!);
}

describe.skipIf(!HAVE_TMUX)('the chat prompt in a terminal', () => {
  const terms: TmuxTerm[] = [];
  let home: string;
  let project: string;
  const open = (cols: number, env: Record<string, string> = {}): TmuxTerm => {
    const t = startTerm(
      ['chat', '--provider', 'replay', '--cwd', project, '--cassette', path.join(ROOT, 'test/cassettes/chat-two-turn')],
      {
        cols,
        rows: 40,
        cwd: project,
        env: { MINICODE_HOME: home, TERM: 'xterm-256color', ...env },
      },
    );
    terms.push(t);
    return t;
  };

  beforeAll(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-input-'));
    home = path.join(dir, 'home');
    project = path.join(dir, 'project');
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    fs.writeFileSync(path.join(project, 'README.md'), '# chat test project\n');
    fs.writeFileSync(path.join(project, 'src/greet.js'), 'module.exports = (n) => `hi ${n}`;\n');
    fs.writeFileSync(path.join(project, 'src/grow.js'), 'grow\n');
    fs.writeFileSync(path.join(project, '.gitignore'), '.env\n');
    fs.writeFileSync(path.join(project, '.env'), 'TOKEN=do-not-send\n');
  });
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  it('completes @path with Tab, attaches the file, and keeps a multi-line paste as one message', async () => {
    const t = open(80);
    await t.waitFor('New session');
    t.type('explain @src/g');
    t.send('Tab');
    // Two files match: completed as far as they agree, both listed.
    const listed = await t.waitFor(/^› explain @src\/gr$/m);
    expect(listed).toMatch(/^ {2}@src\/greet\.js$/m);
    expect(listed).toMatch(/^ {2}@src\/grow\.js$/m);
    t.type('e');
    t.send('Tab');
    await t.waitFor(/^› explain @src\/greet\.js *$/m);
    t.type('and @.env');
    t.send('Enter');
    const first = await t.waitFor(turnsDone(1));
    expect(first).toContain('[attached src/greet.js, 1 line]');
    expect(first).toContain('not attached @.env: not a workspace file (or ignored by .gitignore)');

    // A bracketed paste (tmux sends ESC[200~ ... ESC[201~ because the app asked for it): its
    // line breaks stay in the message instead of sending it.
    t.paste('first pasted line\nsecond pasted line\nthird pasted line');
    await t.waitFor(/^… third pasted line$/m);
    expect(t.capture()).toMatch(/^› first pasted line\n… second pasted line\n… third pasted line$/m);
    t.send('Enter');
    await t.waitFor(turnsDone(2));
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    const prompts = await sentPrompts(home, end);
    expect(prompts).toEqual([
      'explain @src/greet.js and @.env\n\n<file path="src/greet.js">\nmodule.exports = (n) => `hi ${n}`;\n</file>',
      'first pasted line\nsecond pasted line\nthird pasted line',
    ]);
  });

  it('searches the persisted history with Ctrl+R and sends a !command output with the next message (40 columns, NO_COLOR)', async () => {
    const t = open(40, { NO_COLOR: '1' });
    await t.waitFor('New session');
    t.send('C-r');
    t.type('expl');
    await t.waitFor("search 'expl': explain @src/greet.js and", { join: true });
    t.send('Escape');
    await t.waitFor(/^› ?$/m);
    t.send('C-r');
    t.type('expl');
    await t.waitFor("search 'expl'");
    t.send('Enter');
    await t.waitFor(/^› explain @src\/greet\.js and @\.env$/m, { join: true });
    t.send('C-u');
    await t.waitFor(/^› ?$/m);

    t.type('!echo from-shell');
    t.send('Enter');
    // The person typed it: it runs without an approval question, even in ask mode.
    const ran = await t.waitFor('✓ exit 0 (kept for the next message)', { join: true });
    expect(ran).not.toContain('Approve?');
    expect(ran).toMatch(/^ {2}from-shell$/m);
    t.type('what now');
    t.send('Enter');
    const turn = await t.waitFor(turnsDone(1), { join: true });
    expect(turn).toContain('[ran !echo from-shell, exit 0, 1 line]');
    expect(t.capture()).not.toContain('\u001b');
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    expect(await sentPrompts(home, end)).toEqual([
      'what now\n\n<shell command="echo from-shell" exit="0">\nfrom-shell\n</shell>',
    ]);
  });

  it('lists a file name with an escape sequence as visible text, never as a sequence', async () => {
    // A cloned repository can name a file anything: this one would paint the terminal red.
    fs.mkdirSync(path.join(project, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(project, 'docs/ab\u001b[41mEVIL.txt'), 'x\n');
    fs.writeFileSync(path.join(project, 'docs/ab-other.txt'), 'y\n');
    const t = open(80);
    await t.waitFor('New session');
    t.type('read @docs/ab');
    t.send('Tab');
    const listed = await t.waitFor(/^ {2}@docs\/ab-other\.txt$/m);
    expect(listed).toMatch(/^ {2}@docs\/ab␛\[41mEVIL\.txt$/m);
    expect(t.captureStyled()).not.toContain('\u001b[41m');
    await quitChat(t);
    await t.waitFor('EXIT=0', { join: true });
  });
});
