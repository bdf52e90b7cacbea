/**
 * `minicode batch`: flags checked, input parsed (bad lines reported with their numbers,
 * duplicates refused), the provider set up once per provider/model pair (a replay cassette is
 * served `by-turn`, so every run gets its own exchanges from one loopback server), one shared
 * store, then a local batch, a queue producer, or a queue worker.
 */
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { PoolRunners } from '../lib/batch/pool-runners.js';
import type { LineSetup } from '../lib/batch/run-line.js';
import type { BatchLine } from '../lib/batch/input.js';
import type { HarnessOptions } from '../lib/batch/harness.js';
import { lockOutputDir, type OutputLock } from '../lib/batch/output-lock.js';
import { DEFAULT_POOL_NICE, MAX_NICE } from '../lib/batch/nice.js';
import {
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BACKOFF_MS,
  MAX_EPOCHS,
  MAX_RETRIES,
  attemptOptions,
  type AttemptOptions,
} from '../lib/batch/attempts.js';
import { MinicodeError } from '../lib/errors.js';
import { displayId } from '../lib/ids.js';
import { batchFailureSummary } from '../lib/render/summary.js';
import type { BatchSummary } from '../lib/batch/batch.js';
import { costText } from '../lib/batch/tally.js';
import type { EventStore } from '../lib/store/index.js';
import {
  directoryFlag,
  openRunStore,
  prepareRun,
  startRunMcp,
  type ExecFlags,
  type RunSetup,
} from '../lib/agent/run-setup.js';
import { deadlineMs, decimalInt } from '../lib/flag-values.js';
import type { McpManager } from '../lib/mcp/index.js';
import { noteClosedStdout, writeErr, writeOut } from './stdout.js';
import { tracingConfig } from '../lib/telemetry/config.js';
import type { BatchTrace } from '../lib/telemetry/batch-trace.js';
import { neutralise } from '../lib/safe-text.js';
import { dropExpected } from '../lib/debug.js';
import { definedOnly } from '../lib/defined-only.js';

/** Flags of `minicode batch`. */
export interface BatchFlags extends ExecFlags {
  out?: string;
  concurrency?: string;
  strict?: boolean;
  retryErrors?: boolean;
  failFast?: boolean;
  batchBudget?: string;
  queue?: string;
  queueName?: string;
  worker?: boolean;
  threads?: string;
  nice?: string;
  verify?: string;
  verifyTimeout?: string;
  verifySoft?: boolean;
  isolate?: string;
  isolateDirty?: boolean;
  keepWorkspaces?: boolean;
  otelEndpoint?: string;
  epochs?: string;
  retries?: string;
  retryBackoff?: string;
  lineTimeout?: string;
}

const err = writeErr;
const out = writeOut;

function usage(message: string, action?: string): MinicodeError {
  return new MinicodeError('MINICODE_E_USAGE', message, action ? { action } : {});
}

const ISOLATE_MODES = ['worktree', 'copy', 'none'] as const;

/** `--isolate`, `--verify` and friends, checked (local batches only: a queue worker runs lines as they are). */
function harnessOf(flags: BatchFlags): HarnessOptions {
  const isolate = flags.isolate ?? 'none';
  if (!(ISOLATE_MODES as readonly string[]).includes(isolate))
    throw usage(`--isolate must be worktree, copy or none, got "${isolate}"`, 'pass --isolate worktree');
  const measured = isolate !== 'none' || flags.verify !== undefined;
  if (measured && flags.queue !== undefined)
    throw usage(
      '--isolate and --verify run on this machine only, not with --queue',
      'drop --queue, or drop --isolate/--verify',
    );
  if (flags.isolateDirty && isolate !== 'worktree') throw usage('--isolate-dirty goes with --isolate worktree');
  if (flags.verify !== undefined && flags.verify.trim() === '')
    throw usage('--verify needs a command', 'pass --verify "npm test"');
  const out: HarnessOptions = { isolate: isolate as HarnessOptions['isolate'] & string };
  if (flags.isolateDirty) out.isolateDirty = true;
  if (flags.keepWorkspaces) out.keepWorkspaces = true;
  if (flags.verify !== undefined) out.verify = flags.verify;
  if (flags.verifyTimeout !== undefined)
    out.verifyTimeoutMs = deadlineMs(flags.verifyTimeout, '--verify-timeout') as number;
  if (flags.lineTimeout !== undefined) {
    if (flags.queue !== undefined)
      throw usage('--line-timeout runs on this machine only, not with --queue', 'drop --queue, or drop --line-timeout');
    out.lineTimeoutMs = deadlineMs(flags.lineTimeout, '--line-timeout') as number;
  }
  return out;
}

