import fs from 'node:fs';
import type { z } from 'zod';
import { INPUT_JSON_SCHEMAS } from './input-json-schemas.js';
import { BashInput } from './input-schemas.js';
import { commandEnv } from '../sandbox/environment.js';
import { launch } from '../sandbox/launch.js';
import { refusalNote } from '../sandbox/refusal.js';
import { createBoundedCollector } from './truncate.js';
import { capHeadTail } from './truncate.js';
import type { Tool, ToolContext, ToolOutcome } from './types.js';
import { definedOnly } from '../defined-only.js';
import { MAX_SHELL_REPORT_BYTES, nextShellState, parseShellReport, SHELL_WRAPPER, shellEnv } from './shell-session.js';

type Input = z.infer<typeof BashInput>;
const JSON_SCHEMA = INPUT_JSON_SCHEMAS.bash!;

/**
 * `bash`: run a command line as a real subprocess in the workspace, inside the run's sandbox
 * (lib/sandbox), in its own process group, with credential variables removed from its
 * environment; a refusal of the sandbox seen in the output is named in one line at its end. stdout and stderr are interleaved
 * into one bounded buffer (default cap 20,000 chars, 70% head + 30% tail with a marker). On
 * timeout or abort the group gets SIGTERM, then SIGKILL after a grace period.
 */
export const bashTool: Tool<Input> = {
  name: 'bash',
  description:
    'Run a shell command in the workspace with bash -c. Output (stdout and stderr together) is capped at 20000 characters. Credentials are not in its environment.',
  inputSchema: BashInput,
  jsonSchema: JSON_SCHEMA,
  kind: 'execute',
  gated: false,
  startsCommands: true,
  title: (input) => input.command,
  run(input, ctx) {
    const timeoutMs = input.timeout_ms ?? ctx.limits.bashTimeoutMs;
    if (ctx.terminal) return runInTerminal(input.command, timeoutMs, ctx);
    const env = commandEnv(ctx.env ?? process.env, ctx.sandbox);
    const shell = ctx.shell;
    if (!shell) return runLocal(['-c', input.command], { cwd: ctx.cwd, env, timeoutMs }, ctx).then((r) => r.outcome);
    // Claude's persistent shell: start where the previous command ended, with what it exported.
    return shell.run(ctx.toolCallId, async (state) => {
      const notes: string[] = [];
      let cwd = state.cwd;
      if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
        notes.push(`[shell] ${cwd} no longer exists: the command ran in ${shell.workspace}`);
        cwd = shell.workspace;
      }
      const ran = await runLocal(
        ['-c', SHELL_WRAPPER, 'bash', input.command],
        { cwd, env: shellEnv(env, state), timeoutMs, report: true },
        ctx,
      );
      const report = ran.report === undefined ? undefined : parseShellReport(ran.report);
      if (ran.report === undefined && ran.reportCut)
        notes.push(`[shell] the shell state passed ${MAX_SHELL_REPORT_BYTES} bytes: it is kept as it was`);
      const next = report
        ? nextShellState({ ...state, cwd }, report, { workspace: shell.workspace, pass: ctx.sandbox?.env.pass ?? [] })
        : { state: { ...state, cwd }, notes: [] };
      return { next: next.state, value: withNotes(ran.outcome, [...notes, ...next.notes]) };
    });
  },
};

/** What {@link runLocal} runs: bash's arguments, where, with which environment and deadline, and whether to read a report on fd 4. */
interface LocalCommand {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  report?: boolean;
}

/** The outcome of a local command, and its report (fd 4) when asked for one and it fit {@link MAX_SHELL_REPORT_BYTES}. */
interface LocalRun {
  outcome: ToolOutcome;
  report: Buffer | undefined;
  /** True when the report passed the cap and was not kept. */
  reportCut: boolean;
}

/** `outcome` with `notes` as lines after its output. */
function withNotes(outcome: ToolOutcome, notes: string[]): ToolOutcome {
  if (notes.length === 0 || outcome.status === 'denied') return outcome;
  const tail = notes.join('\n');
  return { ...outcome, output: outcome.output === undefined ? tail : `${outcome.output}\n${tail}` };
}

