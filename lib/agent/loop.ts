/**
 * minicode's own agent loop (the kernel): prompt -> provider -> tool calls -> tool results ->
 * ... until the model answers without a tool call (`completed`) or a termination reason
 * stops it. One termination owner decides the single reason (control-plane §5); parallel tool
 * calls run concurrently with their own ids and durations; usage, cost and the budget watcher
 * follow every response; retries go through the control plane's policy.
 */
import type { ErrorInfo, EventDraft, RunIds, TerminationReason } from '../events/index.js';
import { watchBudgetLimit } from '../control/budget.js';
import { withRetry } from '../control/retry.js';
import { createTermination, settleRun } from '../control/termination.js';
import { realTimers, type Timers } from '../control/timers.js';
import { createUsageCollector, type UsageTotals } from '../control/usage.js';
import { createApprovalHook, credentialValueMasker } from '../policy/index.js';
import type { ChildSessions, ToolRegistry } from '../tools/index.js';
import { storedImageOf, type ImageAttachment } from '../images/load.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { acceptsImages } from '../images/vision.js';
import {
  toolImagesMessage,
  type Conversation,
  type ConversationMessage,
  type ImagePart,
  type ProviderFormat,
} from './conversation.js';
import type { Interaction } from './interaction.js';
import { promptSettings, type PromptSettings } from './prompt-settings.js';
import type { ProviderSettings } from './provider-settings.js';
import type { RunLimits } from './run-limits.js';
import type { ToolEnvironment } from './tool-environment.js';
import { callProvider, ProviderCallError, type ProviderReply } from './provider-call.js';
import { buildRequest } from './requests/index.js';
import { executeToolCall } from '../tools/execute.js';
import { answeredWith, toolShapeFor } from '../tools/shapes.js';
import { createShellSession, type ShellSession } from '../tools/shell-session.js';
import { createTurnCheckpoints } from '../checkpoints/turn.js';
import { kernelTruncate } from '../control/truncation.js';
import { createContextManager } from './context.js';
import { contextWindowOf } from './context-window.js';
import { createTurnHooks, promptWithContext, type SessionStartSource } from './turn-hooks.js';
import type { HookTranscript } from '../hooks/transcript.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link runAgent}: the run's groups, filled once where the run was set up, and the turn's own inputs. */
export interface AgentOptions {
  prompt: string;
  provider: ProviderSettings;
  limits: RunLimits;
  environment: ToolEnvironment;
  interaction: Interaction;
  tools: ToolRegistry;
  /**
   * Awaited before each step when the tool list can change during the run (MCP
   * `tools/list_changed`): the step's request then carries the current tools.
   */
  toolsReady?: (() => Promise<void>) | undefined;
  /** Images sent with the prompt (`exec -i`), checked by lib/images; default none. */
  images?: readonly ImageAttachment[] | undefined;
  /**
   * The session's shell when the tool shape keeps one (Claude's bash: lib/tools/shell-session.ts),
   * held by a surface whose session spans several runs; default a new one for this run.
   */
  shell?: ShellSession | undefined;
  /** Earlier turns of the session (chat, ACP); default none. */
  history?: ConversationMessage[] | undefined;
  /**
   * The system prompt and the typed result; default minicode's own prompt, no instructions, a
   * free-form result. With an output schema (the registry's `submit_result` checks it) the model
   * gets `resultAttempts` chances to submit a valid result, counting refused submissions and final
   * answers without one; then the run ends `result_invalid`.
   */
  prompting?: PromptSettings | undefined;
  /** User abort (Ctrl+C, Esc, ACP cancel). */
  signal?: AbortSignal | undefined;
  /** One event of the run; `ids` is the loop's position (turn, step), filled in by the envelope stage. */
  emit: (draft: EventDraft, ids: RunIds) => void;
  /**
   * What one network chunk of a provider response decoded to, as one batch. A returned promise
   * means the pipeline is full: the response body is not read again until it resolves.
   * Default: each draft through `emit`.
   */
  write?: ((drafts: EventDraft[], ids: RunIds) => Promise<void> | undefined) | undefined;
  /** Default `Date.now`. */
  clock?: (() => number) | undefined;
  /** Default the real timers. */
  timers?: Timers | undefined;
  /** Source of the retry backoff's jitter, uniform in [0, 1); default `Math.random`. */
  random?: (() => number) | undefined;
  /** Default `task-1`. */
  taskId?: string | undefined;
  /** Default 1. */
  turnId?: number | undefined;
  /** The session the turn belongs to (labels its checkpoint); default the task id. */
  sessionId?: string | undefined;
  /**
   * SessionStart's `source` when this turn (re)starts the session: its hooks run before the
   * prompt's, their context goes with it. Default `startup` for a first turn without history,
   * none otherwise (the chat says `resume`, `clear` or `compact` for the turn after those).
   */
  sessionStart?: SessionStartSource | undefined;
  /** Brings the stored session's transcript up to date for a hook's `transcript_path`; absent: null. */
  hookTranscript?: HookTranscript | undefined;
  /** Child sessions the `task` tool may start (lib/agent/children.ts); their spend counts in this run's budget. Default none. */
  children?: ChildSessions | undefined;
  /** Called with the run's usage totals after each report (its children's cost included): a child's parent counts it in its budget. */
  onUsage?: ((totals: UsageTotals) => void) | undefined;
  /**
   * Why a stop of this run is a cancellation: `parent-cancel` for a child session, whose signal
   * is its parent's run (it has no deadline or budget of its own). Default none.
   */
  cancelCause?: 'parent-cancel' | undefined;
  /** Keeps the bytes of the images tools return in the session's content store (lib/tools/execute.ts); default none. */
  keepImages?: ((images: readonly ImageAttachment[]) => Promise<void>) | undefined;
}

