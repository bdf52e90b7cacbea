/**
 * A small tmux driver for the interactive mode: start `minicode chat` in a detached tmux
 * session of a given size (its own tmux server socket, so tests never touch a user's tmux),
 * send keys, and poll `capture-pane` until text appears or a deadline passes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { CLI } from '../helpers/cli.js';

/** True when a tmux binary runs here. */
export const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** One tmux-hosted terminal running the CLI. */
export interface TmuxTerm {
  send(...keys: string[]): void;
  /** Type literal text (no key names). */
  type(text: string): void;
  /** Paste text as a terminal does: bracketed when the program asked for it. */
  paste(text: string): void;
  /** The visible screen; `join` unwraps soft-wrapped lines (what a copy yields). */
  capture(join?: boolean): string;
  /** The whole pane, history included, wrapped rows joined. */
  captureAll(): string;
  /** The visible screen with its colour sequences (`capture-pane -e`). */
  captureStyled(): string;
  /** Where the terminal's cursor is, 0-based column and row. */
  cursor(): { x: number; y: number };
  /**
   * Wait until the screen matches; throws with the screen when the deadline passes (default 30 s,
   * inside the test's own 60 s: the slow cassette streams its first answer for about 7 s, and
   * two cores shared with other test files stretch that).
   */
  waitFor(pattern: RegExp | string, options?: { timeoutMs?: number; join?: boolean }): Promise<string>;
  /** Resize the window (the program gets SIGWINCH; tmux reflows the lines already drawn). */
  resize(cols: number, rows: number): void;
  /** The CLI's process id (the child of the window's shell). */
  pid(): number;
  kill(): void;
}

/**
 * The screen once `n` turns have ended: each ends with one line saying so, `✓ completed 1.2s ·
 * 2 steps` (the person's view names no task id).
 */
export function turnsDone(n: number): RegExp {
  return new RegExp(`(?:^✓ completed \\d[^\\n]*$[\\s\\S]*?){${n}}`, 'm');
}

/** What the prompt shows after a Ctrl+C there: the next Ctrl+C quits. */
export const QUIT_HINT = 'Press Ctrl+C again to quit';

/**
 * Quit the interactive mode from its prompt as a person does: Ctrl+C (which clears a draft), then
 * a second Ctrl+C once the screen says it will quit.
 */
export async function quitChat(t: TmuxTerm): Promise<void> {
  t.send('C-c');
  await t.waitFor(QUIT_HINT);
  t.send('C-c');
}

let counter = 0;

/** Start the CLI with `args` in a `cols` x `rows` tmux window; the shell prints `EXIT=<code>` when it ends (and writes it to `exitFile`). */
export function startTerm(
  args: readonly string[],
  options: {
    cols: number;
    rows: number;
    env: Record<string, string>;
    cwd: string;
    exitFile?: string /** Lines printed before the CLI starts (earlier output above it). */;
    before?: readonly string[];
  },
): TmuxTerm {
  const socket = `minicode-test-${process.pid}-${++counter}`;
  const name = 't';
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const env = Object.entries(options.env)
    .map(([k, v]) => `${k}=${quote(v)}`)
    .join(' ');
  // With `exitFile`, the shell outlives a closed window (it ignores SIGHUP) to write the exit code there.
  const status = options.exitFile ? `s=$?; echo $s > ${quote(options.exitFile)}; echo EXIT=$s` : 'echo EXIT=$?';
  const before = (options.before ?? []).map((line) => `printf '%s\\n' ${quote(line)}; `).join('');
  const command = `${options.exitFile ? "trap '' HUP; " : ''}${before}cd ${quote(options.cwd)} && env ${env} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}; ${status}; sleep 120`;
  const tmux = (...a: string[]): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...a], { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', name, '-x', String(options.cols), '-y', String(options.rows), command);
  const term: TmuxTerm = {
    send: (...keys) => void tmux('send-keys', '-t', name, ...keys),
    type: (text) => void tmux('send-keys', '-t', name, '-l', text),
    paste: (text) => {
      tmux('set-buffer', '-b', 'paste', text);
      tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', name);
    },
    capture: (join = false) => tmux('capture-pane', '-p', ...(join ? ['-J'] : []), '-t', name),
    captureAll: () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name),
    captureStyled: () => tmux('capture-pane', '-p', '-e', '-t', name),
    cursor: () => {
      const [x, y] = tmux('display-message', '-p', '-t', name, '#{cursor_x} #{cursor_y}').trim().split(' ').map(Number);
      return { x: x!, y: y! };
    },
    async waitFor(pattern, o = {}) {
      const deadline = Date.now() + (o.timeoutMs ?? 30_000);
      for (;;) {
        const screen = term.capture(o.join ?? false);
        if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}; screen:\n${screen}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    resize: (cols, rows) => void tmux('resize-window', '-t', name, '-x', String(cols), '-y', String(rows)),
    pid: () => {
      const shell = tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim();
      return Number(execFileSync('ps', ['-o', 'pid=', '--ppid', shell], { encoding: 'utf8' }).trim().split('\n')[0]);
    },
    kill: () => {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    },
  };
  return term;
}
