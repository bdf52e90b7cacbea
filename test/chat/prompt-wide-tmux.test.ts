/**
 * The chat prompt's cursor after wide characters, in a real terminal (tmux): the editor puts
 * the terminal cursor where its display width says the text ends, so a miscounted emoji or
 * CJK character leaves the cursor inside the text and every edit lands in the wrong place.
 * Skipped with a note where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping the wide prompt tmux test: tmux is not installed');

const terms: TmuxTerm[] = [];
afterAll(() => {
  for (const t of terms) t.kill();
});

/** Poll the cursor until it is at column `x` (or the deadline passes); returns where it is. */
async function cursorAt(t: TmuxTerm, x: number): Promise<{ x: number; y: number }> {
  let at = t.cursor();
  for (const deadline = Date.now() + 10_000; at.x !== x && Date.now() < deadline; at = t.cursor())
    await new Promise((r) => setTimeout(r, 50));
  return at;
}

describe.skipIf(!HAVE_TMUX)('the chat prompt with wide characters (tmux)', () => {
  it('puts the cursor after the typed emoji and CJK text, and a typed letter lands at the end', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-chat-wide-'));
    const t = startTerm(
      ['chat', '--provider', 'replay', '--cassette', path.join(ROOT, 'test/cassettes/chat-two-turn'), '--cwd', dir],
      {
        cols: 60,
        rows: 20,
        cwd: dir,
        env: { MINICODE_HOME: path.join(dir, 'home'), TERM: 'xterm-256color', LANG: 'C.UTF-8' },
      },
    );
    terms.push(t);
    await t.waitFor('New session');
    t.type('🚀✅⌛漢字');
    // `› ` is 2 columns; 🚀 ✅ ⌛ are 2 each and 漢字 4: the text ends at column 12.
    expect((await cursorAt(t, 12)).x).toBe(12);
    t.type('x');
    expect((await cursorAt(t, 13)).x).toBe(13);
    expect(t.capture()).toContain('› 🚀✅⌛漢字x');
    t.send('C-c');
    t.send('C-c');
  });
});
