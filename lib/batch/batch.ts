/**
 * A batch from start to summary, on one machine or through a queue. The shared part is here:
 * open the output directory (resume: ids with a record are finished), pick the lines still to
 * run (`--retry-errors`: only the ids in errors.jsonl, whose old records move to
 * superseded.jsonl), accept records as they arrive (append, tally, progress), and write
 * `summary.json`. `runLocalBatch` schedules runs in this process with adaptive concurrency;
 * the queue producer (`queue.ts`) enqueues them instead and accepts what workers return.
 */
import { BATCH_SUMMARY_SCHEMA } from '../events/schema-name.js';
import type { BatchLine, LineProblem, ParsedInput } from './input.js';
import { openOutputDir, type OutputDir } from './output.js';
import type { ProgressReporter, ProgressSnapshot } from './progress.js';
import type { BatchRecord } from './records.js';
import { addRecord, createTally, type GradingTally, type Tally } from './tally.js';
import { createConcurrencyController, type ConcurrencySnapshot } from './concurrency.js';
import { createScheduler } from './scheduler.js';
import { runLine, type LineContext, type LineSetup, type RunSignals } from './run-line.js';
import type { PoolRunners } from './pool-runners.js';
import { plainLineSetup, type PlainLineSetup } from './pool-task.js';
import type { LatencySummary } from './latency.js';
import { lineTimedOut, runIsolated, type HarnessOptions } from './harness.js';
import type { GraderContext } from './grader.js';
import { abortReason, joinSignals } from '../control/termination.js';
import { withQueue } from './timing.js';
import { recordTokens, throughputSeries, type FinishedPoint, type ThroughputSeries } from './throughput.js';
import { endWorkspaces, removeStaleWorkspaces } from './workspace.js';
import type { BatchTrace } from '../telemetry/batch-trace.js';
import type { EventStore } from '../store/index.js';
import { recordLinks, type RecordLinks } from './record-links.js';
import { reportDropped } from '../debug.js';
import { definedOnly } from '../defined-only.js';
import { attemptOptions, expandAttempts, runKey, type AttemptOptions } from './attempts.js';
import { retriedFailure, retryDue, retryWaitMs } from './retries.js';
import { scoreRecord } from './scorers.js';
import { openRetryJournal } from './retry-journal.js';
import { evaluate, passRule, type EvaluationSummary } from './evaluation.js';

/** Options every batch shares. */
export interface BatchCommon {
  inputPath: string;
  input: ParsedInput;
  outDir: string;
  retryErrors?: boolean | undefined;
  progress: ProgressReporter;
  /** Default `Date.now`. */
  clock?: (() => number) | undefined;
  /** fsync every N records; default 64. */
  syncEvery?: number | undefined;
  /** Epochs and retries (attempts.ts); default one run per line, {@link DEFAULT_RETRIES} retries. */
  attempts?: Partial<AttemptOptions> | undefined;
}

/** The machine summary (`summary.json`, and the last `--json` line). */
export interface BatchSummary {
  schema: typeof BATCH_SUMMARY_SCHEMA;
  ok: boolean;
  mode: 'local' | 'queue';
  input: string;
  outDir: string;
  /** Runs the batch makes: each valid id once per epoch (its attempts). */
  total: number;
  /** Valid ids in the input. */
  lines: number;
  completed: number;
  failed: number;
  /** Valid ids with no record yet (stopped early, interrupted). */
  pending: number;
  /** Finished by an earlier invocation (resume). */
  resumed: number;
  /** Of `resumed`: records the output had lost, taken from the store (the run was not made again). */
  restored: number;
  /** Finished by this invocation. */
  ranNow: number;
  /** Error records moved to superseded.jsonl by --retry-errors. */
  superseded: number;
  invalidLines: { count: number; lines: LineProblem[] };
  rates: { completion: number; failure: number; runsPerSecond: number };
  usage: Tally['usage'];
  costUsd: number;
  /** Runs whose cost is unknown (then costUsd is a lower bound). */
  costUnknownRuns: number;
  /** Runs whose cost is known (costUsd sums theirs). */
  costKnownRuns: number;
  /** Share of prompt tokens read from cache over the runs that reported it; absent when none did. */
  cacheHitRatio?: number;
  /** Runs with usage but no cache fields (not counted in the ratio). */
  cacheUnknownRuns: number;
  errorsByCode: Record<string, number>;
  backoffs: {
    rateLimited: number;
    signals: number;
    concurrencyDecreases: number;
    lowestConcurrency: number;
    maxConcurrency: number;
  };
  stoppedBy?: string;
  repairedLines: number;
  durationMs: number;
  /** First-token and total latency percentiles (nearest-rank), overall and per provider/model. */
  latency: LatencySummary;
  /** Lines whose verify command ran: passed, failed, passed / ran (absent when none ran). */
  verify?: { passed: number; failed: number; rate: number };
  /** Records this invocation finished per interval (completed, failed, tokens), on this process's clock. */
  throughput: ThroughputSeries;
  /** Pass rates per line and overall, pass@k, the spread between epochs (lib/batch/evaluation.ts). */
  evaluation: EvaluationSummary;
  /** The model scorers' grader runs, their cost and usage apart from the agents' (absent when no line had one). */
  grading?: GradingTally;
}

