import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, ROOT } from '../helpers/cli.js';

// `minicode exec` itself in a real terminal: tmux runs the CLI on the demo cassette (a scratch
// copy of the sample project, loopback replay provider), and we assert on what a person sees.

const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAVE_TMUX) console.warn('skipping exec-in-tmux tests: tmux is not installed');
const SOCKET = `minicode-exec-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
let counter = 0;

async function execInTmux(columns: number, env: Record<string, string>): Promise<{ text: string; styled: string }> {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-tmux-'));
  fs.cpSync(path.join(ROOT, 'demo/sample-project'), project, { recursive: true });
  const home = path.join(project, '.home');
  const name = `e${counter++}`;
  const vars = Object.entries({ MINICODE_HOME: home, TERM: 'xterm-256color', ...env })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const command = `env -u NO_COLOR -u FORCE_COLOR ${vars} ${process.execPath} ${CLI} exec 'Fix the failing test' --provider replay --cassette ${path.join(ROOT, 'cassettes/demo')} --cwd ${project}; echo EXIT=$?; sleep 30`;
  tmux('new-session', '-d', '-s', name, '-x', String(columns), '-y', '60', command);
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const text = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
      if (/EXIT=\d+/.test(text) || Date.now() > deadline) {
        return { text, styled: tmux('capture-pane', '-p', '-e', '-S', '-', '-t', name) };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    tmux('kill-session', '-t', name);
  }
}

describe.skipIf(!HAVE_TMUX)('minicode exec in a real terminal (tmux)', () => {
  // A keeper session holds the tmux server up between tests: killing a test's only session
  // makes the server exit, and the next new-session can race that exit.
  beforeAll(() => {
    tmux('new-session', '-d', '-s', 'keeper', 'sleep 600');
  });
  afterAll(() => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  });

  it.each([
    ['with colour', {}],
    ['with NO_COLOR=1', { NO_COLOR: '1' }],
  ])('shows each tool with a glyph and a word, the answer and the summary, %s', async (_label, env) => {
    const { text, styled } = await execInTmux(100, env);
    expect(text).toContain('EXIT=0');
    expect(text).toMatch(/✓ read_file\(src\/greet\.js\) completed \d+ms/);
    expect(text).toMatch(/✓ edit\(src\/greet\.js\) completed/);
    // The edit's diff under its files line: plain + and - lines, coloured only with colour on.
    expect(text).toContain('files: modify src/greet.js (+1 -1)');
    expect(text).toMatch(/^ {2}- {2}return 'Hello, ' \+ nmae \+ '!';$/m);
    expect(text).toMatch(/^ {2}\+ {2}return 'Hello, ' \+ name \+ '!';$/m);
    if (!('NO_COLOR' in env)) expect(styled).toMatch(/\u001b\[32m {2}\+ {2}return 'Hello, ' \+ name/);
    expect(text).toMatch(/✓ bash\(node test\.js\) completed/);
    // Ids are for cross-reference in verbose views only.
    expect(text).not.toMatch(/toolu_demo|approval-\d/);
    // The answer is rendered Markdown: a code span keeps its backticks only without colour.
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('NO_COLOR' in env ? '`node test.js` now passes.' : ' node test.js now passes.');
    expect(text).toMatch(/✓ completed session ses_\w+/);
    expect(text).toContain('tools: 4 ✓ completed');
    expect(text).not.toMatch(/\u001b|\[\d*[AK]|\[\?25[lh]/);
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    if ('NO_COLOR' in env) expect(styled).not.toMatch(/\u001b\[(?:3\d|9\d|1)(?:;\d+)*m/);
    else expect(styled).toMatch(/\u001b\[[0-9;]*m/);
  });
});