/** What the model is told when it finishes without the typed result the run needs. */
const RESULT_MISSING =
  'This task needs a typed result: call submit_result with a JSON object matching its input schema before you finish.';

/** How a run ended. */
export interface AgentResult {
  reason: TerminationReason;
  finalText: string;
  /** The `submit_result` JSON, verbatim, when the model called it. */
  result?: unknown;
  error?: ErrorInfo;
  steps: number;
  /** The conversation after the run (history + this turn), for the next turn. */
  messages: ConversationMessage[];
  usage: UsageTotals;
  durationMs: number;
}

/** The price table's provider key for a wire format. */
export function priceProviderOf(format: ProviderFormat): string {
  return format === 'anthropic'
    ? 'anthropic'
    : format === 'gemini'
      ? 'google'
      : format === 'ollama'
        ? 'ollama'
        : 'openai';
}

const REASON_ERRORS: Record<Exclude<TerminationReason, 'completed'>, Pick<ErrorInfo, 'category' | 'recoverability'>> = {
  max_steps_exceeded: { category: 'AGENT_ERROR', recoverability: 'ACTION_REQUIRED' },
  timeout: { category: 'AGENT_ERROR', recoverability: 'RETRYABLE' },
  budget_exceeded: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED' },
  aborted: { category: 'USER_ERROR', recoverability: 'RECOVERABLE' },
  provider: { category: 'PROVIDER_ERROR', recoverability: 'FATAL' },
  busy: { category: 'AGENT_ERROR', recoverability: 'RETRYABLE' },
  result_invalid: { category: 'MODEL_ERROR', recoverability: 'RETRYABLE' },
  hook_stopped: { category: 'USER_ERROR', recoverability: 'ACTION_REQUIRED' },
};

/** Replace the conversation's contents in place (the loop and its closures hold the same array). */
function replaceMessages(messages: ConversationMessage[], next: ConversationMessage[]): void {
  if (next !== messages) messages.splice(0, messages.length, ...next);
}