/** `--epochs`, `--retries` and `--retry-backoff`, checked: the batch's {@link AttemptOptions}. */
function attemptsOf(flags: BatchFlags): AttemptOptions {
  const epochs = positiveInt(flags.epochs, '--epochs', 1);
  if (epochs > MAX_EPOCHS)
    throw usage(`--epochs must be at most ${MAX_EPOCHS}, got "${flags.epochs}"`, 'pass --epochs 5');
  const retries = flags.retries !== undefined ? nonNegativeInt(flags.retries, '--retries') : DEFAULT_RETRIES;
  if (retries > MAX_RETRIES)
    throw usage(`--retries must be at most ${MAX_RETRIES}, got "${flags.retries}"`, 'pass --retries 2');
  const retryBackoffMs =
    flags.retryBackoff !== undefined ? nonNegativeInt(flags.retryBackoff, '--retry-backoff') : DEFAULT_RETRY_BACKOFF_MS;
  return attemptOptions({ epochs, retries, retryBackoffMs });
}

function nonNegativeInt(value: string, flag: string): number {
  const n = decimalInt(value);
  if (!Number.isInteger(n) || n < 0)
    throw usage(`${flag} must be a whole number in decimal digits, got "${value}"`, `pass ${flag} 2`);
  return n;
}

/** `--nice`: 0 to MAX_NICE (a negative value would need privilege, and would put the runs ahead of the coordinator). */
function niceOf(value: string): number {
  const n = decimalInt(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_NICE)
    throw usage(
      `--nice must be a whole number from 0 to ${MAX_NICE}, got "${value}"`,
      `pass --nice ${DEFAULT_POOL_NICE}, or --nice 0 for the same priority as the coordinator`,
    );
  return n;
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = decimalInt(value);
  if (!Number.isInteger(n) || n < 1)
    throw usage(`${flag} must be a positive integer in decimal digits, got "${value}"`, `pass ${flag} 8`);
  return n;
}

/** Setups per provider/model pair, created on first use and closed at the end. */
function setupCache(flags: BatchFlags): {
  get(line: Pick<BatchLine, 'provider' | 'model' | 'sandbox'>): Promise<RunSetup>;
  close(): Promise<void>;
} {
  const cache = new Map<string, Promise<RunSetup>>();
  return {
    get(line) {
      const key = `${line.provider ?? ''}\u0000${line.model ?? ''}\u0000${line.sandbox ?? ''}`;
      let s = cache.get(key);
      if (!s) {
        const lineFlags: BatchFlags = { ...flags };
        if (line.provider !== undefined) lineFlags.provider = line.provider;
        if (line.model !== undefined) lineFlags.model = line.model;
        if (line.sandbox !== undefined) lineFlags.sandbox = line.sandbox;
        s = prepareRun(lineFlags, process.env, { order: 'by-turn', recordRequests: false });
        cache.set(key, s);
      }
      return s;
    },
    async close() {
      for (const s of cache.values())
        await s.then(
          (x) => x.close(),
          () => undefined,
        );
    },
  };
}

/**
 * A line's setup. Checkpoints only when lines run in place: an isolated line's workspace is
 * thrown away (its changes are in OUT/patches/<id>.diff), and the user's folder is never changed.
 */
