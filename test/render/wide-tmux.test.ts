/**
 * The TTY renderer's live region with wide characters, in a real terminal: `minicode exec`
 * runs in tmux at a narrow width while the model streams lines of wide emoji, CJK and a ZWJ
 * family, so the live region is wrapped and redrawn many times. If a width were miscounted,
 * the renderer would erase fewer rows than the terminal used, and stale rows of the live
 * region would stay on screen above the settled answer. The characters are ones tmux measures
 * as the Unicode data does (tmux 3.3 gives an emoji with a skin tone 4 columns and ignores the
 * emoji presentation selector, so those are checked in the unit tests only).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { CLI } from '../helpers/cli.js';
import { contentTypeOf, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAVE_TMUX) console.warn('skipping the wide-character tmux test: tmux is not installed');
const SOCKET = `minicode-wide-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });

/**
 * Eight lines of wide text (about 100 columns: they wrap at 34, 40 and 80 columns, not at
 * 120), each with a marker that must appear exactly once at the end.
 */
const WIDE = '🚀✅⌛🫠 漢字かな 👨‍👩‍👧 한국어';
const LINES = Array.from({ length: 8 }, (_, i) => `L${i}: ${WIDE} ${WIDE} ${WIDE} 🚀✅⌛🫠 end${i}`);
/** Terminal widths, each run once with and once without NO_COLOR. */
const CASES: [number, boolean][] = [
  [34, false],
  [40, false],
  [40, true],
  [80, false],
  [80, true],
  [120, false],
  [120, true],
];

let server: ReplayServer;
beforeAll(async () => {
  if (!HAVE_TMUX) return;
  tmux('new-session', '-d', '-s', 'keeper', 'sleep 600');
  // Small chunks with a pause between them: the live region is redrawn after each.
  server = await startReplayServer(
    CASES.map(() => streamOk(turnBody('openai-chat', { text: LINES.join('\n') }, 1), contentTypeOf('openai-chat'))),
    { chunkSize: 40, delayMs: 15 },
  );
});
afterAll(async () => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  await server?.close();
});

describe.skipIf(!HAVE_TMUX)('the TTY live region with wide characters (tmux)', { timeout: 120_000 }, () => {
  it.each(CASES)(
    'leaves no stale row of the streamed text above the settled answer at %i columns (NO_COLOR %s)',
    async (columns, noColor) => {
      const project = scratchProject();
      const home = tempDir('minicode-home-');
      const log = path.join(tempDir('minicode-wide-'), 'screen.txt');
      const vars = {
        MINICODE_HOME: home,
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
        OPENAI_API_KEY: 'sk-test-not-a-real-key',
        OPENAI_BASE_URL: `${server.origin}/v1`,
        ...(noColor ? { NO_COLOR: '1' } : {}),
      };
      const env = Object.entries(vars)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      const command = `env -u NO_COLOR -u FORCE_COLOR ${env} ${process.execPath} ${CLI} exec 'Show me' --provider openai-chat --model gpt-4.1-mini --cwd ${project}; echo EXIT=$?; sleep 60`;
      const session = `w${columns}${noColor ? 'n' : 'c'}`;
      tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', '50', command);
      try {
        let text = '';
        for (
          const deadline = Date.now() + 90_000;
          Date.now() < deadline;
          await new Promise((r) => setTimeout(r, 100))
        ) {
          text = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', session);
          if (/EXIT=\d+/.test(text)) break;
        }
        fs.writeFileSync(log, text);
        expect(text, `screen (also in ${log})`).toContain('EXIT=0');
        // Each line of the answer once: a stale live-region row would repeat a marker.
        for (let i = 0; i < LINES.length; i++) {
          const seen = text.split(`L${i}:`).length - 1;
          expect(seen, `L${i}: shown ${seen} times; screen:\n${text}`).toBe(1);
          expect(text.split(`end${i}`).length - 1, `end${i}; screen:\n${text}`).toBe(1);
        }
        // And the settled answer is whole, in order (tmux's capture may drop the zero-width joiners;
        // the answer is word-wrapped, so a row break may stand where a space was).
        const answer = text.slice(text.indexOf('L0:'));
        expect(answer.replace(/[\u200d\s]/g, '')).toContain(LINES.join('').replace(/[\u200d\s]/g, ''));
      } finally {
        tmux('kill-session', '-t', session);
      }
    },
  );
});
