/**
 * One batch line as one stored session: minicode's own agent loop through `runPrompt`, or a
 * native agent CLI (`agent` on the line) through `superviseAgent` and the same session
 * pipeline. The run's events are watched for what the batch scheduler needs (429/529 signals
 * with their Retry-After, an exhausted usage quota) and the settled run becomes one record.
 * Never throws: a run that cannot start is an error record too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NO_PERSON } from '../agent/interaction.js';
import type { ProviderSettings } from '../agent/provider-settings.js';
import type { RunLimits } from '../agent/run-limits.js';
import type { ToolEnvironment } from '../agent/tool-environment.js';
import type { ImageAttachment } from '../images/load.js';
import type { PromptRecipe, PromptSettings } from '../agent/prompt-settings.js';
import type { OutputSchema } from '../output-schema/compile.js';
import { inFolder, type FolderRecipe } from '../agent/folder-setup.js';
import { terminationCode } from '../control/termination.js';
import type { WorkspaceCheckpoints } from '../checkpoints/turn.js';
import type { EventDraft, OutputEvent } from '../events/index.js';
import { MinicodeError } from '../errors.js';
import type { EventStore } from '../store/index.js';
import type { BatchLine } from './input.js';
import { setupErrorRecord, type BatchRecord, type ErrorRecord, type ResultRecord } from './records.js';
import { createTimingWatch, outputTokensPerSecond, type RunTiming } from './timing.js';
import type { SpanData, TraceParent } from '../telemetry/span.js';
import type { RunSpans } from '../telemetry/run-spans.js';
import type { WorkflowOptions } from '../native/workflow.js';
import { definedOnly } from '../defined-only.js';
import { classifyProviderError } from '../providers/common/errors.js';

/**
 * What a line needs from the command's setup (resolved once per provider/model pair): the
 * groups of `RunSetup`. The environment's `cwd` and `env` are replaced by the line's own (its
 * `cwd`, the batch's environment variables); its `toolSource` (MCP tools shared by every line
 * of the process) and the provider's recording `http` client keep a run on the main thread (not cloneable);
 * its checkpoints let `minicode undo --session` take the line's changes back.
 */
export interface LineSetup {
  provider: ProviderSettings;
  limits: RunLimits;
  environment: ToolEnvironment;
  /** The batch's prompt settings; each line's are made from them for its own folder and fields. */
  prompting: PromptSettings;
  /** How a line with its own `cwd` finds that folder's hooks, commands, skills and agents; undefined: the set-up's apply everywhere. */
  folder?: FolderRecipe | undefined;
}

/** Signals a run sends the scheduler while it runs. */
export interface RunSignals {
  /** A 429/529 answer (`limit.reached` rate-limit/overloaded), with the provider's wait. */
  onRateLimit?: ((retryAfterMs: number | undefined) => void) | undefined;
  /** A `limit.reached` of kind usage-quota. */
  onQuota?: ((message: string | undefined) => void) | undefined;
  /** The run's spans, once it settled (only with `trace`). */
  onSpans?: ((spans: SpanData[]) => void) | undefined;
  /**
   * The run's events are settled and only the store's acknowledgement is pending: the scheduler
   * may start the next line (the record still waits for the acknowledgement).
   */
  onSettled?: (() => void) | undefined;
}

/** Tracing of a line's run: its spans hang under `parent` (the batch span). Plain data: crosses to pool threads. */
export interface LineTrace {
  parent: TraceParent;
  /** Prompt and tool content on spans (opt-in). */
  captureContent: boolean;
}

/** What every line of a local batch runs with (see {@link runLine} and `runLocalBatch`). */
export interface LineContext {
  /** Setup for the line's provider/model (a rejected promise becomes an error record). */
  setup: (line: BatchLine) => Promise<LineSetup>;
  store?: EventStore | undefined;
  /** Directory relative `cwd`s are resolved against (the input file's directory). */
  baseDir: string;
  /** Default cwd of a line without one. */
  cwd: string;
  signal?: AbortSignal | undefined;
  /** The environment variables of every line's run; default a snapshot of `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Trace each run (OpenTelemetry); default off. */
  trace?: LineTrace | undefined;
}

/** Options of {@link runLine}. */
export interface RunLineOptions extends RunSignals, LineContext {
  line: BatchLine;
  /** Worker name to stamp on the record (distributed mode). */
  worker?: string | undefined;
}

let envSnapshot: NodeJS.ProcessEnv | undefined;
/**
 * A plain copy of `process.env`, taken once: every run builds its scrubber from the
 * environment's credential values, and enumerating `process.env` (a native interceptor) per
 * run is a cost thousands of runs notice.
 */