/** `bash args` as a subprocess in the sandbox, in its own process group, bounded in output and time. */
function runLocal(args: string[], command: LocalCommand, ctx: ToolContext): Promise<LocalRun> {
  const { timeoutMs } = command;
  return new Promise<LocalRun>((resolveRun) => {
    const reportChunks: Buffer[] = [];
    let reportBytes = 0;
    let reportCut = false;
    let stopped: 'timeout' | 'aborted' | undefined;
    const resolve = (outcome: ToolOutcome): void => {
      // A command stopped part-way may have reported half its environment: none is better.
      const report = command.report && !reportCut && !stopped ? Buffer.concat(reportChunks) : undefined;
      resolveRun({ outcome, report, reportCut });
    };
    if (ctx.signal.aborted) {
      resolve({ status: 'failed', cause: 'USER_ERROR', message: 'aborted before the command started' });
      return;
    }
    const collector = createBoundedCollector(ctx.limits.maxOutputChars);
    const child = launch('bash', args, {
      cwd: command.cwd,
      env: command.env,
      detached: true,
      sandbox: ctx.sandbox,
      workspace: ctx.cwd,
      report: command.report ?? false,
    });
    // Read to the end whatever its size (a full pipe would stall the command); kept only within the cap.
    child.report?.on('data', (chunk: Buffer) => {
      reportBytes += chunk.length;
      if (reportBytes > MAX_SHELL_REPORT_BYTES) reportCut = true;
      else reportChunks.push(chunk);
    });
    let graceTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped) return;
      stopped = why;
      child.killGroup('SIGTERM');
      graceTimer = setTimeout(() => child.killGroup('SIGKILL'), ctx.limits.killGraceMs);
      graceTimer.unref();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (s: string) => collector.push(s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => collector.push(s));
    child.on('error', (error: Error) => {
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      resolve({ status: 'failed', cause: 'TOOL_ERROR', message: `could not start bash: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      // The command's own children may still hold the pipes; make sure none outlives the call.
      child.killGroup('SIGKILL');
      const { text, truncated } = collector.result();
      const note = refusalNote(text, ctx.sandbox, child.refusedHosts());
      const output = `${text.length > 0 ? text : '(no output)'}${note ? `\n${note}` : ''}`;
      const refusal = note ? { sandboxRefusal: note } : {};
      if (stopped === 'timeout') {
        resolve({
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: `command timed out after ${timeoutMs} ms; its process group was killed`,
          hint: 'pass a larger timeout_ms or run a narrower command',
          output,
          receipt: { truncated },
          ...refusal,
        });
        return;
      }
      if (stopped === 'aborted') {
        resolve({
          status: 'failed',
          cause: 'USER_ERROR',
          message: 'command aborted; its process group was killed',
          output,
          receipt: { truncated },
        });
        return;
      }
      const exitCode = code ?? (signal ? 128 : 1);
      if (exitCode === 0) {
        resolve({
          status: 'completed',
          summary: `exit 0${truncated ? ' (output truncated)' : ''}`,
          output,
          receipt: { exitCode, truncated },
          ...refusal,
        });
      } else {
        resolve({
          status: 'failed',
          cause: 'TOOL_ERROR',
          message: signal ? `command killed by ${signal}` : `command exited with code ${exitCode}`,
          output,
          receipt: { exitCode, truncated },
          ...refusal,
        });
      }
    });
  });
}

/**
 * The command in the surface's terminal (an IDE's `terminal/*`): same deadline, same outcomes.
 * The terminal runs in the client's environment, which minicode cannot scrub; the client owns it.
 */
async function runInTerminal(command: string, timeoutMs: number, ctx: ToolContext): Promise<ToolOutcome> {
  if (ctx.signal.aborted)
    return { status: 'failed', cause: 'USER_ERROR', message: 'aborted before the command started' };
  const stop = new AbortController();
  let stopped: 'timeout' | 'aborted' | undefined;
  const timer = setTimeout(() => {
    stopped ??= 'timeout';
    stop.abort();
  }, timeoutMs);
  const onAbort = () => {
    stopped ??= 'aborted';
    stop.abort();
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let result: Awaited<ReturnType<NonNullable<typeof ctx.terminal>['run']>>;
  try {
    result = await ctx.terminal!.run(
      definedOnly({
        command: 'bash',
        args: ['-c', command],
        cwd: ctx.cwd,
        outputByteLimit: ctx.limits.maxOutputChars * 4,
        toolCallId: ctx.toolCallId || undefined,
      }),
      stop.signal,
    );
  } catch (error) {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: `the client terminal failed: ${(error as Error).message}`,
    };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
  }
  const capped = capHeadTail(result.output, ctx.limits.maxOutputChars);
  const truncated = result.truncated || capped.truncated;
  const output = capped.text.length > 0 ? capped.text : '(no output)';
  if (stopped === 'timeout') {
    return {
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: `command timed out after ${timeoutMs} ms; its terminal was killed`,
      hint: 'pass a larger timeout_ms or run a narrower command',
      output,
      receipt: { truncated },
    };
  }
  if (stopped === 'aborted')
    return {
      status: 'failed',
      cause: 'USER_ERROR',
      message: 'command aborted; its terminal was killed',
      output,
      receipt: { truncated },
    };
  const exitCode = result.exitCode ?? (result.signal ? 128 : 1);
  if (exitCode === 0)
    return {
      status: 'completed',
      summary: `exit 0${truncated ? ' (output truncated)' : ''}`,
      output,
      receipt: { exitCode, truncated },
    };
  return {
    status: 'failed',
    cause: 'TOOL_ERROR',
    message: result.signal ? `command killed by ${result.signal}` : `command exited with code ${exitCode}`,
    output,
    receipt: { exitCode, truncated },
  };
}
