/**
 * One prompt as one stored session (or one more turn of a stored session): the session
 * pipeline (scrub -> envelope -> reduce -> render/store), `session.started`, the agent loop,
 * the operator's verify command, `session.ended`, and the final summary. `exec`, `batch`,
 * the interactive mode and ACP all run prompts through here, so every surface tells the same
 * story of a run.
 */
import { createHash } from 'node:crypto';
import type { EventDraft, RunOutcome } from '../events/index.js';
import { newSessionId } from '../ids.js';
import { createRunPipeline, type RunPipeline } from '../pipeline/compose.js';
import type { ReducerState } from '../reducer/index.js';
import type { FinishExtra } from '../render/types.js';
import { createEventScrubber } from '../scrub/scrub-stage.js';
import type { EventStore } from '../store/store.js';
import { holdEvents } from '../store/held-events.js';
import { MinicodeError } from '../errors.js';
import type { VerifyReport } from '../verify/run.js';
import type { AgentResult } from './loop.js';
import { promptSettings } from './prompt-settings.js';
import { withToolNote } from './system-prompt.js';
import { toolShapeFor, withShapeTools } from '../tools/shapes.js';
import type { ToolEnvironment } from './tool-environment.js';
import { expandCommand, matchCommand, policyForCommand } from '../extensions/commands.js';
import { mark } from '../timeline.js';
import { builtInAgents } from './agent-definitions.js';
import { createChildSessions } from './children.js';
import type { PromptRun, PromptRunOptions } from './prompt-run.js';
import { definedOnly } from '../defined-only.js';
import { checkVision } from '../images/vision.js';
import type { HookTranscript } from '../hooks/transcript.js';
import type { ImageAttachment } from '../images/load.js';
import { reportDropped } from '../debug.js';

export type { PromptRun, PromptRunOptions } from './prompt-run.js';

const OUTCOME: Record<AgentResult['reason'], RunOutcome> = {
  completed: 'completed',
  max_steps_exceeded: 'failed',
  provider: 'failed',
  busy: 'failed',
  result_invalid: 'failed',
  timeout: 'cancelled',
  budget_exceeded: 'cancelled',
  aborted: 'cancelled',
  hook_stopped: 'cancelled',
};

/** The `session.ended` draft for a run (or a chat's last turn) that settled with `reason`. */
export function sessionEndedDraft(reason: AgentResult['reason'], durationMs?: number): EventDraft {
  const outcome = OUTCOME[reason];
  return {
    type: 'session.ended',
    payload: definedOnly({ outcome, reason, durationMs }),
    status: outcome === 'completed' ? 'completed' : outcome === 'failed' ? 'failed' : 'cancelled',
    fidelity: 'synthetic',
  };
}

/** Options of {@link endSession}. */
export interface EndSessionOptions {
  sessionId: string;
  startSeq: number;
  state: ReducerState;
  /** The last turn's termination reason (the session's outcome follows its latest prompt). */
  reason: AgentResult['reason'];
  durationMs?: number | undefined;
  store?: EventStore | undefined;
  clock?: (() => number) | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** The session's tool environment: its SessionEnd hooks run first; absent: none. */
  environment?: ToolEnvironment | undefined;
  /** SessionEnd's `reason`: `exit` (the person left, the client closed the session), `clear` (chat's `/clear`) or `other` (the process ends); default `exit`. */
  hookReason?: 'exit' | 'clear' | 'other' | undefined;
}

/** End a session whose turns ran with `endSession: false` (the interactive mode, on exit). */
export async function endSession(options: EndSessionOptions): Promise<ReducerState> {
  const pipeline = createRunPipeline({
    sessionId: options.sessionId,
    clock: options.clock,
    scrubber: createEventScrubber({ env: options.env ?? process.env }),
    store: options.store,
    startSeq: options.startSeq,
    state: options.state,
  });
  const environment = options.environment;
  if (environment?.hooks)
    await (await import('./turn-hooks.js')).runSessionEndHooks(
      {
        environment,
        sessionId: options.sessionId,
        emit: (d) => pipeline.emit(d),
        transcript: await hookTranscriptOf(options.store, options.sessionId, () => pipeline.settled()),
      },
      options.hookReason ?? 'exit',
    );
  pipeline.emit(sessionEndedDraft(options.reason, options.durationMs));
  return pipeline.finish();
}

/** Options of {@link appendToSession}. */
export type AppendOptions = Omit<EndSessionOptions, 'reason' | 'durationMs' | 'environment'>;

/**
 * Add events to a session between its turns (the interactive mode's `/compact`); resolves with
 * the state after them and the next sequence number.
 */
export async function appendToSession(
  options: AppendOptions,
  drafts: readonly EventDraft[],
): Promise<{ state: ReducerState; nextSeq: number }> {
  let nextSeq = options.startSeq;
  const pipeline = createRunPipeline({
    sessionId: options.sessionId,
    clock: options.clock,
    scrubber: createEventScrubber({ env: options.env ?? process.env }),
    store: options.store,
    startSeq: options.startSeq,
    state: options.state,
    onEvent: (event) => {
      nextSeq = event.seq + 1;
    },
  });
  for (const d of drafts) pipeline.emit(d);
  return { state: await pipeline.finish(), nextSeq };
}