function processEnv(): NodeJS.ProcessEnv {
  envSnapshot ??= { ...process.env };
  return envSnapshot;
}

/** Watch a run's events for the scheduler and count its backoffs. */
function watcher(
  options: RunSignals,
  spans?: RunSpans,
): { onEvent: (event: OutputEvent) => void; backoffs: () => number; finalText: () => string; timing: () => RunTiming } {
  let backoffs = 0;
  let finalText = '';
  const timing = createTimingWatch();
  return {
    onEvent(event) {
      timing.onEvent(event);
      spans?.onEvent(event);
      if (event.type === 'limit.reached') {
        const p = event.payload as { kind: string; retryAfterMs?: number; message?: string };
        if (p.kind === 'rate-limit' || p.kind === 'overloaded') {
          backoffs++;
          options.onRateLimit?.(p.retryAfterMs);
        } else if (p.kind === 'usage-quota') options.onQuota?.(p.message);
      } else if (event.type === 'assistant.message.completed') {
        finalText = (event.payload as { text: string }).text;
      }
    },
    backoffs: () => backoffs,
    finalText: () => finalText,
    timing: () => timing.timing(),
  };
}

function base<T extends BatchRecord>(
  record: T,
  line: BatchLine,
  extra: { worker?: string; backoffs: number; timing?: RunTiming },
): T {
  if (line.attempt !== undefined) record.attempt = line.attempt;
  if (line.metadata) record.metadata = line.metadata;
  if (extra.timing) {
    record.timing = extra.timing;
    const tps = outputTokensPerSecond(record.usage?.outputTokens, extra.timing.modelMs);
    if (tps !== undefined) record.outputTokensPerSecond = tps;
  }
  if (line.agent) record.agent = line.agent;
  if (extra.worker) record.worker = extra.worker;
  if (extra.backoffs > 0) record.backoffs = extra.backoffs;
  return record;
}

/** The run's spans, when the batch traces (the tracing modules load only then). */
async function startSpans(options: RunLineOptions): Promise<RunSpans | undefined> {
  const { line, trace } = options;
  if (!trace) return undefined;
  const { createRunSpans } = await import('../telemetry/run-spans.js');
  // The setup is resolved once per provider/model pair: this only reads it.
  const setup = line.agent ? undefined : await options.setup(line).catch(() => undefined);
  const provider = line.agent ?? setup?.provider.format;
  const model = line.model ?? setup?.provider.model;
  return createRunSpans(
    definedOnly({
      parent: trace.parent,
      agentName: line.agent ?? 'minicode',
      provider: provider || undefined,
      model: model || undefined,
      captureContent: trace.captureContent,
      prompt: line.prompt,
      attributes: { 'minicode.batch.line.id': line.id, 'minicode.batch.line.number': line.line },
    }),
  );
}

/** Run one line to its record (and its spans to `onSpans`, when traced). */
export async function runLine(options: RunLineOptions): Promise<BatchRecord> {
  const spans = await startSpans(options);
  const record = await runTraced(options, spans);
  if (spans)
    options.onSpans?.(spans.finish(record.kind === 'result' ? { ok: true } : { ok: false, error: record.error.code }));
  return record;
}

