/**
 * The live activity line in a real terminal (tmux): the provider is a loopback replay server
 * whose first answer opens its stream and then sends nothing for 6 s (test/cassettes/chat-stall).
 * While it stalls the screen must still move: the spinner turns and the elapsed seconds count.
 * Skipped with a note where tmux is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { HAVE_TMUX, startTerm, type TmuxTerm } from './tmux-driver.js';

if (!HAVE_TMUX) console.warn('skipping activity tmux tests: tmux is not installed (apt-get install -y tmux)');

const STALL = path.join(ROOT, 'test/cassettes/chat-stall');
const ACTIVITY = /^([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]) waiting for the model \((\d+)s · esc to interrupt\)$/m;

/** Poll the screen until `accept` returns a value, or fail with the screen after `timeoutMs`. */
async function until<T>(
  t: TmuxTerm,
  accept: (screen: string) => T | undefined,
  timeoutMs: number,
): Promise<{ screen: string; value: T }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const screen = t.capture();
    const value = accept(screen);
    if (value !== undefined) return { screen, value };
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; screen:\n${screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!HAVE_TMUX).each([120, 60])('the activity line at %i columns', (cols) => {
  let project: string;
  let home: string;
  const terms: TmuxTerm[] = [];

  beforeAll(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-activity-'));
    home = path.join(dir, 'home');
    project = path.join(dir, 'project');
    fs.mkdirSync(project, { recursive: true });
  });
  afterAll(() => {
    for (const t of terms) t.kill();
  });

  it('moves while the model stream stalls, asks for the bash call, shows its output preview, and is gone once the turn ends', async () => {
    const t = startTerm(['chat', '--provider', 'replay', '--cassette', STALL, '--cwd', project, '--sandbox', 'off'], {
      cols,
      rows: 40,
      cwd: project,
      env: { MINICODE_HOME: home, TERM: 'xterm-256color' },
    });
    terms.push(t);
    await t.waitFor('New session');
    t.type('list the rows');
    t.send('Enter');
    const first = await until(t, (s) => ACTIVITY.exec(s) ?? undefined, 30_000);
    const [, spinner, seconds] = first.value;
    // Two seconds later (by the counter on screen, polled), the line has moved: the stream sent nothing meanwhile.
    const later = await until(
      t,
      (s) => {
        const m = ACTIVITY.exec(s);
        return m && Number(m[2]) >= Number(seconds) + 2 ? m : undefined;
      },
      10_000,
    );
    expect(later.screen).not.toBe(first.screen);
    expect(`${later.value[1]}${later.value[2]}`).not.toBe(`${spinner}${seconds}`);
    // One activity line, never a stack of them.
    expect(later.screen.match(/esc to interrupt/g)).toHaveLength(1);
    for (const line of later.screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(cols);
    // The stream resumes with a bash call: the activity says the turn waits for the person.
    await t.waitFor(/waiting for approval \(\d+s · esc to interrupt\)/);
    t.send('y');
    await t.waitFor('The command printed twelve rows.');
    await t.waitFor(/^› *$/m);
    // Joined: at 60 columns the header wraps.
    const done = t.capture(true);
    expect(done).not.toMatch(/to interrupt\)/);
    // The call is one block: its header with outcome and duration, then the first and last rows of its output.
    expect(done).toMatch(
      /^✓ bash\(printf 'row %s\\n' 1 2 3 4 5 6 7 8 9 10 11 12\) completed \S+ - exit 0\n {2}⎿ row 1\n {4}row 2\n {4}row 3\n {4}… \+7 lines\n {4}row 11\n {4}row 12$/m,
    );
    expect(done).not.toMatch(/toolu_|task-\d|approval-\d/);
    t.send('C-d');
    await t.waitFor('EXIT=0', { join: true });
  }, 60_000);
});
