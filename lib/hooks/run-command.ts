/**
 * One hook command as a real subprocess: `bash -c COMMAND` in the workspace, the event's JSON on
 * its stdin. Hooks are the user's own commands, configured by them, so they run outside the
 * run's sandbox, on the plain path of the one launcher (lib/sandbox/launch.ts with no sandbox),
 * in their own process group; the environment is minimal (the core variables less every
 * credential, by the one credential rule, plus the project folder) so a hook cannot hand a key
 * on by accident. At its timeout (or when the run is stopped) the whole group gets SIGTERM, then
 * SIGKILL after a grace period: a hook that forks a sleeper does not hold the run.
 */
import { scrubEnv } from '../policy/credentials.js';
import { launch } from '../sandbox/launch.js';
import { CORE_ENV_NAMES } from '../sandbox/settings.js';
import { createBoundedCollector } from '../tools/truncate.js';

/** Characters kept of a hook's stdout and of its stderr (head and tail, with a marker): 100,000. */
export const HOOK_OUTPUT_MAX_CHARS = 100_000;

/** Milliseconds between SIGTERM and SIGKILL of a hook's group: 1,000. */
export const HOOK_KILL_GRACE_MS = 1_000;

/** How a hook process ended. */
export interface HookProcessResult {
  /** Null when it was killed or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Killed at its timeout. */
  timedOut: boolean;
  /** Killed because the run stopped. */
  aborted: boolean;
  /** It could not be started (spawn error). */
  startError?: string;
  durationMs: number;
}

/** Options of {@link runHookCommand}. */
export interface HookCommandOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Default `Date.now`. */
  clock?: (() => number) | undefined;
}

/**
 * The environment of a hook: the core variables of `env` (PATH, HOME, USER, SHELL, TERM, LANG,
 * TMPDIR, TZ, LC_*) that the credential rule lets through, and the project folder as
 * `MINICODE_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` (hooks written for Claude Code read the latter).
 */
export function hookEnv(env: NodeJS.ProcessEnv, projectDir: string): Record<string, string> {
  const core = new Set(CORE_ENV_NAMES);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(scrubEnv(env)))
    if (core.has(name) || name.startsWith('LC_')) out[name] = value;
  out.MINICODE_PROJECT_DIR = projectDir;
  out.CLAUDE_PROJECT_DIR = projectDir;
  return out;
}

/** Run `command` with `input` on its stdin; resolves when it ended (never rejects). */
export function runHookCommand(
  command: string,
  input: string,
  options: HookCommandOptions,
): Promise<HookProcessResult> {
  const clock = options.clock ?? Date.now;
  const started = clock();
  return new Promise((resolve) => {
    const stdout = createBoundedCollector(HOOK_OUTPUT_MAX_CHARS);
    const stderr = createBoundedCollector(HOOK_OUTPUT_MAX_CHARS);
    const child = launch('bash', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdin: true });
    let stopped: 'timeout' | 'aborted' | undefined;
    let grace: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'aborted'): void => {
      if (stopped) return;
      stopped = why;
      child.killGroup('SIGTERM');
      grace = setTimeout(() => child.killGroup('SIGKILL'), HOOK_KILL_GRACE_MS);
      grace.unref();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const onAbort = (): void => stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) stop('aborted');
    const settle = (exitCode: number | null, startError?: string): void => {
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode,
        stdout: stdout.result().text,
        stderr: stderr.result().text,
        timedOut: stopped === 'timeout',
        aborted: stopped === 'aborted',
        ...(startError === undefined ? {} : { startError }),
        durationMs: Math.max(0, clock() - started),
      });
    };
    child.stdout.setEncoding('utf8').on('data', (s: string) => stdout.push(s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => stderr.push(s));
    // A hook that exits without reading its stdin closes the pipe: EPIPE is no failure of the hook.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    child.on('error', (error: Error) => settle(null, error.message));
    child.on('close', (code) => settle(stopped ? null : code));
  });
}