async function runTraced(options: RunLineOptions, spans: RunSpans | undefined): Promise<BatchRecord> {
  const { line } = options;
  const cwd = line.cwd ? path.resolve(options.baseDir, line.cwd) : options.cwd;
  const watch = watcher(options, spans);
  const env = options.env ?? processEnv();
  options = { ...options, env };
  try {
    checkLineCwd(line, cwd);
    // A native agent that reads TRACEPARENT (Claude Code does) continues the line's trace.
    if (line.agent)
      return await runNativeLine(
        spans ? { ...options, env: { ...options.env, TRACEPARENT: spans.traceparent } } : options,
        cwd,
        watch,
      );
    const setup = await options.setup(line);
    const { limits } = setup;
    // A line in another folder than the set-up's runs with that folder's extensions and instructions.
    const here = await inFolder(setup, cwd, { env, ...(await lineRecipe(setup.prompting, line)) });
    const prompting = here.prompting;
    const images = line.images ? await lineImages(line.images, cwd) : undefined;
    const { runPrompt } = await import('../agent/run-prompt.js');
    const run = await runPrompt({
      origin: 'batch',
      prompt: line.prompt,
      images,
      provider: line.reasoning
        ? { ...setup.provider, tuning: { ...setup.provider.tuning, reasoning: line.reasoning } }
        : setup.provider,
      limits: {
        ...limits,
        budget:
          line.budget !== undefined ? { limitUsd: line.budget, strict: limits.budget?.strict ?? false } : limits.budget,
        maxSteps: line.maxSteps ?? limits.maxSteps,
      },
      environment: here.environment,
      prompting,
      interaction: NO_PERSON,
      onEvent: watch.onEvent,
      store: options.store,
      signal: options.signal,
      onSettled: options.onSettled,
    });
    const r = run.result;
    const common = definedOnly({
      id: line.id,
      line: line.line,
      reason: r.reason,
      usage: r.usage.usage,
      costUsd: r.usage.costUsd,
      cache: r.usage.cache,
      durationMs: r.durationMs,
      sessionId: run.sessionId,
      systemPromptDigest: run.systemPromptDigest,
    });
    const extra = definedOnly({
      worker: options.worker || undefined,
      backoffs: watch.backoffs(),
      timing: watch.timing(),
    });
    if (r.reason === 'completed') {
      return base<ResultRecord>(
        definedOnly({ kind: 'result', outcome: 'completed', ...common, finalText: r.finalText, result: r.result }),
        line,
        extra,
      );
    }
    const error = r.error ?? { category: 'AGENT_ERROR', code: terminationCode(r.reason), message: r.reason };
    const outcome =
      r.reason === 'timeout' || r.reason === 'budget_exceeded' || r.reason === 'aborted' ? 'cancelled' : 'failed';
    return base<ErrorRecord>({ kind: 'error', outcome, ...common, error: recordError(error) }, line, extra);
  } catch (error) {
    const e =
      error instanceof MinicodeError
        ? { category: error.category, code: error.code, message: error.message }
        : {
            category: 'INTERNAL_ERROR',
            code: 'MINICODE_E_INTERNAL',
            message: (error as Error)?.message ?? String(error),
          };
    return base(
      setupErrorRecord(line, e),
      line,
      definedOnly({ worker: options.worker || undefined, backoffs: watch.backoffs(), timing: watch.timing() }),
    );
  }
}

/**
 * The error of a record: what a retry decision and a reader need (lib/batch/retries.ts). A
 * provider's answer keeps the provider layer's recoverability and the limit its classification
 * names: an exhausted usage quota is a 429 like a rate limit, and only they tell the two apart.
 */
function recordError(error: {
  category: string;
  code: string;
  message: string;
  httpStatus?: number | undefined;
  recoverability?: string | undefined;
  providerCode?: string | undefined;
}): ErrorRecord['error'] {
  const limit =
    error.category === 'PROVIDER_ERROR' && error.httpStatus !== undefined
      ? classifyProviderError({ type: error.code, code: error.providerCode, httpStatus: error.httpStatus }).limit
      : undefined;
  return definedOnly({
    category: error.category,
    code: error.code,
    message: error.message,
    httpStatus: error.httpStatus,
    recoverability: error.recoverability,
    limit,
  });
}

/** What a line changes of the batch's prompt recipe: its `system`, `instructions` and `outputSchema` in place of the batch's. */
async function lineRecipe(
  settings: PromptSettings,
  line: BatchLine,
): Promise<{ changes: Partial<PromptRecipe>; outputSchema: OutputSchema | undefined }> {
  const changes: Partial<PromptRecipe> = {};
  if (line.system !== undefined) changes.base = line.system;
  if (line.instructions !== undefined)
    changes.instructions = line.instructions === false ? false : { text: line.instructions };
  const outputSchema =
    line.outputSchema !== undefined
      ? (await import('../output-schema/compile.js')).compileOutputSchema(
          line.outputSchema,
          `line ${line.line}: outputSchema`,
        )
      : settings.outputSchema;
  return { changes, outputSchema };
}

/** A line's images, read and checked from its cwd (MINICODE_E_IMAGE, the line's error record, when one cannot be used). */
async function lineImages(files: readonly string[], cwd: string): Promise<ImageAttachment[]> {
  const { loadImageFile } = await import('../images/load.js');
  return files.map((file) => loadImageFile(path.resolve(cwd, file)));
}

/**
 * A line's `cwd` must be a directory, as `--cwd` must: run elsewhere, every tool call fails
 * (a missing cwd even makes bash look absent) and the model is paid to flail. An error record,
 * rerun by `--retry-errors` once the folder is there.
 */
