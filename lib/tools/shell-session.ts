/**
 * The shell of Claude's `bash` tool, kept between calls. Claude is trained on a persistent shell
 * (a `cd` or an `export` holds for the next command; `restart` starts afresh), while minicode
 * starts each command as a fresh process inside the sandbox. A shell session bridges the two:
 * each command starts in the working directory and with the exported variables the previous
 * one ended with, and the command's own shell reports both when it ends.
 *
 * How a command reports: it runs under {@link SHELL_WRAPPER}, a few lines of bash that write the
 * exported environment to a pipe on fd {@link REPORT_FD} before the command and, from an EXIT
 * trap (so `exit 3` and `set -e` report too), the working directory and the environment again
 * after it. The command itself runs with that descriptor closed, so nothing it starts (a server
 * in the background) holds the pipe open. Only builtins are used, so a command that empties
 * `PATH` still reports, and nothing beyond bash 3.2 (macOS's).
 *
 * What is kept is decided here, on minicode's side, from that report (untrusted: the command
 * could have redefined the reporting functions):
 * - the variables the command set, changed or unset, as an overlay on the environment minicode
 *   gives every command (the sandbox's minimal one stays the base); bash's own (`PWD`,
 *   `OLDPWD`, `SHLVL`, `_`) and names that are not shell identifiers are left out;
 * - never a credential: a variable the credential rule calls one (lib/scrub/credential-rule.ts,
 *   the rule that keeps them out of every command's environment) is not kept, unless the
 *   sandbox's `env.pass` names it, and the output says so;
 * - the working directory only inside the workspace (after links are resolved): a command that
 *   ends elsewhere leaves the next one starting at the workspace root, and the output says so;
 * - at most {@link MAX_SHELL_STATE_BYTES} of variables; past that the command's changes are not kept.
 *
 * A command that ends without a report (killed on timeout, replaced by `exec`) leaves the state
 * as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isCredentialVariable } from '../scrub/credential-rule.js';
import { isWithin } from '../sandbox/plan.js';
import { RERUN_SUFFIX } from './rerun-id.js';
import { dropExpected } from '../debug.js';

/** The descriptor a command reports its shell state on (3 may carry the sandbox's seccomp program). */
export const REPORT_FD = 4;

/** The largest report read from one command (two copies of its environment); more is not read and the state is not kept. Default 1 MiB. */
export const MAX_SHELL_REPORT_BYTES = 1024 * 1024;

/** The most bytes of variables a session keeps (names and values). Default 64 KiB. */
export const MAX_SHELL_STATE_BYTES = 64 * 1024;

/**
 * The bash that runs a command (`bash -c SHELL_WRAPPER bash COMMAND`): the exported environment
 * to fd 4, the command with fd 4 closed, then from the EXIT trap the working directory and the
 * environment again. The trap resets what the command may have set that would break the report
 * (`set -euf`, `IFS`). One line, so that bash's messages about the command read as `bash -c`'s.
 */
export const SHELL_WRAPPER = [
  `__minicode_env() { local __minicode_n; for __minicode_n in $(compgen -e); do builtin printf '%s=%s\\0' "$__minicode_n" "\${!__minicode_n}"; done; }`,
  `__minicode_end() { set +euf; IFS=$' \\t\\n'; trap - EXIT; { builtin printf 'end\\0%s\\0' "$PWD"; __minicode_env; } >&${REPORT_FD}; }`,
  `{ builtin printf 'start\\0'; __minicode_env; } >&${REPORT_FD}`,
  'trap __minicode_end EXIT',
  `eval "$1" ${REPORT_FD}>&-`,
].join('; ');

/** What a session carries from one command to the next. */
export interface ShellState {
  /** Where the next command starts: the workspace or a folder inside it (absolute). */
  cwd: string;
  /** Variables set (a string) or unset (null) over the environment every command gets. */
  env: Readonly<Record<string, string | null>>;
}

/** A command's report: its environment when it started, and where it ended with which environment. */
export interface ShellReport {
  start: Record<string, string>;
  end: { cwd: string; env: Record<string, string> } | undefined;
}

