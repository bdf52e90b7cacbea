/**
 * One interactive session without a terminal: each prompt is a turn of one stored session
 * (`runPrompt` with `endSession: false`), the session ends once on exit, and a stored session
 * can be reopened (`--continue` / `--resume`) with its conversation rebuilt from durable
 * events. It also keeps what the footer and `/status` show: the kernel's context estimate and
 * the session's spend from the reducer state (evidence, not side counters).
 */
import { withToolNote } from '../agent/system-prompt.js';
import { toolShapeFor } from '../tools/shapes.js';
import { createShellSession } from '../tools/shell-session.js';
import { cacheHitRatio, inputIncludesCacheOf } from '../control/usage.js';
import { findPrice } from '../control/prices.js';
import { priceProviderOf } from '../agent/loop.js';
import { createContextEstimator, type ContextEstimator } from '../control/estimate.js';
import { preflight, type Budget } from '../control/budget.js';
import type { FixedContext, TranscriptMessage } from '../control/transcript.js';
import type { ConversationMessage } from '../agent/conversation.js';
import type { AgentResult } from '../agent/loop.js';
import { promptSettings, type PromptSettings } from '../agent/prompt-settings.js';
import type { Interaction } from '../agent/interaction.js';
import type { ProviderSettings } from '../agent/provider-settings.js';
import type { RunLimits } from '../agent/run-limits.js';
import type { ToolEnvironment } from '../agent/tool-environment.js';
import type { McpManager } from '../mcp/index.js';
import {
  appendToSession,
  endSession,
  hookTranscriptOf,
  runPrompt,
  type PromptRun,
  type PromptRunOptions,
} from '../agent/run-prompt.js';
import type { SessionStartSource } from '../agent/turn-hooks.js';
import { fromTranscript, toTranscript } from '../agent/context.js';
import { foldTranscript, type FoldResult } from '../control/fold.js';
import type { EventDraft, OutputEvent } from '../events/index.js';
import { MinicodeError } from '../errors.js';
import type { ApprovalPolicy } from '../policy/index.js';
import { createRebuilder, type ReducerState } from '../reducer/index.js';
import { viewOf } from '../render/index.js';
import type { EventStore } from '../store/index.js';
import type { CheckpointSettings } from '../checkpoints/settings.js';
import { createToolRegistry } from '../tools/index.js';
import { conversationFromEvents, storedImageBytes } from '../agent/history.js';
import { contextWindowOf, promptTokensOf, type Observed } from './observe.js';
import type { TurnTrace } from '../telemetry/chat-trace.js';
import { definedOnly } from '../defined-only.js';
import { PROVIDER_CONVENTIONS, type FormatConvention } from '../agent/provider-select.js';
import type { ProviderFormat } from '../agent/conversation.js';

/** Options of {@link createChatSession}. */
export interface ChatSessionOptions {
  /** Copied: `/model` changes the session's copy. */
  provider: ProviderSettings;
  /** The budget is the session's (`/budget` changes it); each turn gets what is left of it. */
  limits: RunLimits;
  /** The tools' environment of every turn (MCP tools, checkpoints before each turn's first change). */
  environment: ToolEnvironment;
  /** The config's MCP servers (for `/mcp`); absent when none is configured. */
  mcp?: McpManager | undefined;
  /** The system prompt (with the project instructions) of every turn; default minicode's own, no instructions. */
  prompting?: PromptSettings | undefined;
  store: EventStore;
  /** Default `Date.now`. */
  clock?: (() => number) | undefined;
  /** Reopen this stored session. */
  resume?: string | undefined;
  /** The session replaces one `/clear` ended: its first prompt runs SessionStart with source `clear`. */
  cleared?: boolean | undefined;
  /** OpenTelemetry: the span of each turn (given only when tracing is on). */
  traceTurn?: ((prompt: string, turn: number) => TurnTrace) | undefined;
}

/** What the terminal gives one turn: the images sent with its prompt, and its hooks. */
export interface TurnHooks {
  /** Images sent with the prompt (`@image.png`, a pasted image path); default none. */
  images?: PromptRunOptions['images'];
  renderer?: PromptRunOptions['renderer'];
  signal?: PromptRunOptions['signal'];
  promptApproval?: Interaction['promptApproval'];
  promptAskText?: Interaction['promptAskText'];
  onEvent?: PromptRunOptions['onEvent'];
}