function checkLineCwd(line: BatchLine, cwd: string): void {
  const stat = fs.statSync(cwd, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return;
  throw new MinicodeError(
    'MINICODE_E_USAGE',
    `line ${line.line}: cwd ${JSON.stringify(line.cwd ?? cwd)} (${cwd}): ${stat ? 'not a directory' : 'no such directory'}`,
    {
      action:
        'give the line a "cwd" that is a directory (relative to the input file), then run again with --retry-errors',
    },
  );
}

/** A native agent CLI through the session pipeline; its record comes from the reduced state. */
async function runNativeLine(
  options: RunLineOptions,
  cwd: string,
  watch: ReturnType<typeof watcher>,
): Promise<BatchRecord> {
  const { line } = options;
  const [
    { runAgentWorkflow },
    { createTranscriptCollector },
    { createRunPipeline },
    { createEventScrubber },
    { newSessionId },
    { summarize },
    { promptDigestOf },
  ] = await Promise.all([
    import('../native/workflow.js'),
    import('../native/handoff-prompt.js'),
    import('../pipeline/compose.js'),
    import('../scrub/scrub-stage.js'),
    import('../ids.js'),
    import('../reducer/index.js'),
    import('../agent/run-prompt.js'),
  ]);
  const agents = [line.agent!, ...(line.fallback ?? [])];
  const sessionId = newSessionId(Date.now());
  const started = Date.now();
  const transcript = createTranscriptCollector(line.agent!);
  let handoffs = 0;
  const pipeline = createRunPipeline({
    sessionId,
    scrubber: createEventScrubber({ env: options.env ?? process.env }),
    store: options.store,
    onSettled: options.onSettled,
    onEvent: (event) => {
      transcript.observe(event);
      if (event.type === 'agent.handoff') handoffs++;
      // A quota that a fallback takes over is not the batch's quota (fail-fast ignores it).
      const handedOver =
        event.type === 'limit.reached' &&
        (event.payload as { kind: string }).kind === 'usage-quota' &&
        handoffs < agents.length - 1;
      if (!handedOver) watch.onEvent(event);
    },
  });
  pipeline.emit({
    type: 'session.started',
    payload: { origin: 'batch', cwd, agent: line.agent, promptDigest: promptDigestOf(line.prompt) },
    fidelity: 'synthetic',
  });
  const checkpoints = await nativeCheckpoints(options, cwd, sessionId, (d) => pipeline.emit(d));
  await runAgentWorkflow(
    definedOnly<WorkflowOptions>({
      checkpoints,
      agents,
      prompt: line.prompt,
      cwd,
      transcript,
      emit: (d) => pipeline.emit(d),
      env: options.env,
      signal: options.signal,
      extraArgs: line.model ? ['--model', line.model] : undefined,
      durable: options.store
        ? async () => {
            await pipeline.settled();
            await options.store!.flushed(sessionId);
          }
        : undefined,
      write: (drafts) => pipeline.write(drafts),
      settled: () => pipeline.settled(),
    }),
  );
  // The line's turn is over while the batch goes on: its undo is not refused as live.
  await checkpoints?.turnEnded();
  const summary = summarize(await pipeline.settled());
  const outcome =
    summary.outcome === 'completed' ? 'completed' : summary.outcome === 'cancelled' ? 'cancelled' : 'failed';
  pipeline.emit({
    type: 'session.ended',
    payload: { outcome, durationMs: Date.now() - started },
    status: outcome,
    fidelity: 'synthetic',
  });
  const state = await pipeline.finish();
  const done = summarize(state);
  const common = definedOnly({
    id: line.id,
    line: line.line,
    reason: done.reason ?? outcome,
    usage: done.usage,
    costUsd: done.costUsd,
    durationMs: Date.now() - started,
    sessionId,
  });
  const extra = definedOnly({
    worker: options.worker || undefined,
    backoffs: watch.backoffs(),
    timing: watch.timing(),
  });
  if (line.fallback) Object.assign(common, { agents: done.agents ?? [line.agent!] });
  if (outcome === 'completed')
    return base<ResultRecord>({ kind: 'result', outcome, ...common, finalText: watch.finalText() }, line, extra);
  const e = done.error ?? {
    category: 'AGENT_ERROR',
    code: 'MINICODE_E_AGENT',
    message: `${line.agent} ended ${outcome}`,
  };
  return base<ErrorRecord>(
    { kind: 'error', outcome, ...common, error: { category: e.category, code: e.code, message: e.message } },
    line,
    extra,
  );
}

/** A native line's checkpoint hooks, when the batch's setup has checkpoints on (a failed setup: none). */
async function nativeCheckpoints(
  options: RunLineOptions,
  cwd: string,
  sessionId: string,
  emit: (draft: EventDraft) => void,
): Promise<WorkspaceCheckpoints | undefined> {
  const settings = (await options.setup(options.line).catch(() => undefined))?.environment.checkpoints;
  if (!settings) return undefined;
  const { createTurnCheckpoints } = await import('../checkpoints/turn.js');
  return createTurnCheckpoints({ settings, cwd, sessionId, turn: 1, emit });
}