/** The transcript hooks read of a stored session (lib/hooks/transcript.ts); undefined when it is not stored. */
export async function hookTranscriptOf(
  store: EventStore | undefined,
  sessionId: string,
  settled: () => Promise<unknown>,
): Promise<HookTranscript | undefined> {
  if (!store) return undefined;
  const { createHookTranscript } = await import('../hooks/transcript.js');
  return createHookTranscript({ store, sessionId, settled });
}

/** sha256 of the prompt, for the session index. */
export function promptDigestOf(prompt: string): string {
  return `sha256:${createHash('sha256').update(prompt).digest('hex')}`;
}

/** Put an image's bytes in the content store, keyed by their digest (the same image is kept once). */
async function keepImage(store: EventStore, image: ImageAttachment): Promise<void> {
  await store.putContent(image.bytes, { mediaType: image.mediaType });
}

/** The images a tool returned, kept for a later rebuild of the session. */
async function keepToolImages(store: EventStore, images: readonly ImageAttachment[]): Promise<void> {
  try {
    for (const image of images) await keepImage(store, image);
  } catch (error) {
    // The store reports its own write failure (the run's events fail with it); the model still
    // sees the image now, and a rebuild names it as no longer available.
    reportDropped('tool image: content store', error);
  }
}

/** The summary's error fields of a failure before the first turn. */
function errorFieldsOf(error: unknown): NonNullable<FinishExtra['error']> {
  if (error instanceof MinicodeError)
    return definedOnly({
      category: error.category,
      code: error.code,
      message: error.message,
      action: error.action || undefined,
    });
  return { category: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The run a prompt asks for: a custom slash command (`/name args`, lib/extensions/commands.ts)
 * becomes its expanded prompt, with its `model` and its `allowed-tools` in the approval policy;
 * any other prompt is run as it is.
 */
export function withSlashCommand(options: PromptRunOptions): PromptRunOptions {
  const commands = options.prompting?.commands;
  const call = commands && commands.commands.length > 0 ? matchCommand(options.prompt, commands) : undefined;
  if (!call) return options;
  const { command, args } = call;
  return {
    ...options,
    prompt: expandCommand(command, args),
    provider: command.model ? { ...options.provider, model: command.model } : options.provider,
    environment: { ...options.environment, policy: policyForCommand(options.environment.policy, command) },
  };
}

/** Run one prompt through the pipeline and the agent loop (a custom slash command expanded first: {@link withSlashCommand}). */
export async function runPrompt(given: PromptRunOptions): Promise<PromptRun> {
  const options = withSlashCommand(given);
  // Before any event: images for a model known to take none are refused, not sent to a provider's 400.
  checkVision(options.provider.model, options.images?.length ?? 0);
  const clock = options.clock ?? Date.now;
  const sessionId = options.session?.id ?? options.sessionId ?? newSessionId(clock());
  let seq = options.session?.startSeq ?? 0;
  const held = options.openStore && !options.store ? holdEvents() : undefined;
  const store = options.store ?? held;
  const pipeline: RunPipeline = createRunPipeline({
    sessionId,
    clock,
    scrubber: createEventScrubber({ env: options.environment.env }),
    renderer: options.renderer,
    output: options.output,
    store,
    onEvent: (event, state) => {
      seq = event.seq + 1;
      options.onEvent?.(event, state);
    },
    startSeq: options.session?.startSeq,
    state: options.session?.state,
    onSettled: options.onSettled,
  });
  const turn = options.session?.turn ?? 1;
  // The tool shape's note belongs to the prompt the session records: added before session.started.
  const settings = options.prompting ?? promptSettings();
  // The tools the run gets, by name (undefined: all): a child's agent definition selects some, with
  // the tools its native shapes need, and the note names only the stand-ins it is offered.
  const selected =
    options.toolNames === undefined || options.toolNames === 'all'
      ? undefined
      : withShapeTools([...options.toolNames, 'submit_result', 'task']);
  const note = toolShapeFor(options.provider.format, options.provider.model, options.environment.toolShapes).noteFor(
    (name) => selected === undefined || selected.includes(name),
  );
  const prompting = note === undefined ? settings : { ...settings, system: withToolNote(settings.system, note) };
  if (!options.session) {
    const { system, outputSchema } = prompting;
    pipeline.emit({
      type: 'session.started',
      payload: definedOnly({
        origin: options.origin,
        cwd: options.environment.cwd,
        provider: options.provider.format,
        model: options.provider.model,
        baseUrl: options.provider.baseUrl || undefined,
        promptDigest: promptDigestOf(options.prompt),
        sandbox: options.environment.sandbox?.mode ?? 'off',
        systemPromptDigest: system.digest,
        instructions: system.instructionFiles,
        outputSchemaDigest: outputSchema ? outputSchema.digest : undefined,
        parentSessionId: options.parentLink?.parentSessionId,
        parentToolCallId: options.parentLink?.parentToolCallId,
        subagentType: options.parentLink?.subagentType,
      }),
      fidelity: 'synthetic',
    });
    for (const d of system.diagnostics)
      pipeline.emit({ type: 'diagnostic.raised', payload: { ...d, category: 'CONFIGURATION_ERROR' } });
    if (!options.parentLink) {
      for (const message of options.environment.agents?.problems ?? []) {
        pipeline.emit({
          type: 'diagnostic.raised',
          payload: {
            code: 'MINICODE_E_AGENT_DEFINITION',
            message,
            category: 'CONFIGURATION_ERROR',
            action: 'fix or remove the file',
          },
        });
      }
    }
  }
  for (const d of options.preamble ?? []) pipeline.emit(d);
  // The agent loop, the tools and the providers load only now, once the first events are out
  // (`docs/startup.md`): a program reading `--json` has `session.started` before that code runs.
  await pipeline.settled();
  options.output?.flush();
  mark('run: first events settled and flushed');
  // The store opens now, the agent loop and the tools load meanwhile; no turn starts before it is open.
  const opening = held ? options.openStore?.() : undefined;
  const loading = Promise.all([import('./loop.js'), import('../tools/index.js')]);
  // The open store, where child sessions are kept beside this one.
  let opened = options.store;
  if (held && opening) {
    try {
      opened = await opening;
      held.attach(opened);
    } catch (error) {
      held.abandon();
      loading.catch(() => undefined);
      await pipeline.finish({ error: errorFieldsOf(error) });
      throw error;
    }
  }
  const [{ runAgent }, { createToolRegistry }] = await loading;
  // The prompt's images are stored once by digest; the events carry references to them.
  if (opened) for (const image of options.images ?? []) await keepImage(opened, image);
  mark('run: agent loop and tools loaded');
  const toolSource = options.environment.toolSource;
  // A child shares its parent's tool source, whose diagnostics stay routed to the parent.
  const detachTools = options.parentLink ? undefined : toolSource?.attach((d) => pipeline.emit(d));
  const children = createChildSessions({
    parent: options,
    parentSessionId: sessionId,
    depth: options.parentLink?.depth ?? 0,
    agents: options.environment.agents ?? builtInAgents(),
    store: opened,
    parentSettled: () => pipeline.settled(),
    runPrompt,
  });
  const hookTranscript = options.environment.hooks
    ? await hookTranscriptOf(opened, sessionId, () => pipeline.settled())
    : undefined;
  const result = await runAgent({
    ...options,
    tools: createToolRegistry({
      extra: toolSource ? () => toolSource.tools() : undefined,
      outputSchema: prompting.outputSchema,
      children,
      skills: prompting.skills,
      ...(selected ? { only: selected } : {}),
    }),
    children,
    cancelCause: options.parentLink ? 'parent-cancel' : undefined,
    keepImages: opened ? (images) => keepToolImages(opened, images) : undefined,
    prompting,
    toolsReady: toolSource?.ready ? () => toolSource.ready!() : undefined,
    history: options.session?.history ?? [],
    taskId: `task-${turn}`,
    turnId: turn,
    sessionId,
    hookTranscript,
    emit: (d, ids) => pipeline.emit(d, ids),
    write: (drafts, ids) => pipeline.write(drafts, ids),
  }).finally(() => detachTools?.());
  // A child never outlives its parent: a stopped parent settles at once, its children end (their
  // signal is the parent's) before the parent's session does.
  await children.settled();
  mark('run: agent loop done');
  let verify: VerifyReport | undefined;
  if (options.verifyCommand && result.reason === 'completed') {
    const { runVerify } = await import('../verify/run.js');
    const run = await runVerify(options.verifyCommand, {
      cwd: options.environment.cwd,
      env: options.environment.env,
      sandbox: options.environment.sandbox,
      clock,
    });
    verify = run.report;
    pipeline.emit({
      type: 'test.completed',
      payload: { command: options.verifyCommand, ok: run.report.ok },
      source: 'app',
    });
  }
  let verifyShown: { ok: boolean; command: string } | undefined;
  if (verify) {
    // The summary (stdout, a CI log) shows the command as the scrubbed `test.completed` does: a
    // token written into it is masked.
    const { outputRedactor } = await import('../artefacts.js');
    const redact = outputRedactor(options.environment.env);
    verifyShown = { ok: verify.ok, command: redact(verify.command) };
  }
  if (options.endSession !== false) {
    if (options.environment.hooks)
      await (await import('./turn-hooks.js')).runSessionEndHooks(
        { environment: options.environment, sessionId, emit: (d) => pipeline.emit(d), transcript: hookTranscript },
        'other',
      );
    pipeline.emit(sessionEndedDraft(result.reason, result.durationMs));
  }
  const state = await pipeline.finish(
    definedOnly({
      verify: verifyShown,
      result: result.result,
      cacheHitRatio: result.usage.cacheHitRatio,
    }),
  );
  mark('run: pipeline finished');
  const out: PromptRun = { sessionId, result, state, nextSeq: seq, systemPromptDigest: prompting.system.digest };
  if (verify) out.verify = verify;
  return out;
}