/** A live interactive session. */
export interface ChatSession {
  /** Undefined until the first turn starts a new session. */
  readonly sessionId: string | undefined;
  readonly provider: ProviderSettings;
  /** What runs without asking (also for `!command`). */
  readonly policy: ApprovalPolicy;
  /** The system prompt and instruction files every turn sends (for `/status`). */
  readonly prompting: PromptSettings;
  /** Workspace checkpoints (for `/undo`, `/checkpoints`); absent when off. */
  readonly checkpoints: CheckpointSettings | undefined;
  /** The config's MCP servers (for `/mcp`); absent when none is configured. */
  readonly mcp: McpManager | undefined;
  budget: Budget | undefined;
  /** Stored events of a resumed session (to render its history). */
  readonly storedEvents: readonly OutputEvent[];
  /** Run one prompt as the next turn; refuses (MINICODE_E_BUDGET_EXCEEDED) when the budget preflight does. */
  turn(prompt: string, hooks: TurnHooks): Promise<PromptRun>;
  observed(): Observed;
  /** The conversation as the next request would carry it. */
  transcript(): TranscriptMessage[];
  /**
   * `/compact`: fold the conversation now (all but the last {@link MANUAL_KEEP_RECENT_UNITS}
   * units shortened to their heads), so the next request carries the shorter one; a
   * `context.compacted` event (reason `manual`) is stored when the session is. PreCompact hooks
   * run first, with trigger `manual`.
   */
  compact(): Promise<FoldResult>;
  /** End the session (once, when a turn ran in this process); SessionEnd's reason is `exit` unless `/clear` says `clear`. */
  close(reason?: 'exit' | 'clear'): Promise<void>;
}

/** Units (a prompt, a step with its tool results) `/compact` keeps verbatim: 2, the last exchange. */
export const MANUAL_KEEP_RECENT_UNITS = 2;

/** The newest stored `chat` session started in `cwd`, for `--continue`. */
export function latestChatSession(store: EventStore, cwd: string): string | undefined {
  for (const entry of store.listSessions()) {
    if (entry.origin !== 'chat') continue;
    for (const e of store.iterateSession(entry.sessionId)) {
      if (e.type === 'session.started' && e.payload.cwd === cwd) return entry.sessionId;
      break;
    }
  }
  return undefined;
}

/**
 * The run flags of a reopened session: its provider, model and base URL where the flags and
 * `MINICODE_PROVIDER` name none (a session started with `--model` against an OpenAI-compatible
 * `--base-url` reopens there with that model instead of failing with "no model given", or going
 * to the provider's public API). A provider named now wins, and then the stored model and base
 * URL go with it only when it is the same provider. The base URL is kept only when it is not
 * the provider's default and the provider's base URL variable (`OPENAI_BASE_URL`, ...) is unset:
 * a session on the default endpoint follows the environment and config as a new one would.
 */
export function resumeFlags<
  F extends { provider?: string | undefined; model?: string | undefined; baseUrl?: string | undefined },
>(flags: F, store: EventStore, sessionId: string, env: NodeJS.ProcessEnv): F {
  let started: { provider?: string | undefined; model?: string | undefined; baseUrl?: string | undefined } | undefined;
  for (const e of store.iterateSession(sessionId)) {
    if (e.type === 'session.started') started = e.payload;
    break;
  }
  if (!started?.provider) return flags;
  const named = flags.provider ?? (env.MINICODE_PROVIDER?.trim() || undefined);
  if (named !== undefined && named !== started.provider) return flags;
  const provider = named ?? started.provider;
  const convention = PROVIDER_CONVENTIONS[provider as ProviderFormat] as FormatConvention | undefined;
  const keepBase =
    flags.baseUrl === undefined &&
    started.baseUrl !== undefined &&
    convention !== undefined &&
    started.baseUrl !== convention.defaultBase &&
    !env[convention.baseVar]?.trim() &&
    // A base URL the scrubber masked (credentials in it) cannot be used again.
    !started.baseUrl.includes('[REDACTED');
  return {
    ...flags,
    provider,
    model: flags.model ?? started.model,
    ...(keepBase ? { baseUrl: started.baseUrl } : {}),
  };
}

