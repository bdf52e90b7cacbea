/**
 * The prompt while a `!command` runs: its approval question when the policy asks (y runs it,
 * n or Esc does not), then `… running` until it ends (Esc or Ctrl+C stops its process group).
 * Drawing goes through the app's prompt area; the command itself is `shell-command.ts`.
 */
import type { ApprovalPolicy } from '../policy/index.js';
import type { KeyAction } from './keys.js';
import { runShellCommand, type ShellCommandResult } from './shell-command.js';

/** What the mode needs from the app. */
export interface ShellModeHost {
  cwd: string;
  policy: ApprovalPolicy;
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
  let confirm: ((ok: boolean) => void) | undefined;
  const draw = (): void => {
    if (confirm) host.draw(undefined, [`Approve? run !${command}`, 'Answer: y allow once, n deny']);
    else host.draw('Esc stops', [`… running !${command}`]);
  };
  draw();
  const done = runShellCommand(command, {
    cwd: host.cwd,
    policy: host.policy,
    env: host.env,
    signal: abort.signal,
    confirm: () =>
      new Promise<boolean>((resolve) => {
        confirm = (ok) => {
          confirm = undefined;
          resolve(ok);
          draw();
        };
        draw();
      }),
  });
  return {
    done,
    onKey(action, str) {
      const stop = action.kind === 'abort' || action.kind === 'interrupt';
      if (confirm) {
        const answer = str?.toLowerCase();
        if (answer === 'y' || answer === '1') confirm(true);
        else if (answer === 'n' || answer === 'd' || answer === '3' || stop) confirm(false);
        return;
      }
      if (stop) abort.abort();
    },
  };
}
