/**
 * Images in the interactive mode through a real terminal (tmux): `@shot.png` typed, then an
 * image path pasted (bracketed, as a terminal pastes a dropped file) from outside the workspace.
 * The provider is a scripted OpenAI-compatible server on loopback (hand-made SSE); what it
 * receives is checked against the Chat Completions image shape, the screen shows a placeholder
 * per image, and the stored session keeps a reference per image (its bytes in the content store),
 * which a resumed session sends again. Skipped with a note where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { png } from '../helpers/images.js';
import { startScriptedProvider, type ScriptedProvider } from '../helpers/scripted-provider.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping chat image tmux tests: tmux is not installed (apt-get install -y tmux)');

type Part = { type: string; text?: string; image_url?: { url: string } };
const lastUser = (messages: { role: string; content?: unknown }[]): Part[] | string | undefined =>
  messages.filter((m) => m.role === 'user').at(-1)?.content as Part[] | string | undefined;

describe.skipIf(!HAVE_TMUX)('images in minicode chat', () => {
  let provider: ScriptedProvider | undefined;
  const terms: TmuxTerm[] = [];
  afterAll(async () => {
    for (const t of terms) t.kill();
    await provider?.close();
  });

  it('sends an @image and a pasted image path as images, shows a placeholder for each, and a resumed session sends them again', async () => {
    let n = 0;
    provider = await startScriptedProvider(() => ({ text: `Answer ${++n}: a grey rectangle.` }));
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-images-')));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    const pictures = path.join(root, 'My Pictures');
    for (const d of [home, project, pictures]) fs.mkdirSync(d);
    const shot = png(4, 3);
    const screen = png(16, 9);
    fs.writeFileSync(path.join(project, 'shot.png'), shot);
    fs.writeFileSync(path.join(pictures, 'screen.png'), screen);
    const env = {
      MINICODE_HOME: home,
      HOME: home,
      TERM: 'xterm-256color',
      OPENAI_API_KEY: 'sk-test-chat-images-0123456789',
    };
    const args = [
      'chat',
      '--provider',
      'openai-chat',
      '--model',
      'gpt-4.1',
      '--base-url',
      provider.settings.baseUrl,
      '--sandbox',
      'off',
      '--cwd',
      project,
    ];
    const t = startTerm(args, { cols: 100, rows: 40, cwd: project, env });
    terms.push(t);
    await t.waitFor('New session');
    t.type('what is in @shot.png');
    t.send('Enter');
    await t.waitFor(turnsDone(1));
    expect(t.capture()).toContain('[image shot.png 4x3 image/png]');
    expect(lastUser(provider.requests[0]!.body.messages)).toEqual([
      { type: 'text', text: 'what is in @shot.png' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${shot.toString('base64')}`, detail: 'auto' } },
    ]);

    // A dropped file pastes as its quoted path; the paste does not submit, Enter does.
    t.type('and this one: ');
    t.paste(`'${path.join(pictures, 'screen.png')}'`);
    t.send('Enter');
    await t.waitFor(turnsDone(2));
    expect(t.capture()).toContain('[image screen.png 16x9 image/png]');
    const second = provider.requests[1]!.body.messages;
    expect(lastUser(second)).toEqual([
      { type: 'text', text: `and this one: '${path.join(pictures, 'screen.png')}'` },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${screen.toString('base64')}`, detail: 'auto' } },
    ]);
    // The first turn's image is still in the conversation.
    expect(JSON.stringify(second)).toContain(shot.toString('base64'));
    await quitChat(t);
    const end = await t.waitFor('EXIT=0', { join: true });
    const sessionId = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)![1]!;

    const replayed = await runCli(['replay', sessionId, '--json'], { env: { MINICODE_HOME: home } });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).not.toContain(shot.toString('base64'));
    const received = replayed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; payload: { images?: { name: string; content: { ref: string } }[] } })
      .filter((e) => e.type === 'user.message.received');
    expect(received.map((e) => e.payload.images?.map((i) => i.name))).toEqual([['shot.png'], ['screen.png']]);

    // Resumed in a fresh process: the conversation is rebuilt with the images from the store.
    const again = startTerm([...args, '--resume', sessionId], { cols: 100, rows: 40, cwd: project, env });
    terms.push(again);
    await again.waitFor(`Session ${sessionId} resumed`);
    again.type('and now?');
    again.send('Enter');
    // The resumed history shows its own completed turns: wait for this turn's answer.
    await again.waitFor('Answer 3: a grey rectangle.');
    const third = JSON.stringify(provider.requests[2]!.body.messages);
    expect(third).toContain(shot.toString('base64'));
    expect(third).toContain(screen.toString('base64'));
    await quitChat(again);
    await again.waitFor('EXIT=0', { join: true });
  }, 90_000);

  it('sends the image read_image returned again in a session continued with --continue, after the file is gone', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-tool-images-')));
    const home = path.join(root, 'home');
    const project = path.join(root, 'project');
    for (const d of [home, project]) fs.mkdirSync(d);
    const diagram = png(12, 7);
    fs.writeFileSync(path.join(project, 'diagram.png'), diagram);
    let n = 0;
    const reader = await startScriptedProvider((request) =>
      request.body.messages.at(-1)?.content === 'look at diagram.png'
        ? { text: '', toolCalls: [{ id: 'call_diagram', name: 'read_image', argumentsText: '{"path":"diagram.png"}' }] }
        : { text: `Reply ${++n}: a diagram.` },
    );
    try {
      const env = {
        MINICODE_HOME: home,
        HOME: home,
        TERM: 'xterm-256color',
        OPENAI_API_KEY: 'sk-test-chat-images-0123456789',
      };
      const args = ['chat', '--provider', 'openai-chat', '--model', 'gpt-4.1', '--base-url', reader.settings.baseUrl];
      const t = startTerm([...args, '--sandbox', 'off', '--cwd', project], { cols: 100, rows: 40, cwd: project, env });
      terms.push(t);
      await t.waitFor('New session');
      t.type('look at diagram.png');
      t.send('Enter');
      await t.waitFor('Reply 1: a diagram.');
      const shown = reader.requests[1]!.body.messages.at(-1)!;
      expect(shown).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'The image read: [image diagram.png 12x7 image/png]' },
          {
            type: 'image_url',
            image_url: { url: `data:image/png;base64,${diagram.toString('base64')}`, detail: 'auto' },
          },
        ],
      });
      await quitChat(t);
      await t.waitFor('EXIT=0', { join: true });

      fs.rmSync(path.join(project, 'diagram.png'));
      const again = startTerm([...args, '--sandbox', 'off', '--cwd', project, '--continue'], {
        cols: 100,
        rows: 40,
        cwd: project,
        env,
      });
      terms.push(again);
      await again.waitFor('resumed');
      again.type('and now?');
      again.send('Enter');
      await again.waitFor('Reply 2: a diagram.');
      const messages = reader.requests[2]!.body.messages;
      const results = messages.findIndex((m) => m.role === 'tool');
      expect(messages[results + 1]).toEqual(shown);
      await quitChat(again);
      await again.waitFor('EXIT=0', { join: true });
    } finally {
      await reader.close();
    }
  }, 90_000);
});