/** A batch in progress. */
export interface BatchContext {
  /** Every run of the batch: each line once per epoch (`attempt` set). */
  readonly lines: BatchLine[];
  /** Runs to make in this invocation. */
  readonly pending: BatchLine[];
  readonly output: OutputDir;
  readonly tally: Tally;
  readonly startedAt: number;
  readonly superseded: number;
  /** The runs whose error records --retry-errors moved to superseded.jsonl (by run key). */
  readonly supersededKeys: ReadonlySet<string>;
  readonly resumed: number;
  /** Of `resumed`: records taken from the store. */
  readonly restored: number;
  finishedNow: number;
  /** Keep a finished run's record in the store (when the batch has one) before it is accepted. */
  keep(record: BatchRecord): Promise<void>;
  /** Append and account a record; false for a second record of one id (ignored). */
  accept(record: BatchRecord): boolean;
  snapshot(running: number, concurrency?: ConcurrencySnapshot): ProgressSnapshot;
  /** Write summary.json, close the output (its queued records written), return the summary. */
  finish(extra: {
    mode: 'local' | 'queue';
    running?: number;
    concurrency?: ConcurrencySnapshot;
    stoppedBy?: string;
  }): Promise<BatchSummary>;
}

/**
 * Open the output and decide what runs now. With `store`, every record is kept there too, and a
 * line whose record the output lacks but the store holds (the output's disk filled after the run
 * finished) takes it from there instead of running again; under `--retry-errors` a stored error
 * record runs again.
 */