/** Open an interactive session (new, or reopened from the store). */
export function createChatSession(options: ChatSessionOptions): ChatSession {
  const prompting = options.prompting ?? promptSettings();
  const fixed: FixedContext = {
    system: prompting.system.text,
    toolSchemas: createToolRegistry()
      .definitions()
      .map((d) => JSON.stringify(d)),
  };
  const estimator: ContextEstimator = createContextEstimator();
  let id: string | undefined;
  let nextSeq = 0;
  let state: ReducerState | undefined;
  let history: ConversationMessage[] = [];
  let turnNo = 1;
  let lastReason: AgentResult['reason'] | undefined;
  let approvals = 0;
  let storedEvents: OutputEvent[] = [];
  /** SessionStart's source before the next prompt: a resumed, cleared or compacted session says so; a new one is `startup` (the loop's default). */
  let nextStart: SessionStartSource | undefined = options.cleared ? 'clear' : undefined;

  if (options.resume !== undefined) {
    storedEvents = options.store.readSession(options.resume);
    if (storedEvents.length === 0)
      throw new MinicodeError('MINICODE_E_SESSION_NOT_FOUND', `no session ${options.resume} in ${options.store.dir}`, {
        action: 'run `minicode sessions` to list stored sessions',
      });
    const rebuilder = createRebuilder({ sessionId: options.resume });
    for (const e of storedEvents) {
      rebuilder.push(e);
      if (e.type === 'user.approval.requested') approvals++;
    }
    state = rebuilder.unsettled();
    id = options.resume;
    nextSeq = (storedEvents[storedEvents.length - 1]?.seq ?? -1) + 1;
    history = conversationFromEvents(storedEvents, storedImageBytes(options.store)).messages;
    turnNo = state.taskOrder.length + state.retired.tasks + 1;
    nextStart = 'resume';
  }

  const includesCache = (): boolean => {
    const priceProvider = priceProviderOf(session.provider.format);
    return inputIncludesCacheOf(priceProvider, findPrice(priceProvider, session.provider.model));
  };

  const spend = (): { usage: Observed['usage']; costUsd?: number } => {
    if (!state) return { usage: {} };
    const run = viewOf(state).run();
    return run.costUsd !== undefined ? { usage: run.usage, costUsd: run.costUsd } : { usage: run.usage };
  };

  /** Store events between turns; nothing while the session is not stored yet (no prompt sent). */
  const append = async (drafts: readonly EventDraft[]): Promise<void> => {
    if (id === undefined || state === undefined) return;
    const r = await appendToSession(
      {
        sessionId: id,
        startSeq: nextSeq,
        state,
        store: options.store,
        clock: options.clock,
        env: options.environment.env,
      },
      drafts,
    );
    state = r.state;
    nextSeq = r.nextSeq;
  };

  // Claude's bash keeps its working directory and variables from one turn to the next, as in one shell.
  const shell = createShellSession(options.environment.cwd);
  const session: ChatSession = {
    get sessionId() {
      return id;
    },
    provider: { ...options.provider },
    policy: options.environment.policy,
    // What /status shows is what a turn sends: with the tool shape's note runPrompt adds.
    prompting: {
      ...prompting,
      system: withToolNote(
        prompting.system,
        toolShapeFor(options.provider.format, options.provider.model, options.environment.toolShapes).noteFor(
          () => true,
        ),
      ),
    },
    checkpoints: options.environment.checkpoints,
    mcp: options.mcp,
    budget: options.limits.budget,
    get storedEvents() {
      return storedEvents;
    },
    async turn(prompt, hooks) {
      const { usage, costUsd } = spend();
      const budget = session.budget;
      if (budget) {
        const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
        const decision = preflight(budget, { tokens, costUsd });
        if (!decision.allowed) {
          throw new MinicodeError(
            'MINICODE_E_BUDGET_EXCEEDED',
            decision.reason === 'over'
              ? 'the session is over its budget'
              : 'the session cost is unknown under --budget-strict',
            {
              action: 'raise it with /budget USD',
            },
          );
        }
      }
      let lastInput: number | undefined;
      const trace = options.traceTurn?.(prompt, turnNo);
      const run = await runPrompt({
        origin: 'chat',
        prompt,
        images: hooks.images,
        provider: session.provider,
        // The run's watcher sees this turn's cost only: give it what is left of the session's budget.
        limits: {
          ...options.limits,
          budget: budget ? { ...budget, limitUsd: Math.max(0, budget.limitUsd - (costUsd ?? 0)) } : undefined,
        },
        environment: options.environment,
        prompting,
        shell,
        interaction: {
          tty: true,
          promptApproval: hooks.promptApproval,
          promptAskText: hooks.promptAskText,
          nextApprovalId: () => `approval-${++approvals}`,
        },
        store: options.store,
        endSession: false,
        sessionStart: nextStart,
        session: id !== undefined && state ? { id, startSeq: nextSeq, state, history, turn: turnNo } : undefined,
        clock: options.clock,
        renderer: hooks.renderer,
        signal: hooks.signal,
        onEvent: (event, s) => {
          // The window holds the whole prompt: cached tokens count even where the provider reports them apart.
          if (event.type === 'usage.reported' && event.payload.scope === 'request')
            lastInput = promptTokensOf(event.payload.usage, includesCache()) ?? lastInput;
          trace?.onEvent(event);
          hooks.onEvent?.(event, s);
        },
      }).catch((error: unknown) => {
        trace?.end({ ok: false, error: error instanceof MinicodeError ? error.code : 'error' });
        throw error;
      });
      trace?.end(
        run.result.reason === 'completed'
          ? { ok: true }
          : { ok: false, error: run.result.error?.code ?? run.result.reason },
      );
      nextStart = undefined;
      id = run.sessionId;
      nextSeq = run.nextSeq;
      state = run.state;
      history = run.result.messages;
      lastReason = run.result.reason;
      turnNo++;
      // Anchor the estimate: the last request carried everything but the final answer.
      const transcript = toTranscript(history, session.provider.format, session.provider.tuning?.imageDetail);
      if (lastInput !== undefined && run.result.reason === 'completed')
        estimator.observeUsage(lastInput, fixed, transcript, Math.max(0, transcript.length - 1));
      return run;
    },
    observed() {
      const { usage, costUsd } = spend();
      const window = contextWindowOf(session.provider.model);
      const hit = cacheHitRatio(usage, includesCache());
      return definedOnly({
        contextTokens: estimator.estimate(
          fixed,
          toTranscript(history, session.provider.format, session.provider.tuning?.imageDetail),
        ),
        anchored: estimator.anchor !== undefined,
        windowTokens: window,
        usage,
        costUsd,
        cacheHitRatio: hit,
        budget: session.budget,
        model: session.provider.model,
        approvalMode: options.environment.policy.mode,
        sandbox: options.environment.sandbox
          ? {
              mode: options.environment.sandbox.mode,
              network: options.environment.sandbox.network,
              allowHosts: options.environment.sandbox.allowHosts,
            }
          : undefined,
      });
    },
    transcript: () => toTranscript(history, session.provider.format, session.provider.tuning?.imageDetail),
    async compact() {
      if (id !== undefined && options.environment.hooks) {
        const { runManualCompactHooks } = await import('../agent/turn-hooks.js');
        const drafts: EventDraft[] = [];
        const sessionId = id;
        await runManualCompactHooks({
          environment: options.environment,
          sessionId,
          emit: (d) => drafts.push(d),
          transcript: await hookTranscriptOf(options.store, sessionId, async () => undefined),
        });
        if (drafts.length > 0) await append(drafts);
      }
      // The last prompt is pinned as in the loop's compaction: what was asked last stays whole.
      const fold = foldTranscript(
        toTranscript(history, session.provider.format, session.provider.tuning?.imageDetail),
        {
          keepRecentUnits: MANUAL_KEEP_RECENT_UNITS,
        },
      );
      if (!fold.changed) return fold;
      history = fromTranscript(fold.messages, history);
      estimator.invalidate();
      // SessionStart hooks with source `compact` run before the next prompt, their context with it.
      nextStart = 'compact';
      await append([
        {
          type: 'context.compacted',
          payload: {
            reason: 'manual',
            strategy: 'mechanical',
            beforeTokens: fold.beforeTokens,
            afterTokens: fold.afterTokens,
            removedMessages: fold.removedMessages,
            ...(fold.removedImages > 0 ? { removedImages: fold.removedImages } : {}),
            keepRecentUnits: MANUAL_KEEP_RECENT_UNITS,
            removedUnits: fold.removedUnits,
          },
        },
      ]);
      return fold;
    },
    async close(reason = 'exit') {
      if (id === undefined || state === undefined || lastReason === undefined) return;
      state = await endSession({
        sessionId: id,
        startSeq: nextSeq,
        state,
        reason: lastReason,
        store: options.store,
        clock: options.clock,
        env: options.environment.env,
        environment: options.environment,
        hookReason: reason,
      });
      lastReason = undefined;
    },
  };
  return session;
}