/** Run the agent loop to its single settle point. Never throws for run failures: they are the result. */
export async function runAgent(options: AgentOptions): Promise<AgentResult> {
  const clock = options.clock ?? Date.now;
  const startedAt = clock();
  const taskId = options.taskId ?? 'task-1';
  const turnId = options.turnId ?? 1;
  const { provider, limits, environment, interaction } = options;
  const maxSteps = limits.maxSteps;
  const turnIds: RunIds = { turnId };
  const emit = (d: EventDraft): void => options.emit(d, turnIds);
  const termination = createTermination(options.signal);
  const disarm =
    limits.timeoutMs !== undefined ? termination.deadline(limits.timeoutMs, options.timers ?? realTimers) : () => {};
  const priceProvider = priceProviderOf(provider.format);
  let budgetWatcher: ReturnType<typeof watchBudgetLimit> | undefined;
  // The children's estimated spend by tool call, counted with the run's own in its budget
  // (undefined: unknown, which makes the sum unknown).
  const childCosts = new Map<string, number | undefined>();
  const spendOf = (own: number | undefined): number | undefined => {
    let sum = own;
    for (const cost of childCosts.values()) sum = sum === undefined || cost === undefined ? undefined : sum + cost;
    return sum;
  };
  const onSpend = (): void => {
    const totals = collector.session();
    const costUsd = spendOf(totals.costUsd);
    budgetWatcher?.check(costUsd);
    options.onUsage?.({ ...totals, costUsd });
  };
  const collector = createUsageCollector({ onChange: onSpend });
  const children: ChildSessions | undefined = options.children && {
    agents: options.children.agents,
    canStart: options.children.canStart,
    run: (request) =>
      options.children!.run({
        ...request,
        onCost: (costUsd) => {
          childCosts.set(request.toolCallId, costUsd);
          onSpend();
        },
      }),
  };
  if (limits.budget) {
    budgetWatcher = watchBudgetLimit(limits.budget, {
      abort: (reason) => termination.request('budget_exceeded', (reason as { message?: string }).message),
    });
  }
  const approve = createApprovalHook({
    tty: interaction.tty,
    prompt: interaction.promptApproval,
    nextId: interaction.nextApprovalId,
    onEvent: emit,
  });
  const images = options.images ?? [];
  const messages: ConversationMessage[] = [
    ...(options.history ?? []),
    { role: 'user', text: options.prompt, ...(images.length > 0 ? { images: images.map(imagePartOf) } : {}) },
  ];
  const prompting = options.prompting ?? promptSettings();
  const system = prompting.system.text;
  // The tools in the shape the model knows (lib/tools/shapes.ts); its calls are mapped back onto ours.
  const shape = toolShapeFor(provider.format, provider.model, environment.toolShapes);
  let definitions = options.tools.definitions();
  let offered = shape.offer(options.tools);
  const shell = shape.persistentShell ? (options.shell ?? createShellSession(environment.cwd)) : undefined;
  const hooks = createTurnHooks({
    environment,
    sessionId: options.sessionId ?? taskId,
    emit,
    clock,
    transcript: options.hookTranscript,
  });
  /** The run's signal once the body runs (PreCompact hooks are stopped with it). */
  let runSignal: AbortSignal | undefined;
  const context = createContextManager({
    format: provider.format,
    imageDetail: provider.tuning?.imageDetail,
    window: contextWindowOf(provider.format, provider.model, limits.contextWindow),
    system,
    tools: offered,
    turn: turnId,
    beforeCompact: hooks ? () => (runSignal ? hooks.beforeCompact(runSignal) : Promise.resolve()) : undefined,
    taskId,
  });
  const maskForModel = environment.maskCredentialsInRequests ? credentialValueMasker(environment.env) : undefined;
  const checkpoints = environment.checkpoints
    ? createTurnCheckpoints({
        settings: environment.checkpoints,
        cwd: environment.cwd,
        sessionId: options.sessionId ?? taskId,
        turn: turnId,
        emit,
        clock,
      })
    : undefined;
  let steps = 0;
  let finalText = '';
  let result: unknown;
  let lastError: ErrorInfo | undefined;
  const typed = prompting.outputSchema !== undefined;
  let failedResults = 0;
  /** Count one attempt without a valid result; once none is left the run ends `result_invalid`. */
  const resultMissed = (signal: AbortSignal, why: string): void => {
    failedResults++;
    if (failedResults < prompting.resultAttempts) return;
    termination.request(
      'result_invalid',
      `no result matching the output schema after ${failedResults} attempt${failedResults === 1 ? '' : 's'}: ${why}`,
    );
    signal.throwIfAborted();
  };

  emit({
    type: 'user.message.received',
    payload: {
      messageId: `user-${turnId}`,
      text: options.prompt,
      // A reference per image: the bytes are in the content store (runPrompt put them there), never in the event.
      ...(images.length > 0 ? { images: images.map(storedImageOf) } : {}),
    },
  });
  emit({ type: 'task.started', payload: { taskId, prompt: options.prompt } });

  /** One provider request (with the control plane's retries) for the current conversation. */
  const requestOnce = async (
    stepIds: Required<RunIds>,
    stepEmit: (d: EventDraft) => void,
    signal: AbortSignal,
    onAttempt: (n: number) => void,
  ): Promise<ProviderReply> => {
    const stepId = stepIds.stepId;
    const conversation: Conversation = { system, messages, tools: offered };
    const sentCount = messages.length;
    const request = buildRequest(provider.format, conversation, {
      model: provider.model,
      baseUrl: provider.baseUrl,
      apiKey: provider.apiKey,
      maxTokens: limits.maxTokens,
      tuning: provider.tuning,
    });
    return withRetry({
      provider: provider.format,
      pinned: provider.pinned,
      signal,
      policy: provider.retryPolicy,
      timers: options.timers,
      random: options.random,
      classify: (error) =>
        error instanceof ProviderCallError
          ? definedOnly({ retryable: error.retryable && !error.contextLength, retryAfterMs: error.retryAfterMs })
          : { retryable: false },
      onRetry: ({ retry, waitMs, error }) => {
        stepEmit({
          type: 'recovery.started',
          payload: {
            strategy: 'retry',
            reason: error instanceof Error ? error.message : String(error),
            attempt: retry + 1,
            delayMs: waitMs,
            supersedes: `request-${stepId}.${retry}`,
          },
        });
      },
      call: async ({ attempt, signal: attemptSignal }) => {
        onAttempt(attempt);
        const requestId = `request-${stepId}.${attempt}`;
        collector.begin(requestId, { provider: priceProvider, model: provider.model, turn: turnId });
        const r = await callProvider({
          format: provider.format,
          request,
          signal: attemptSignal,
          emit: stepEmit,
          write: (drafts) => (options.write ? options.write(drafts, stepIds) : void drafts.forEach(stepEmit)),
          // Request-scope usage is re-emitted once per response, priced, by the collector.
          omitReportedUsage: true,
          http: provider.http,
          now: clock,
        });
        if (r.usage)
          stepEmit(
            collector.record({
              requestId,
              usage: r.usage,
              cumulative: false,
              scope: 'request',
              provider: priceProvider,
              model: provider.model,
              turn: turnId,
            }),
          );
        context.observe(r.usage, messages, sentCount);
        return r;
      },
    }).catch((error: unknown) => {
      if (error instanceof ProviderCallError) lastError = error.info;
      throw error;
    });
  };

  /** Stop the run because a hook said so. */
  const hookStop = (signal: AbortSignal, why: string): void => {
    termination.request('hook_stopped', why);
    signal.throwIfAborted();
  };

  /** SessionStart hooks with source `compact` after a compaction; their context joins the turn's task message. */
  const afterCompaction = async (signal: AbortSignal): Promise<void> => {
    if (!hooks) return;
    const context = await hooks.afterCompact(signal);
    if (context.length === 0) return;
    const task = messages.findLastIndex((m) => m.role === 'user' && !m.fromTools);
    const message = messages[task];
    if (message?.role !== 'user') return;
    messages[task] = {
      ...message,
      text: promptWithContext(
        message.text,
        context.map((c) => (maskForModel ? maskForModel(c) : c)),
      ),
    };
  };

  const body = async (signal: AbortSignal): Promise<void> => {
    runSignal = signal;
    if (hooks) {
      // A session's first turn starts it: SessionStart, then UserPromptSubmit; their context goes with the prompt.
      const before = await hooks.beforePrompt(
        options.prompt,
        options.sessionStart ?? (turnId === 1 && (options.history ?? []).length === 0 ? 'startup' : undefined),
        signal,
      );
      if (before.stop !== undefined) hookStop(signal, before.stop);
      if (before.context.length > 0)
        messages[messages.length - 1] = {
          role: 'user',
          text: promptWithContext(
            options.prompt,
            before.context.map((c) => (maskForModel ? maskForModel(c) : c)),
          ),
        };
    }
    for (;;) {
      if (steps >= maxSteps) {
        termination.request('max_steps_exceeded', `the run reached --max-steps ${maxSteps} without a final answer`);
        signal.throwIfAborted();
      }
      steps++;
      const stepIds = { turnId, stepId: steps };
      const stepEmit = (d: EventDraft): void => options.emit(d, stepIds);
      if (options.toolsReady) {
        await options.toolsReady();
        const next = options.tools.definitions();
        if (
          next.length !== definitions.length ||
          next.some((d, i) => d.name !== definitions[i]!.name || d.description !== definitions[i]!.description)
        ) {
          definitions = next;
          offered = shape.offer(options.tools);
          context.setTools(offered);
        }
      }
      // Budget-pressure compaction, at most once per turn; still critical afterwards -> budget_exceeded.
      const pressure = await context.beforeStep(messages, signal, stepEmit);
      const compacted = pressure.messages !== messages;
      replaceMessages(messages, pressure.messages);
      if (compacted) await afterCompaction(signal);
      if (pressure.terminate) {
        termination.request('budget_exceeded', pressure.terminate);
        signal.throwIfAborted();
      }
      let attemptNo = 0;
      let reply: ProviderReply;
      for (;;) {
        try {
          reply = await requestOnce(stepIds, stepEmit, signal, (n) => {
            attemptNo = n;
          });
          break;
        } catch (error) {
          // Recovery compaction: the provider said the context is too long. Once per turn; a
          // second context-length error stops the run with budget_exceeded.
          if (!(error instanceof ProviderCallError) || !error.contextLength || signal.aborted) throw error;
          const recovered = await context.onContextLength(messages, signal, stepEmit);
          replaceMessages(messages, recovered.messages);
          await afterCompaction(signal);
          if (recovered.terminate) {
            termination.request('budget_exceeded', `${error.message}; ${recovered.terminate}`);
            signal.throwIfAborted();
          }
        }
      }
      if (attemptNo > 0)
        stepEmit({
          type: 'recovery.completed',
          payload: {
            strategy: 'retry',
            result: `succeeded after ${attemptNo} ${attemptNo === 1 ? 'retry' : 'retries'}`,
          },
        });
      signal.throwIfAborted();
      messages.push(
        definedOnly({
          role: 'assistant',
          text: reply.text || undefined,
          toolCalls: reply.toolCalls.length ? reply.toolCalls : undefined,
          reasoning: reply.reasoning.length ? reply.reasoning : undefined,
        }),
      );
      if (reply.toolCalls.length === 0) {
        finalText = reply.text;
        if (typed && result === undefined) {
          resultMissed(signal, 'the model finished without calling submit_result');
          messages.push({ role: 'user', text: RESULT_MISSING });
          continue;
        }
        // A Stop hook may make the agent go on, with its reason as the next instruction.
        const stopped = hooks ? await hooks.onStop(reply.text, signal, stepEmit) : {};
        if (stopped.continueWith === undefined) return;
        messages.push({ role: 'user', text: maskForModel ? maskForModel(stopped.continueWith) : stopped.continueWith });
        continue;
      }
      const toolHooks = hooks?.toolHooks(signal, stepEmit);
      // Parallel tool calls run concurrently, each with its own id, duration and terminal event.
      const results = await Promise.all(
        reply.toolCalls.map((call) => {
          // A native-shaped call runs (and is reported) as our tool call; the conversation keeps the model's own.
          const shaped = shape.toOurs(call, environment.cwd);
          // A restart of Claude's shell runs in the shell's turn, after the commands before it.
          const restart = shaped.restartShell && shell ? () => shell.restart() : undefined;
          return executeToolCall({
            registry: shaped.outcome ? answeredWith(options.tools, shaped.outcome, restart) : options.tools,
            call: shaped.call,
            policy: environment.policy,
            onEvent: stepEmit,
            clock,
            checkpoints,
            hooks: toolHooks,
            // A model shown no images gets none again when the session is rebuilt.
            keepImages: acceptsImages(provider.model) ? options.keepImages : undefined,
            ctx: {
              cwd: environment.cwd,
              signal,
              approve,
              limits: environment.limits,
              tty: interaction.tty,
              env: environment.env,
              sandbox: environment.sandbox,
              promptAskText: interaction.promptAskText,
              fs: environment.fileSystem,
              terminal: environment.terminal,
              children,
              shell,
            },
          }).then((executed) => ({ call, executed }));
        }),
      );
      for (const { call, executed } of results) {
        // Known credential values never go to the provider (unless the config says so), masked
        // before the kernel cap so a value is not cut in two first; the cap is what the model
        // sees of one tool result (70% head + 30% tail).
        const content = maskForModel ? maskForModel(executed.content) : executed.content;
        messages.push(
          definedOnly({
            role: 'tool',
            toolCallId: call.id,
            name: call.name,
            content: kernelTruncate(content).text,
            isError: executed.isError || undefined,
          }),
        );
        if (executed.outcome.status === 'completed' && executed.outcome.result !== undefined)
          result = executed.outcome.result;
      }
      // Images a tool returned (read_image) go to the model in one user message after the
      // results; a model known to take none is told so instead of getting a provider error.
      const shown = results.flatMap(({ executed }) =>
        executed.outcome.status === 'completed' ? (executed.outcome.images ?? []) : [],
      );
      if (shown.length > 0) {
        const names = shown.map(imagePlaceholder).join(' ');
        messages.push(
          acceptsImages(provider.model)
            ? toolImagesMessage(shown.map(imagePartOf))
            : {
                role: 'user',
                text: `Model ${provider.model} takes no image input, so ${names} could not be shown to you.`,
                fromTools: true,
              },
        );
      }
      // A refused typed result is one attempt spent (a refusal after a valid one is not).
      for (const { call, executed } of results) {
        if (typed && result === undefined && call.name === 'submit_result' && executed.outcome.status === 'failed')
          resultMissed(signal, executed.outcome.message.split('\n').slice(0, 4).join(' '));
      }
      if (hooks?.stopReason !== undefined) hookStop(signal, hooks.stopReason);
      signal.throwIfAborted();
    }
  };

  const settled = await settleRun(termination, body, { timers: options.timers });
  disarm();
  // Before the terminal event: a client told the turn is over may undo it at once.
  await checkpoints?.turnEnded();
  await context.release();
  const durationMs = Math.max(0, clock() - startedAt);
  const reason = settled.reason;
  let error: ErrorInfo | undefined;
  if (reason === 'completed') {
    emit({ type: 'task.completed', payload: { taskId, reason: 'completed', durationMs, steps } });
  } else {
    const spec = REASON_ERRORS[reason];
    error =
      reason === 'provider' && lastError
        ? lastError
        : {
            category: spec.category,
            recoverability: spec.recoverability,
            code: settled.error?.code ?? 'MINICODE_E_INTERNAL',
            message: settled.error?.message ?? reason,
          };
    if (reason === 'aborted' || reason === 'timeout' || reason === 'budget_exceeded' || reason === 'hook_stopped') {
      emit({
        type: 'task.cancelled',
        payload: {
          taskId,
          reason,
          message: error.message,
          durationMs,
          ...(options.cancelCause ? { cause: options.cancelCause } : {}),
        },
      });
    } else {
      emit({ type: 'task.failed', payload: { taskId, reason, error, durationMs } });
    }
  }
  const out: AgentResult = { reason, finalText, steps, messages, usage: collector.session(), durationMs };
  if (result !== undefined) out.result = result;
  if (error) out.error = error;
  return out;
}

/** An image as the conversation carries it to every provider format. */
export function imagePartOf(image: ImageAttachment): ImagePart {
  return {
    mediaType: image.mediaType,
    data: Buffer.from(image.bytes).toString('base64'),
    name: image.name,
    width: image.width,
    height: image.height,
  };
}
