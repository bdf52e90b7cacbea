/**
 * The prompt while a `!command` runs: `… running` until it ends (Esc or Ctrl+C stops its
 * process group). Drawing goes through the app's prompt area; the command itself is
 * `shell-command.ts`.
 */
import type { KeyAction } from './keys.js';
import { runShellCommand, type ShellCommandResult } from './shell-command.js';

/** What the mode needs from the app. */
export interface ShellModeHost {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Draw the footer (with `keys`, when given) and `lines` in the prompt area. */
  draw(keys: string | undefined, lines: string[]): void;
}

/** A running `!command`. */
export interface ShellMode {
  /** A key pressed while it runs. */
  onKey(action: KeyAction, str: string | undefined): void;
  /** What it printed and kept, once it ended. */
  readonly done: Promise<ShellCommandResult>;
}

/** Start `command` (not empty). */
export function startShellMode(command: string, host: ShellModeHost): ShellMode {
  const abort = new AbortController();
  host.draw('Esc stops', [`… running !${command}`]);
  const done = runShellCommand(command, { cwd: host.cwd, env: host.env, signal: abort.signal });
  return {
    done,
    onKey(action) {
      if (action.kind === 'abort' || action.kind === 'interrupt') abort.abort();
    },
  };
}