export function openBatch(options: BatchCommon, store?: EventStore): BatchContext {
  const clock = options.clock ?? Date.now;
  const output = openOutputDir(options.outDir, options.syncEvery !== undefined ? { syncEvery: options.syncEvery } : {});
  const lines = expandAttempts(options.input.lines, attemptOptions(options.attempts).epochs);
  const valid = new Set(lines.map(runKey));
  // The records of this batch's runs, for the evaluation written with the summary.
  const evidence = new Map<string, BatchRecord>();
  let superseded = 0;
  let supersededKeys: ReadonlySet<string> = new Set();
  if (options.retryErrors) {
    const keys = new Set(
      output
        .errorRecords()
        .map(runKey)
        .filter((key) => valid.has(key)),
    );
    superseded = output.supersede(keys);
    supersededKeys = keys;
  }
  const tally = createTally();
  const count = (record: BatchRecord): void => {
    addRecord(tally, record);
    evidence.set(runKey(record), record);
  };
  for (const record of output.existingRecords()) if (valid.has(runKey(record))) count(record);
  const links: RecordLinks | undefined = store ? recordLinks(store, output.batchId) : undefined;
  let restored = 0;
  if (links) {
    for (const line of lines) {
      if (output.resume.finished.has(runKey(line))) continue;
      const record = links.get(line);
      if (!record || (record.kind === 'error' && options.retryErrors)) continue;
      output.append(record);
      count(record);
      restored++;
    }
  }
  const resumed = [...output.resume.finished.keys()].filter((key) => valid.has(key)).length;
  const pending = lines.filter((l) => !output.resume.finished.has(runKey(l)));
  const startedAt = clock();
  // Three numbers per record: the throughput series is bucketed once, at the end.
  const finished: FinishedPoint[] = [];
  const ctx: BatchContext = {
    lines,
    pending,
    output,
    tally,
    startedAt,
    superseded,
    supersededKeys,
    resumed,
    restored,
    finishedNow: 0,
    async keep(record) {
      record.passed = passRule(record);
      // A store that cannot take it (its own disk full) leaves the output's copy, as without a store.
      await links?.put(record).catch((error: unknown) => reportDropped('keeping a batch record in the store', error));
    },
    accept(record) {
      record.passed ??= passRule(record);
      if (!valid.has(runKey(record)) || !output.append(record)) return false;
      count(record);
      finished.push({ atMs: clock() - startedAt, ok: record.kind === 'result', tokens: recordTokens(record.usage) });
      ctx.finishedNow++;
      options.progress.record(record);
      return true;
    },
    snapshot(running, concurrency) {
      return {
        total: lines.length,
        completed: tally.completed,
        failed: tally.failed,
        running,
        finishedNow: ctx.finishedNow,
        elapsedMs: clock() - startedAt,
        tokens: tally.usage.totalTokens,
        costUsd: tally.costUsd,
        costKnown: tally.costKnown,
        costUnknown: tally.costUnknown,
        concurrency: concurrency?.limit ?? 0,
        maxConcurrency: concurrency?.max ?? 0,
        paused: concurrency ? concurrency.pausedUntil > clock() : false,
      };
    },
    async finish(extra) {
      await output.close();
      const durationMs = clock() - startedAt;
      const total = lines.length;
      const problems = options.input.problems;
      const summary: BatchSummary = definedOnly({
        schema: BATCH_SUMMARY_SCHEMA,
        ok: tally.failed === 0 && tally.completed === total,
        mode: extra.mode,
        input: options.inputPath,
        outDir: options.outDir,
        total,
        lines: options.input.lines.length,
        completed: tally.completed,
        failed: tally.failed,
        pending: total - tally.completed - tally.failed,
        resumed,
        restored,
        ranNow: ctx.finishedNow,
        superseded,
        invalidLines: { count: problems.length, lines: problems.slice(0, 100) },
        rates: {
          completion: total ? tally.completed / total : 1,
          failure: total ? tally.failed / total : 0,
          runsPerSecond: durationMs > 0 ? Number(((ctx.finishedNow * 1000) / durationMs).toFixed(3)) : 0,
        },
        usage: tally.usage,
        costUsd: Number(tally.costUsd.toFixed(6)),
        costUnknownRuns: tally.costUnknown,
        costKnownRuns: tally.costKnown,
        cacheHitRatio: tally.cache.prompt > 0 ? Number((tally.cache.read / tally.cache.prompt).toFixed(3)) : undefined,
        cacheUnknownRuns: tally.cacheUnknown,
        errorsByCode: tally.errorsByCode,
        backoffs: {
          rateLimited: tally.backoffs,
          signals: extra.concurrency?.signals ?? tally.backoffs,
          concurrencyDecreases: extra.concurrency?.decreases ?? 0,
          lowestConcurrency: extra.concurrency?.lowest ?? 0,
          maxConcurrency: extra.concurrency?.max ?? 0,
        },
        repairedLines: output.resume.repaired,
        durationMs,
        latency: tally.latency.summary(),
        throughput: throughputSeries(finished, durationMs),
        evaluation: evaluate(
          [...evidence.values()],
          options.input.lines.map((l) => l.id),
        ),
      });
      const verified = tally.verifyPassed + tally.verifyFailed;
      if (verified > 0)
        summary.verify = {
          passed: tally.verifyPassed,
          failed: tally.verifyFailed,
          rate: Number((tally.verifyPassed / verified).toFixed(4)),
        };
      if (tally.grading.graded > 0)
        summary.grading = { ...tally.grading, costUsd: Number(tally.grading.costUsd.toFixed(6)) };
      if (extra.stoppedBy !== undefined) summary.stoppedBy = extra.stoppedBy;
      output.writeSummary(summary);
      options.progress.finish(ctx.snapshot(extra.running ?? 0, extra.concurrency), summary);
      return summary;
    },
  };
  return ctx;
}

/** Options of {@link runLocalBatch}. */
export interface LocalBatchOptions extends BatchCommon, LineContext {
  concurrency: number;
  failFast?: boolean | undefined;
  /** Stop scheduling once the batch's summed cost passes this (USD). */
  batchBudgetUsd?: number | undefined;
  /** Run the lines on the worker pool (the coordinator keeps only scheduling and records); default: in this thread. */
  runners?: PoolRunners | undefined;
  /** Isolation and verification of each line (default: none, in place, no verify). */
  harness?: HarnessOptions | undefined;
  /** Provider and model of a line that names none (stamped on records for the latency groups). */
  defaults?: { provider?: string | undefined; model?: string | undefined } | undefined;
  /** OpenTelemetry: the batch's trace (each run's spans go to it); default off. */
  tracer?: BatchTrace | undefined;
}

