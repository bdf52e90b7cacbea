/**
 * What a batch line runs inside when the batch measures outcomes: an isolated workspace
 * (`--isolate`), the line's verify command after the run, and the line's patch. Runs where
 * the run runs: on the pool thread that carries it (spawning git and the verify command forks
 * the whole process, which blocks the spawning thread's loop for the fork's duration, so the
 * coordinator must not do it once per line), or on the coordinator for runs kept there.
 */
import type { SandboxSettings } from '../sandbox/settings.js';
import fs from 'node:fs';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { outputRedactor, writeArtefact } from '../artefacts.js';
import { runVerify } from '../verify/run.js';
import type { BatchLine } from './input.js';
import { setupErrorRecord, type BatchRecord, type ErrorRecord, type LineVerify } from './records.js';
import { abortReason, joinSignals } from '../control/termination.js';
import { createWorkspace, safeId, type IsolateMode, type Workspace } from './workspace.js';
import { definedOnly } from '../defined-only.js';
import { runKey } from './attempts.js';

/** Isolation and verification of every line. */
export interface HarnessOptions {
  /** Default `none`: lines run in their cwd. */
  isolate?: IsolateMode | undefined;
  /** Worktree: include uncommitted and untracked files. */
  isolateDirty?: boolean | undefined;
  /** Leave each workspace in place (its path in the record's `workspace`); such worktrees are not pooled. */
  keepWorkspaces?: boolean | undefined;
  /** Worktrees the batch's pool holds at most (`--isolate worktree`); the batch sets its concurrency, default 8. */
  poolSize?: number | undefined;
  /** Verify command of a line without its own `verify`. */
  verify?: string | undefined;
  /** Kill the verify command after this long (default 10 minutes). */
  verifyTimeoutMs?: number | undefined;
  /** Wall-clock limit of a line without its own `timeout`: run, verify and scorers together (ms); default none. */
  lineTimeoutMs?: number | undefined;
}

/** Where a line runs (see {@link runIsolated}). */
export interface HarnessContext extends HarnessOptions {
  outDir: string;
  baseDir: string;
  cwd: string;
  env?: NodeJS.ProcessEnv | undefined;
  /** The line's set-up, for its sandbox (the verify command runs in it); absent: no sandbox. */
  setup?: ((line: BatchLine) => Promise<{ environment: { sandbox: SandboxSettings | undefined } }>) | undefined;
  /** The batch's interrupt (Ctrl+C); the run and its verify stop on it or on the line's timeout. */
  signal?: AbortSignal | undefined;
}

/** How a line is run: the line (its cwd maybe moved to a workspace) and the signal that stops it. */
export type RunInside = (line: BatchLine, signal: AbortSignal | undefined) => Promise<BatchRecord>;

/** Worktrees in the pool when the batch names no size. */
export const DEFAULT_POOL_SIZE = 8;

/** Characters of verify output kept in the record. */
export const VERIFY_TAIL_CHARS = 2000;

/**
 * Run `run` for `line` inside its workspace, then verify it and keep its patch, all within the
 * line's timeout (its `timeout`, else `lineTimeoutMs`): when that passes, the run and the verify
 * command are stopped and the record is the line's `line_timeout` (lineTimedOut). Never throws.
 */
export async function runIsolated(line: BatchLine, context: HarnessContext, run: RunInside): Promise<BatchRecord> {
  const limitMs = line.timeout ?? context.lineTimeoutMs;
  if (limitMs === undefined) return measured(line, context, run, context.signal);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(abortReason('timeout', `line timeout (${limitMs} ms)`)), limitMs);
  const joined = joinSignals(context.signal, deadline.signal);
  try {
    const record = await measured(line, context, run, joined.signal);
    // An interrupt of the batch is not the line's timeout: that run has no record (a resume runs it).
    return deadline.signal.aborted && !context.signal?.aborted ? lineTimedOut(record, limitMs) : record;
  } finally {
    clearTimeout(timer);
    joined.dispose();
  }
}

/** A record whose line ran out of its wall-clock limit: the run's figures kept, its outcome the line's timeout. */
export function lineTimedOut(record: BatchRecord, limitMs: number): ErrorRecord {
  const {
    finalText: _text,
    result: _result,
    ...rest
  } = record as BatchRecord & { finalText?: string; result?: unknown };
  return {
    ...rest,
    kind: 'error',
    outcome: 'cancelled',
    reason: LINE_TIMEOUT_REASON,
    error: {
      category: 'AGENT_ERROR',
      code: 'MINICODE_E_LINE_TIMEOUT',
      message: `the line did not finish (run, verify and scorers) within its ${limitMs} ms line timeout`,
    },
  };
}

