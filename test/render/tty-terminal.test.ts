import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

// The TTY renderer in a real terminal: tmux runs test/helpers/render-demo.mjs (the compiled
// renderer from dist/, built by `npm test`), and we assert on what a person sees in the pane.
// Skipped, with a note, where tmux or the build is missing.

const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
const DEMO = path.join(ROOT, 'test/helpers/render-demo.mjs');
const BUILT = fs.existsSync(path.join(ROOT, 'dist/lib/render/index.js'));
if (!HAVE_TMUX) console.warn('skipping real-terminal render tests: tmux is not installed');
else if (!BUILT) console.warn('skipping real-terminal render tests: run `npx tsc -p .` first (npm test does)');

const SOCKET = `minicode-render-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

let counter = 0;

/** Run the demo in a fresh tmux window of the given width; returns the pane (history included) once the summary is drawn. */
async function runInTmux(
  stream: string,
  columns: number,
  env: Record<string, string> = {},
  resize?: { afterText: string; columns: number; pauseMs: number },
): Promise<{ text: string; styled: string }> {
  const name = `r${counter++}`;
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  // With a resize, earlier output sits above the live region, as a shell prompt does: tmux keeps
  // the cursor's row when it reflows and pushes the rows a narrower width adds off the top into
  // its history, where no program can erase them; what is pushed must be earlier output.
  const before = resize ? "printf '$ earlier command\\n%.0s' 1 2 3 4; " : '';
  const command = `${before}env -u NO_COLOR -u FORCE_COLOR ${vars} ${process.execPath} ${DEMO} ${path.join(ROOT, 'test/streams/events', `${stream}.jsonl`)} ${resize?.pauseMs ?? 15}; sleep 30`;
  tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', '50', command);
  try {
    if (resize) {
      // The demo holds still after the event that drew `afterText` until this resize arrives.
      await waitFor(() => tmux('capture-pane', '-p', '-J', '-t', name).includes(resize.afterText), {
        what: `"${resize.afterText}" on screen`,
      });
      tmux('resize-window', '-t', name, '-x', String(resize.columns));
    }
    const deadline = Date.now() + 15_000;
    for (;;) {
      const text = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      if (/^usage: /m.test(text) || Date.now() > deadline) {
        // -J joins the rows the terminal wrapped, so each logical line reads whole.
        return {
          text: tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name),
          styled: tmux('capture-pane', '-p', '-e', '-S', '-', '-t', name),
        };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    tmux('kill-session', '-t', name);
  }
}

/** Nothing of an escape sequence may show up as text: no ESC, no orphaned `[2K`, `[1A`, `[?25l`, `[31m`. */
function expectNoStrayEscapes(text: string): void {
  expect(text).not.toMatch(/\u001b/);
  expect(text).not.toMatch(/\[(?:\d*[AK]|\?25[lh]|\d+(?:;\d+)*m)/);
}

describe.skipIf(!HAVE_TMUX || !BUILT)('the TTY renderer in a real terminal (tmux)', () => {
  // A keeper session holds the tmux server up between tests: killing a test's only session
  // makes the server exit, and the next new-session can race that exit.
  beforeAll(() => {
    tmux('new-session', '-d', '-s', 'keeper', 'sleep 600');
  });
  afterAll(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  });

  it('shows statuses with glyphs and words, the message text and the final summary, with no stray escape text', async () => {
    const { text, styled } = await runInTmux('tool-run', 100, { TERM: 'xterm-256color' });
    for (const line of [
      '✓ bash(npm run lint) completed 840ms - exit 0, 12 lines',
      '✗ read_file(src/missing.ts) failed 1.1s - FILESYSTEM_ERROR: ENOENT: no such file',
      '⊘ git_commit(git commit -m "fix lint") denied 30ms - gated tool denied without a TTY',
      'Fixed the unused variable in src/a.ts.',
      '✓ completed session ses_tools · 2.7s',
      'tools: 2 ✓ completed, 1 ✗ failed, 1 ⊘ denied',
    ]) {
      expect(text).toContain(line);
    }
    expectNoStrayEscapes(text);
    // The live region is gone: no spinner frame is left on screen.
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    // Colour is on here (the pane's styled capture has SGR) but only adds to glyph + word.
    expect(styled).toMatch(/\u001b\[[0-9;]*m/);
  });

  it('with NO_COLOR=1 shows the same words and glyphs and no colour at all', async () => {
    const { text, styled } = await runInTmux('tool-run', 100, { NO_COLOR: '1', TERM: 'xterm-256color' });
    expect(text).toContain('✗ read_file(src/missing.ts) failed 1.1s');
    expect(text).toContain('⊘ git_commit(git commit');
    expect(text).toContain('✓ completed session ses_tools');
    expectNoStrayEscapes(text);
    expect(styled).not.toMatch(/\u001b\[[0-9;]*[1-9][0-9;]*m/);
  });

  it('at 40 columns keeps settled lines intact (wrapped by the terminal) and the summary readable', async () => {
    const { text } = await runInTmux('failed-run', 40, { NO_COLOR: '1' });
    const joined = text;
    expect(joined).toContain('◌ bash(git diff) cancelled 300ms - aborted');
    expect(joined).toContain('✗ failed session ses_failed · reason provider · 1.6s');
    expect(joined).toContain('tools: 1 ◌ cancelled');
    expectNoStrayEscapes(text);
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it('after an interrupted stream at 40 columns leaves one interrupted line and the partial text, no live rows', async () => {
    const { text } = await runInTmux('truncated', 40, { NO_COLOR: '1' });
    const joined = text;
    expect(joined).toContain('! bash(npm test) interrupted - no terminal event');
    expect(joined).toContain('◐ partial the answer did not complete');
    expect(joined.match(/Let me check the tests/g)).toHaveLength(1);
    expectNoStrayEscapes(text);
  });

  it('survives a width change while the live region is drawn: nothing duplicated, nothing stale', async () => {
    // The demo stops once the tool's live line is drawn; the window then narrows from 100 to 30.
    const { text } = await runInTmux(
      'truncated',
      100,
      { NO_COLOR: '1', DEMO_WAIT_RESIZE_AFTER: 'tool.started' },
      { afterText: 'running bash', columns: 30, pauseMs: 15 },
    );
    const joined = text;
    expect(joined.match(/Let me check the tests/g)).toHaveLength(1);
    expect(joined.match(/bash\(npm test\)/g)).toHaveLength(1);
    expect(joined).toContain('! bash(npm test) interrupted - no terminal event');
    expect(joined).toContain('! interrupted session ses_truncated');
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expectNoStrayEscapes(text);
  });
});