/**
 * One line, with its isolation and verify, on the pool, or here when its setup cannot cross
 * threads (a recording HTTP client) or fails. On the pool the workspace's git commands and the verify
 * command are spawned by the pool thread: spawning forks the whole process, which blocks the
 * calling thread's loop for as long as the kernel copies the page tables (tens of ms and more
 * for a process of a few hundred MB on a busy machine), so the coordinator must not do it for
 * every line.
 */
async function execute(line: BatchLine, options: LocalBatchOptions, signals: RunSignals): Promise<BatchRecord> {
  const tracer = options.tracer;
  const trace = tracer ? { parent: tracer.parent, captureContent: tracer.captureContent } : undefined;
  if (tracer) signals = { ...signals, onSpans: (spans) => tracer.addSpans(spans) };
  // The pool of worktrees is as large as the runs that can be in flight at once.
  const harnessOptions: HarnessOptions = {
    ...options.harness,
    poolSize: options.harness?.poolSize ?? options.concurrency,
  };
  const harness = {
    ...harnessOptions,
    outDir: options.outDir,
    baseDir: options.baseDir,
    cwd: options.cwd,
    env: options.env,
    setup: options.setup,
    signal: options.signal,
  };
  // A line with a workspace, a verify command or a line timeout keeps its slot to its record: the
  // workspace (of a pool sized to the concurrency) and the verify run come after its events are
  // settled, and the timeout covers them.
  const measured =
    (options.harness?.isolate ?? 'none') !== 'none' ||
    options.harness?.verify !== undefined ||
    line.verify !== undefined ||
    options.harness?.lineTimeoutMs !== undefined ||
    line.timeout !== undefined;
  if (measured && signals.onSettled) {
    const { onSettled: _, ...rest } = signals;
    signals = rest;
  }
  const inProcess = (): Promise<BatchRecord> =>
    runIsolated(line, harness, (isolated, signal) =>
      runLine({
        line: isolated,
        trace,
        setup: options.setup,
        baseDir: options.baseDir,
        cwd: options.cwd,
        store: options.store,
        signal,
        env: options.env,
        ...signals,
      }),
    );
  if (!options.runners || line.agent) return inProcess();
  let setup: PlainLineSetup | undefined;
  try {
    setup = plainLineSetup(await options.setup(line));
  } catch {
    return inProcess(); // the same failure, recorded the same way
  }
  if (!setup) return inProcess();
  return options.runners.run(
    line,
    setup,
    definedOnly({
      baseDir: options.baseDir,
      cwd: options.cwd,
      trace,
      harness: measured ? { ...harnessOptions, outDir: options.outDir } : undefined,
    }),
    signals,
  );
}

/** The provider/model a record ran with: the line's, else the command's, else its setup's. */
async function stamp(record: BatchRecord, line: BatchLine, options: LocalBatchOptions): Promise<void> {
  if (line.agent) {
    if (line.model) record.model = line.model;
    return;
  }
  // Resolved once per provider/model pair by the command; a failed setup has no model to name.
  const setup = await options.setup(line).catch(() => undefined);
  const provider = line.provider ?? options.defaults?.provider ?? setup?.provider.format;
  const model = line.model ?? setup?.provider.model ?? options.defaults?.model;
  if (provider) record.provider = provider;
  if (model) record.model = model;
}

/**
 * A finished run with its line's scorers. The `model` scorer's grader runs here, on this thread,
 * through the batch's set-up cache and store, within what is left of the line's timeout: a
 * grading that outlasts it makes the record the line's `line_timeout`, as a slow verify does.
 */
async function scoreLine(
  record: BatchRecord,
  line: BatchLine,
  options: LocalBatchOptions,
  slotAt: number,
  clock: () => number,
): Promise<BatchRecord> {
  const expect = line.expect!;
  const limitMs = line.timeout ?? options.harness?.lineTimeoutMs;
  if (!expect.model || limitMs === undefined || record.kind !== 'result') {
    record.scores = await scoreRecord(record, expect, {
      task: line.prompt,
      grader: graderOf(line, options, options.signal),
    });
    return record;
  }
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(abortReason('timeout', `line timeout (${limitMs} ms)`)),
    Math.max(0, limitMs - (clock() - slotAt)),
  );
  const joined = joinSignals(options.signal, deadline.signal);
  try {
    record.scores = await scoreRecord(record, expect, {
      task: line.prompt,
      grader: graderOf(line, options, joined.signal),
    });
  } finally {
    clearTimeout(timer);
    joined.dispose();
  }
  return deadline.signal.aborted && !options.signal?.aborted ? lineTimedOut(record, limitMs) : record;
}