function lineSetupOf(setup: RunSetup, mcp: McpManager | undefined, inPlace: boolean): LineSetup {
  return {
    provider: setup.provider,
    limits: setup.limits,
    environment: {
      ...setup.environment,
      toolSource: mcp,
      checkpoints: inPlace ? setup.environment.checkpoints : undefined,
    },
    prompting: setup.prompting,
    folder: setup.folder,
  };
}

/**
 * Resume is by id: an output directory whose summary.json names another input file (two
 * `prompts.jsonl` in different folders share the default `--out`) would have this input's ids
 * taken as done from the other input's records, and its prompts never run. MINICODE_E_USAGE.
 */
function refuseOtherInput(outDir: string, inputPath: string, file: string): void {
  let previous: unknown;
  try {
    previous = (JSON.parse(fs.readFileSync(path.join(outDir, 'summary.json'), 'utf8')) as { input?: unknown }).input;
  } catch (error) {
    // No summary yet (a first run, or one killed before its end): nothing to compare.
    dropExpected('reading the previous summary', error, 'ENOENT');
    return;
  }
  if (typeof previous !== 'string' || previous === inputPath) return;
  throw usage(
    `${outDir} holds the records of another input (${previous}): resuming would take the ids of ${file} found there as done`,
    `pass --out with a directory for ${file}; if ${file} is that input moved, remove ${path.join(outDir, 'summary.json')} to resume from its records`,
  );
}

