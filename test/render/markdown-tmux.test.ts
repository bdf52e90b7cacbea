/**
 * A streamed Markdown answer in a real terminal: `minicode exec` runs in tmux at 40, 80 and 120
 * columns, with and without NO_COLOR, while the model streams a heading, a list, a table and a
 * fenced code block in small chunks. The settled screen must hold the rendered answer, row for
 * row, with no Markdown markers and no stale live-region rows.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { Chalk } from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMarkdown, renderMarkdown } from '../../lib/render/markdown/index.js';
import { startReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { CLI } from '../helpers/cli.js';
import { contentTypeOf, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAVE_TMUX) console.warn('skipping the Markdown tmux test: tmux is not installed');
const SOCKET = `minicode-md-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });

const ANSWER = [
  '## Result',
  '',
  'The **fix** renames `nmae` to `name`.',
  '',
  '- first item',
  '- second item with *emphasis*',
  '',
  '| file | status |',
  '|---|---|',
  '| src/greet.js | fixed |',
  '',
  '```js',
  'const answer = 42; // checked',
  '```',
].join('\n');

beforeAll(async () => {
  await loadMarkdown();
  if (HAVE_TMUX) tmux('new-session', '-d', '-s', 'keeper', 'sleep 600');
});
afterAll(() => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
});

async function screenOf(columns: number, noColor: boolean): Promise<string> {
  const server = await startReplayServer(
    [streamOk(turnBody('openai-chat', { text: ANSWER }, 1), contentTypeOf('openai-chat'))],
    { chunkSize: 16, delayMs: 10 },
  );
  const name = `md${columns}${noColor ? 'n' : 'c'}`;
  try {
    const vars = {
      MINICODE_HOME: tempDir('minicode-home-'),
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      OPENAI_API_KEY: 'sk-test-not-a-real-key',
      OPENAI_BASE_URL: `${server.origin}/v1`,
      ...(noColor ? { NO_COLOR: '1' } : {}),
    };
    const env = Object.entries(vars)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    const command = `env -u NO_COLOR -u FORCE_COLOR ${env} ${process.execPath} ${CLI} exec 'Explain' --provider openai-chat --model gpt-4.1-mini --cwd ${scratchProject()}; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', '60', command);
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const text = tmux('capture-pane', '-p', '-S', '-', '-t', name);
      if (/EXIT=\d+/.test(text) || Date.now() > deadline) return text;
    }
  } finally {
    spawnSync('tmux', ['-L', SOCKET, 'kill-session', '-t', name]);
    await server.close();
  }
}

describe.skipIf(!HAVE_TMUX)('a streamed Markdown answer in a real terminal (tmux)', () => {
  it.each([
    [40, false],
    [40, true],
    [80, false],
    [80, true],
    [120, false],
    [120, true],
  ])('settles into the rendered answer at %i columns (NO_COLOR %s)', async (columns, noColor) => {
    const screen = await screenOf(columns, noColor);
    expect(screen).toContain('EXIT=0');
    const rows = screen.split('\n').map((r) => r.trimEnd());
    const expected = renderMarkdown(ANSWER, columns - 1, new Chalk({ level: noColor ? 0 : 1 }))!.map((r) =>
      r.plain.trimEnd(),
    );
    const at = rows.indexOf(expected[0]!);
    expect(at, `heading row; screen:\n${screen}`).toBeGreaterThan(-1);
    expect(rows.slice(at, at + expected.length), `screen:\n${screen}`).toEqual(expected);
    // What a person sees: no Markdown markers, the structure drawn for the terminal.
    expect(screen).not.toMatch(/##|\*\*|\|---/);
    expect(rows).toContain('• first item');
    expect(rows).toContain('  const answer = 42; // checked');
    expect(rows).toContain('src/greet.js │ fixed');
    if (noColor) expect(rows).toContain('```js');
    else expect(screen).not.toContain('```');
    // Each item once: no stale row of the live region above the settled answer.
    expect(screen.split('first item').length - 1).toBe(1);
  });
});