/** The termination reason of a line stopped by its line timeout. */
export const LINE_TIMEOUT_REASON = 'line_timeout';

async function measured(
  line: BatchLine,
  context: HarnessContext,
  run: RunInside,
  signal: AbortSignal | undefined,
): Promise<BatchRecord> {
  const source = line.cwd ? path.resolve(context.baseDir, line.cwd) : context.cwd;
  const verify = line.verify ?? context.verify;
  const mode = context.isolate ?? 'none';
  if (mode === 'none') {
    const record = await run(line, signal);
    if (verify !== undefined && ran(record, signal))
      record.verify = await verifyLine(verify, source, { ...context, signal, sandbox: await sandboxOf(line, context) });
    return record;
  }
  let workspace: Workspace;
  try {
    // A kept workspace is the line's for good: only the others come from (and go back to) the pool.
    const pooled = mode === 'worktree' && !context.keepWorkspaces;
    workspace = await createWorkspace(
      definedOnly({
        mode,
        source,
        id: runKey(line),
        outDir: context.outDir,
        dirty: context.isolateDirty || undefined,
        poolSize: pooled ? (context.poolSize ?? DEFAULT_POOL_SIZE) : undefined,
      }),
    );
  } catch (error) {
    const e =
      error instanceof MinicodeError ? error : new MinicodeError('MINICODE_E_BATCH_ISOLATE', (error as Error).message);
    return setupErrorRecord(line, { category: e.category, code: e.code, message: e.message });
  }
  let record: BatchRecord | undefined;
  let trusted = false;
  try {
    record = await run({ ...line, cwd: workspace.cwd }, signal);
    if (verify !== undefined && ran(record, signal))
      record.verify = await verifyLine(verify, workspace.cwd, {
        ...context,
        signal,
        sandbox: await sandboxOf(line, context),
      });
    const patch = await workspace.diff();
    // One patch per run: a later attempt's name carries its number (`%00` and the attempt, safeId of the run key).
    const rel = path.join('patches', `${safeId(runKey(line))}.diff`);
    fs.mkdirSync(path.join(context.outDir, 'patches'), { recursive: true, mode: 0o700 });
    // Scrubbed like every artefact: a key the run wrote into a file shows as a marker in the patch.
    writeArtefact(path.join(context.outDir, rel), patch);
    record.patch = rel;
    trusted = true;
    return record;
  } catch (error) {
    // The run itself never throws: this is the patch (git, the disk), kept as an error record.
    return setupErrorRecord(line, {
      category: 'INTERNAL_ERROR',
      code: 'MINICODE_E_BATCH_ISOLATE',
      message: `${line.id}: keeping the patch failed: ${(error as Error).message}`,
    });
  } finally {
    if (context.keepWorkspaces && record) record.workspace = workspace.root;
    // A workspace whose patch could not be taken is not reset from a known list of changes: it goes.
    else await (trusted ? workspace.remove() : workspace.discard()).catch(() => undefined);
  }
}

/** A run that got going (not a setup failure or an interrupt) is verified, unless the line's time is up. */
function ran(record: BatchRecord, signal: AbortSignal | undefined): boolean {
  return record.reason !== 'setup' && record.reason !== 'aborted' && !signal?.aborted;
}

/** The sandbox of a line that ran (its set-up succeeded: the run's record says so). */
async function sandboxOf(line: BatchLine, context: HarnessContext): Promise<SandboxSettings | undefined> {
  return context.setup ? (await context.setup(line)).environment.sandbox : undefined;
}

/** Run the verify command in `cwd`; its output's tail, scrubbed of credentials. */
export async function verifyLine(
  command: string,
  cwd: string,
  context: Pick<HarnessContext, 'env' | 'verifyTimeoutMs' | 'signal'> & { sandbox?: SandboxSettings | undefined },
): Promise<LineVerify> {
  const env = context.env ?? process.env;
  const result = await runVerify(command, {
    cwd,
    env,
    timeoutMs: context.verifyTimeoutMs,
    sandbox: context.sandbox,
    signal: context.signal,
  });
  const redact = outputRedactor(env);
  const tail = result.output.length > VERIFY_TAIL_CHARS ? result.output.slice(-VERIFY_TAIL_CHARS) : result.output;
  const out: LineVerify = { ok: result.report.ok, durationMs: Math.round(result.durationMs), outputTail: redact(tail) };
  if (result.exitCode !== undefined) out.exitCode = result.exitCode;
  return out;
}