/** Run the command; returns the exit code. */
export async function batchAction(file: string | undefined, flags: BatchFlags): Promise<number> {
  const setups = setupCache(flags);
  let store: EventStore | undefined;
  let runners: PoolRunners | undefined;
  let lock: OutputLock | undefined;
  let tracer: BatchTrace | undefined;
  const abort = new AbortController();
  // Every concurrent run listens on this one signal.
  setMaxListeners(0, abort.signal);
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' });
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const concurrency = positiveInt(flags.concurrency, '--concurrency', 4);
    let batchBudgetUsd: number | undefined;
    if (flags.batchBudget !== undefined) {
      batchBudgetUsd = Number(flags.batchBudget);
      if (!Number.isFinite(batchBudgetUsd) || batchBudgetUsd < 0)
        throw usage(
          `--batch-budget must be a non-negative number of USD, got "${flags.batchBudget}"`,
          'pass --batch-budget 5',
        );
    }
    const harness = harnessOf(flags);
    const attempts = attemptsOf(flags);
    const nice = flags.nice !== undefined ? niceOf(flags.nice) : undefined;
    const tracing = tracingConfig(process.env, flags.otelEndpoint);
    // A producer runs nothing itself: it needs no provider, store or pool.
    const producer = flags.queue !== undefined && !flags.worker;
    // The default setup first: a missing provider fails the command once, not every line.
    const first = producer ? undefined : await setups.get({});
    if (first) store = await openRunStore(first.storeDir);
    const cwd = first?.environment.cwd ?? path.resolve(flags.cwd ?? process.cwd());
    // The config's MCP servers start once for the whole process and every line shares them.
    const mcp = first && !flags.queue ? await startRunMcp(first) : undefined;
    const inPlace = (harness.isolate ?? 'none') === 'none';
    const setupFor = async (line: BatchLine): Promise<LineSetup> => lineSetupOf(await setups.get(line), mcp, inPlace);

    if (flags.worker) {
      if (!flags.queue) throw usage('--worker needs --queue redis://HOST:PORT');
      if (file) throw usage('--worker takes no FILE: the producer enqueues the lines');
      const { runWorker } = await import('../lib/batch/queue.js');
      const lockMs = Number(process.env.MINICODE_BATCH_LOCK_MS ?? '') || undefined;
      await runWorker({
        queueUrl: flags.queue,
        queueName: flags.queueName || undefined,
        concurrency,
        setup: setupFor,
        store,
        signal: abort.signal,
        lockMs,
        onReady: (name) =>
          err(
            `minicode batch worker ${name}: taking jobs from ${flags.queue} queue ${flags.queueName ?? 'minicode-batch'}, concurrency ${concurrency}\n`,
          ),
      });
      return 0;
    }

    if (!file) throw usage('missing FILE.jsonl', 'pass the input file: minicode batch prompts.jsonl');
    const inputPath = path.resolve(file);
    let text: string;
    try {
      text = fs.readFileSync(inputPath, 'utf8');
    } catch (error) {
      throw new MinicodeError(
        'MINICODE_E_INPUT_UNREADABLE',
        `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const { parseBatchInput } = await import('../lib/batch/input.js');
    const input = parseBatchInput(text);
    for (const p of input.problems)
      err(
        `minicode batch: ${neutralise(file)}:${p.line}: ${p.message} [${p.code}]${flags.strict ? '' : ' (skipped)'}\n`,
      );
    // Allowed, but a misspelt field would otherwise be ignored without a word.
    for (const u of input.unknownKeys) {
      const at = `${u.lines.slice(0, 5).join(', ')}${u.lines.length > 5 ? `, ... (${u.lines.length} lines)` : ''}`;
      err(
        `minicode batch: ${neutralise(file)}: ${neutralise(JSON.stringify(u.key))} (line${u.lines.length === 1 ? '' : 's'} ${at}) is not a line field, ignored${u.field ? `: did you mean ${JSON.stringify(u.field)}?` : ''}\n`,
      );
    }
    if (input.duplicates.length > 0) {
      for (const d of input.duplicates)
        err(`minicode batch: ${file}: duplicate id "${displayId(d.id)}" on lines ${d.lines.join(', ')}\n`);
      throw usage(
        `${input.duplicates.length} duplicate id${input.duplicates.length === 1 ? '' : 's'} in ${file}`,
        'give every line a unique "id"',
      );
    }
    if (flags.strict && input.problems.length > 0)
      throw usage(
        `${input.problems.length} invalid line${input.problems.length === 1 ? '' : 's'} in ${file} (--strict)`,
        'fix the lines above or drop --strict to skip them',
      );

    if (flags.queue !== undefined && input.lines.some((l) => l.expect?.model))
      throw usage(
        'a model scorer (expect.model) grades on this machine only, not with --queue',
        'drop --queue, or drop expect.model from the lines',
      );
    const outDir = directoryFlag(flags.out ?? `minicode-batch-${path.basename(file).replace(/\.[^.]*$/, '')}`, '--out');
    // One batch per output directory (a queue producer too; its workers write no output here).
    lock = lockOutputDir(outDir);
    refuseOtherInput(outDir, inputPath, file);
    const { createProgress } = await import('../lib/batch/progress.js');
    const mode = flags.json ? 'json' : process.stderr.isTTY ? 'tty' : 'plain';
    // Asked of the terminal at each redraw: `columns` changes only once SIGWINCH is handled.
    const stderrColumns = (): number | undefined =>
      (process.stderr.isTTY ? process.stderr.getWindowSize()[0] : undefined) || process.stderr.columns || undefined;
    const progress = createProgress({ mode, write: err, writeOut: out, columns: stderrColumns });
    const common = { inputPath, input, outDir, retryErrors: flags.retryErrors === true, progress, attempts };
    const baseDir = path.dirname(inputPath);
    let summary: Awaited<ReturnType<typeof import('../lib/batch/batch.js')['runLocalBatch']>>;
    if (flags.queue) {
      const { runProducer } = await import('../lib/batch/queue.js');
      summary = await runProducer({
        ...common,
        queueUrl: flags.queue,
        queueName: flags.queueName || undefined,
        baseDir,
        cwd,
        signal: abort.signal,
      });
    } else {
      const { runLocalBatch } = await import('../lib/batch/batch.js');
      if (tracing) {
        // Loaded only when tracing is on: a batch without it pays nothing.
        const { startBatchTrace } = await import('../lib/telemetry/batch-trace.js');
        tracer = startBatchTrace(tracing, {
          env: process.env,
          attributes: { 'minicode.batch.input': path.basename(inputPath), 'minicode.batch.lines': input.lines.length },
          onWarning: (message) => err(`minicode batch: ${message}\n`),
        });
      }
      let threadCount =
        flags.threads !== undefined
          ? nonNegativeInt(flags.threads, '--threads')
          : input.lines.length >= 16
            ? undefined
            : 0;
      if (mcp && threadCount !== 0) {
        // MCP servers live in this process; pool threads could not reach them.
        if (flags.threads !== undefined)
          err(
            'minicode batch: MCP servers are configured: the runs share them on the main thread (--threads ignored)\n',
          );
        threadCount = 0;
      }
      if (threadCount !== 0) {
        const [{ configurePool, defaultMaxThreads }, { createPoolRunners, tasksPerThreadFor }] = await Promise.all([
          import('../lib/control/pool.js'),
          import('../lib/batch/pool-runners.js'),
        ]);
        const maxThreads = threadCount ?? defaultMaxThreads();
        configurePool({ maxThreads, concurrentTasksPerWorker: tasksPerThreadFor(concurrency, maxThreads) });
        runners = createPoolRunners({ storeDir: first?.storeDir, nice });
      }
      summary = await runLocalBatch({
        ...common,
        concurrency,
        failFast: flags.failFast === true,
        batchBudgetUsd,
        setup: setupFor,
        store,
        baseDir,
        cwd,
        signal: abort.signal,
        runners,
        harness,
        tracer,
        defaults: { provider: flags.provider || undefined, model: flags.model || undefined },
      });
    }
    if (tracer) {
      const traced = tracer;
      tracer = undefined;
      await traced.finish({
        ok: summary.ok,
        attributes: {
          'minicode.batch.completed': summary.completed,
          'minicode.batch.failed': summary.failed,
          'minicode.batch.pending': summary.pending,
        },
      });
    }
    if (!flags.json) err(`minicode batch: ${closingLine(summary)}; ${outDir}\n`);
    noteClosedStdout(`${outDir}/results.jsonl, errors.jsonl and summary.json`);
    if (abort.signal.aborted) return 130;
    // A line whose verify failed is a failed evaluation: exit 1 unless --verify-soft says it is only reported.
    const verifyFailed = (summary.verify?.failed ?? 0) > 0 && flags.verifySoft !== true;
    return summary.ok && !verifyFailed ? 0 : 1;
  } catch (error) {
    if (!(error instanceof MinicodeError)) throw error;
    if (flags.json)
      out(
        `${JSON.stringify(batchFailureSummary(definedOnly({ category: error.category, code: error.code, message: error.message, action: error.action || undefined })))}\n`,
      );
    err(`minicode batch: ${error.message}${error.action ? `\n  ${error.action}` : ''}\n`);
    return error.exitCode;
  } finally {
    // Spans are flushed before exit, also when the batch stopped on an error.
    await tracer?.finish({ ok: false, attributes: {} });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runners?.close();
    await store?.close();
    await setups.close();
    lock?.release();
  }
}

/**
 * The console's closing line: `20 completed, 14 failed verify, 0 failed, 0 pending of 20, cost
 * unknown (20 runs)`. Verify results are counted where a verify ran; an unknown cost is said so.
 */
export function closingLine(summary: BatchSummary): string {
  const parts = [`${summary.completed} completed`];
  if (summary.verify) parts.push(`${summary.verify.failed} failed verify`);
  parts.push(`${summary.failed} failed`, `${summary.pending} pending of ${summary.total}`);
  if (summary.invalidLines.count) parts.push(`${summary.invalidLines.count} invalid lines`);
  const e = summary.evaluation;
  if (e.epochs > 1) {
    const k = String(e.epochs);
    parts.push(
      `${e.passed} of ${e.runs} runs passed, pass@1 ${e.passAtK['1']?.toFixed(3) ?? '–'}, pass@${k} ${e.passAtK[k]?.toFixed(3) ?? '–'}`,
    );
  }
  if (summary.costKnownRuns + summary.costUnknownRuns > 0)
    parts.push(costText(summary.costUsd, summary.costKnownRuns, summary.costUnknownRuns));
  return `${parts.join(', ')}${summary.stoppedBy ? ` (stopped: ${summary.stoppedBy})` : ''}`;
}