/** Variables bash manages itself: never part of a session's state. */
const SHELL_OWN = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A report's bytes as a {@link ShellReport}; undefined when it is not one (no `start` record). */
export function parseShellReport(bytes: Buffer): ShellReport | undefined {
  const fields = bytes.toString('utf8').split('\0');
  // Every record ends with a NUL: the last piece is empty (or a record cut short, dropped).
  fields.pop();
  if (fields[0] !== 'start') return undefined;
  const start: Record<string, string> = {};
  let at = 1;
  const readEnv = (into: Record<string, string>): void => {
    while (at < fields.length && fields[at] !== 'end') {
      const entry = fields[at++]!;
      const eq = entry.indexOf('=');
      if (eq > 0) into[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
  };
  readEnv(start);
  if (fields[at] !== 'end' || at + 1 >= fields.length) return { start, end: undefined };
  const cwd = fields[at + 1]!;
  at += 2;
  const env: Record<string, string> = {};
  readEnv(env);
  return { start, end: { cwd, env } };
}

/** The environment a command of the session starts with: `base` with the state's overlay. */
export function shellEnv(base: Readonly<Record<string, string>>, state: ShellState): Record<string, string> {
  const env = { ...base };
  for (const [name, value] of Object.entries(state.env)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Options of {@link nextShellState}. */
export interface NextStateOptions {
  /** The workspace root the working directory must stay in. */
  workspace: string;
  /** Credential names (or `PREFIX*`) the sandbox passes to commands (`sandbox.env.pass`): kept like any variable. */
  pass: readonly string[];
}

/** The state after a command, and the notes its output gets about what was not kept. */
export interface NextState {
  state: ShellState;
  notes: string[];
}

function passes(name: string, pass: readonly string[]): boolean {
  const upper = name.toUpperCase();
  return pass.some((p) =>
    p.endsWith('*') ? upper.startsWith(p.slice(0, -1).toUpperCase()) : upper === p.toUpperCase(),
  );
}

/** The real path of `p`, or undefined when it does not exist (or cannot be resolved). */
function realPath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch (error) {
    // Gone or unreadable: there is nowhere to start the next command.
    dropExpected('shell session: resolving a working directory', error, 'ENOENT', 'ENOTDIR', 'EACCES', 'ELOOP');
    return undefined;
  }
}

/** The session's state after a command that reported `report`, from `before`. Pure but for resolving the working directory's links. */
export function nextShellState(before: ShellState, report: ShellReport, options: NextStateOptions): NextState {
  if (!report.end) return { state: before, notes: [] };
  const notes: string[] = [];
  const env: Record<string, string | null> = { ...before.env };
  const { start, end } = report;
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(end.env)) {
    if (SHELL_OWN.has(name) || !IDENTIFIER.test(name) || start[name] === value) continue;
    if (isCredentialVariable(name, value) && !passes(name, options.pass)) {
      // Not kept, and an earlier value of the name goes too: the next command gets the base's (none).
      delete env[name];
      dropped.push(name);
      continue;
    }
    env[name] = value;
  }
  for (const name of Object.keys(start)) {
    if (SHELL_OWN.has(name) || !IDENTIFIER.test(name) || name in end.env) continue;
    env[name] = null;
  }
  if (dropped.length > 0)
    notes.push(
      `[shell] not kept for the next command: ${dropped.join(', ')} (credential variables never reach commands)`,
    );
  let size = 0;
  for (const [name, value] of Object.entries(env)) size += name.length + (value?.length ?? 0);
  const workspace = realPath(options.workspace) ?? options.workspace;
  const real = path.isAbsolute(end.cwd) ? realPath(end.cwd) : undefined;
  let cwd = before.cwd;
  if (real !== undefined && isWithin(real, workspace)) cwd = real;
  else {
    cwd = workspace;
    notes.push(
      `[shell] the command ended in ${end.cwd}, not a folder inside the workspace: the next command starts in ${options.workspace}`,
    );
  }
  if (size > MAX_SHELL_STATE_BYTES) {
    notes.push(
      `[shell] the exported variables passed ${MAX_SHELL_STATE_BYTES} bytes: this command's changes to them are not kept`,
    );
    return { state: { cwd, env: before.env }, notes };
  }
  return { state: { cwd, env }, notes };
}

/**
 * One session's shell: the state commands start from, one command at a time (Claude's shell
 * runs its commands in order), and a restart. The state lives in memory only, never in an event.
 */
export interface ShellSession {
  /** The workspace the working directory stays in. */
  readonly workspace: string;
  /**
   * Run `command` once the session's previous command has ended, from the state it left (an
   * approved unsandboxed rerun, `<id>.unsandboxed`, from the state its refused call started
   * from); `command` returns the state to keep.
   */
  run<T>(
    callId: string | undefined,
    command: (state: ShellState) => Promise<{ next: ShellState; value: T }>,
  ): Promise<T>;
  /** Back to the workspace root and the base environment (`restart: true`), once the commands before it have ended. */
  restart(): Promise<void>;
  /** The state the next command starts from. */
  current(): ShellState;
}

/** How many calls' start states are remembered for a rerun of one of them. */
const REMEMBERED_STARTS = 16;

/** A new shell session in `workspace`. */
export function createShellSession(workspace: string): ShellSession {
  const fresh = (): ShellState => ({ cwd: workspace, env: {} });
  let state = fresh();
  let queue: Promise<unknown> = Promise.resolve();
  const starts = new Map<string, ShellState>();
  return {
    workspace,
    run(callId, command) {
      const turn = queue.then(async () => {
        const rerunOf = callId?.endsWith(RERUN_SUFFIX) ? callId.slice(0, -RERUN_SUFFIX.length) : undefined;
        const from = (rerunOf !== undefined ? starts.get(rerunOf) : undefined) ?? state;
        if (callId !== undefined) {
          starts.set(callId, from);
          if (starts.size > REMEMBERED_STARTS) starts.delete(starts.keys().next().value!);
        }
        const { next, value } = await command(from);
        state = next;
        return value;
      });
      // The next command waits for this one however it ends.
      queue = turn.catch(() => undefined);
      return turn;
    },
    restart() {
      return this.run(undefined, async () => ({ next: fresh(), value: undefined }));
    },
    current: () => state,
  };
}