/** A grader stopped by the batch's interrupt left a scorer error that a resume grades again. */
const gradingStopped = (record: BatchRecord): boolean =>
  record.scores?.some((s) => s.scorer === 'model' && s.error !== undefined) ?? false;

/** The model grader's context for a line: the batch's set-up of the grader's provider/model, its store and environment. */
function graderOf(line: BatchLine, options: LocalBatchOptions, signal: AbortSignal | undefined): GraderContext {
  return {
    setup: (pick) => options.setup(definedOnly({ id: line.id, line: line.line, prompt: line.prompt, ...pick })),
    defaults: options.defaults,
    store: options.store,
    signal,
    env: options.env,
  };
}

/** Run a batch in this process (the runs on the pool when given). */
export async function runLocalBatch(options: LocalBatchOptions): Promise<BatchSummary> {
  const clock = options.clock ?? Date.now;
  const ctx = openBatch(options, options.store);
  // A killed batch's workspaces of unfinished lines go before anything runs again.
  await removeStaleWorkspaces(options.outDir, (id) => ctx.output.resume.finished.has(id));
  const controller = createConcurrencyController({ max: options.concurrency });
  const attempts = attemptOptions(options.attempts);
  // Transient failures of runs still being retried (the record that ends the run keeps them),
  // on disk so that a batch killed while a run waits keeps them for the resume.
  const journal = openRetryJournal(options.outDir);
  journal.forget(ctx.supersededKeys);
  let quota: string | undefined;
  const scheduler = createScheduler({
    items: ctx.pending,
    controller,
    clock,
    shouldStop: () => {
      if (options.signal?.aborted) return 'interrupted';
      if (quota !== undefined) return 'usage-quota';
      if (options.batchBudgetUsd !== undefined && ctx.tally.costUsd >= options.batchBudgetUsd) return 'batch-budget';
      return undefined;
    },
    run: async (line, settled) => {
      let clean = true;
      let handedOn = false;
      const slotAt = clock();
      const record = await execute(
        line,
        options,
        definedOnly<RunSignals>({
          // Under --batch-budget the next start waits for this run's record: its cost decides.
          onSettled:
            options.batchBudgetUsd === undefined
              ? () => {
                  handedOn = true;
                  settled();
                }
              : undefined,
          onRateLimit: (retryAfterMs) => {
            clean = false;
            controller.onRateLimit(clock(), retryAfterMs);
          },
          onQuota: (message) => {
            if (options.failFast) quota ??= message ?? 'usage quota exhausted';
          },
        }),
      );
      await stamp(record, line, options);
      // The pool's queue wait is in the record already (the pool thread measured it).
      if (record.timing) record.timing = withQueue(record.timing, slotAt - ctx.startedAt, clock() - ctx.startedAt);
      const tries = journal.tries(runKey(line));
      if (retryDue(record, tries.length, attempts.retries, options.signal)) {
        // Not a result: the run goes back to the scheduler after its wait, and this try is kept for its record.
        const wait = retryWaitMs(tries.length + 1, attempts.retryBackoffMs);
        journal.add(line, retriedFailure(record, wait));
        scheduler.requeue(line, clock() + wait);
        controller.onFinished(clean);
        return;
      }
      if (tries.length > 0) record.retries = tries;
      const scored = line.expect ? await scoreLine(record, line, options, slotAt, clock) : record;
      // An interrupted run is not a finished one (nor is a run whose grading was interrupted):
      // leave its id for the resume. A finished one is kept in the store first: if the output
      // cannot take it, a resume takes it from there.
      if (!(options.signal?.aborted && (scored.reason === 'aborted' || gradingStopped(scored)))) {
        await ctx.keep(scored);
        ctx.accept(scored);
      }
      controller.onFinished(clean);
      // A run that handed its slot on is no longer among the running ones.
      options.progress.update(ctx.snapshot(scheduler.running - (handedOn ? 0 : 1), controller.snapshot()));
    },
  });
  // Kept ref'd: it also holds the process open while every run is waiting (a backoff).
  const ticker = setInterval(
    () => options.progress.update(ctx.snapshot(scheduler.running, controller.snapshot())),
    250,
  );
  const onAbort = (): void => {
    scheduler.stop('interrupted');
    options.runners?.abort();
  };
  // An interrupt during the set-up has already fired its event.
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let stoppedBy: string | undefined;
  try {
    ({ stoppedBy } = await scheduler.done);
  } finally {
    clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
  }
  await endWorkspaces(options.outDir);
  return await ctx.finish(definedOnly({ mode: 'local', concurrency: controller.snapshot(), stoppedBy }));
}
