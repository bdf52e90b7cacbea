/**
 * The compaction contract (control-plane §3): the kernel decides WHEN to compact and what to
 * fall back to; an LLM, when given, decides only the summary's CONTENT.
 *
 * Two paths with separate once-per-turn flags:
 * - budget pressure ({@link CompactionController.beforeStep}): at pressure >= 0.75, once per turn;
 *   the flag is set when compaction is ATTEMPTED (no O(n) retry every step). Still critical
 *   afterwards (or critical again later in the turn) -> `budget_exceeded`.
 * - recovery ({@link CompactionController.onContextLengthError}): the provider said the context
 *   is too long; the flag is set AFTER compacting, the retried request is not a provider retry,
 *   and a second context-length error in the turn -> `budget_exceeded`.
 * Both may happen in the same turn; two of the same kind may not.
 *
 * Only messages are eligible: the system prompt (capped upstream) and tool schemas are fixed
 * overhead, never compacted. A summary hook gets 10 s; failure or timeout falls back to the
 * mechanical fold (in the pool, and in-process if the pool itself fails), so compaction can
 * never crash-loop. The summary call's usage goes to the usage collector with scope
 * `compaction`.
 */
import { draft } from '../events/draft.js';
import type { EventDraft } from '../events/index.js';
import type { Usage } from '../events/payloads.js';
import { toPlainError, type ErrorCode } from '../errors.js';
import { estimateFixedTokens, estimateMessagesTokens, type ContextEstimator } from './estimate.js';
import { foldTranscript, type FoldOptions, type FoldResult } from './fold.js';
import { compactInPool } from './offload.js';
import { joinSignals } from './termination.js';
import { realTimers, type Timers } from './timers.js';
import { groupUnits, type FixedContext, type TranscriptMessage } from './transcript.js';
import type { UsageCollector } from './usage.js';

/** What a summary hook returns: the summary text and the call's usage (may be absent). */
export interface SummaryResult {
  text: string;
  usage?: Usage;
  provider: string;
  model: string;
}

/** An LLM summary call over the messages to be replaced. Must honour `signal`. */
export type SummaryHook = (input: { messages: TranscriptMessage[]; signal: AbortSignal }) => Promise<SummaryResult>;

/** Options of {@link createCompactionController}; defaults from the contract. */
export interface CompactionOptions {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Pressure at which the budget path compacts; default 0.75. */
  pressureThreshold?: number;
  /** Pressure that stops the run after compaction; default 0.95. */
  criticalThreshold?: number;
  /** Pressure the mechanical fold aims for; default 0.5. */
  targetPressure?: number;
  /** Most recent units kept verbatim; default 4. */
  keepRecentUnits?: number;
  summarize?: SummaryHook;
  /** Limit of the summary call in ms; default 10 000. */
  summaryTimeoutMs?: number;
  timers?: Timers;
  /** Where the summary call's usage is recorded. */
  usage?: UsageCollector;
  /** The run's estimator: invalidated after a compaction, used for pressure when given. */
  estimator?: ContextEstimator;
  /** The mechanical fold; default: in the worker pool. */
  fold?: (messages: readonly TranscriptMessage[], options: FoldOptions, signal?: AbortSignal) => Promise<FoldResult>;
  /** Receives `context.compacted`, `usage.reported` and `diagnostic.raised` drafts. */
  onEvent?: (event: EventDraft) => void;
  /** Awaited right before a compaction starts (the PreCompact hooks); default nothing. */
  beforeCompact?: ((input: StepInput) => Promise<void>) | undefined;
  /** Called as a compaction begins (before a summary call or a fold), so a surface can say so while it runs. */
  onCompacting?: () => void;
}

/** What the kernel reads before a step or after a context-length error. */
export interface StepInput {
  turn: number;
  fixed: FixedContext;
  messages: TranscriptMessage[];
  signal?: AbortSignal;
}

/** The decision: go on (possibly with a compacted transcript) or stop with `budget_exceeded`. */
export interface StepDecision {
  action: 'continue' | 'terminate';
  reason?: 'budget_exceeded';
  messages: TranscriptMessage[];
  pressure: number;
  /** The `context.compacted` draft when a compaction happened. */
  compacted?: EventDraft;
}

/** The per-session controller the kernel keeps. */
export interface CompactionController {
  /** A new turn: both flags reset. */
  beginTurn(turn: number): void;
  /** Budget-pressure path, before each provider request. */
  beforeStep(input: StepInput): Promise<StepDecision>;
  /** Recovery path, after a context-length error. `continue` = retry the request. */
  onContextLengthError(input: StepInput): Promise<StepDecision>;
  /** The two flags of the current turn. */
  readonly flags: { compactedForBudget: boolean; compactedForRecovery: boolean };
}

/** One compaction's outcome. */
interface Compacted extends FoldResult {
  strategy: 'mechanical' | 'llm';
}

const pressureLabel = (p: number): string => p.toFixed(2);

/** Create a compaction controller. */
export function createCompactionController(options: CompactionOptions): CompactionController {
  const threshold = options.pressureThreshold ?? 0.75;
  const critical = options.criticalThreshold ?? 0.95;
  const targetPressure = options.targetPressure ?? 0.5;
  const keep = options.keepRecentUnits ?? 4;
  const summaryTimeoutMs = options.summaryTimeoutMs ?? 10_000;
  const timers = options.timers ?? realTimers;
  const emit = options.onEvent ?? (() => {});
  const fold = options.fold ?? poolFold;
  const window = options.contextWindow;
  const flags = { compactedForBudget: false, compactedForRecovery: false };
  let turn = 0;
  let summaries = 0;

  const tokensOf = (fixed: FixedContext, messages: readonly TranscriptMessage[]): number =>
    options.estimator
      ? options.estimator.estimate(fixed, messages)
      : estimateFixedTokens(fixed) + estimateMessagesTokens(messages);

  async function compactOnce(input: StepInput): Promise<Compacted> {
    const fixedTokens = estimateFixedTokens(input.fixed);
    if (options.summarize) {
      const viaLlm = await trySummary(input);
      if (viaLlm) return viaLlm;
    }
    const foldOptions: FoldOptions = {
      keepRecentUnits: keep,
      targetTokens: Math.max(0, Math.floor(window * targetPressure) - fixedTokens),
    };
    try {
      return { ...(await fold(input.messages, foldOptions, input.signal)), strategy: 'mechanical' };
    } catch (error) {
      if (input.signal?.aborted) throw input.signal.reason;
      // The pool failed (crash, missing build): fold here rather than fail the compaction.
      emitDiagnostic(
        'MINICODE_E_WORKER',
        `compaction fold fell back to the main thread: ${toPlainError(error).message}`,
      );
      return { ...foldTranscript(input.messages, foldOptions), strategy: 'mechanical' };
    }
  }

  async function trySummary(input: StepInput): Promise<Compacted | undefined> {
    const units = groupUnits(input.messages);
    const older = Math.max(0, units.length - keep);
    const boundary = older > 0 ? (units[older - 1]?.end ?? 0) : 0;
    const head = input.messages.slice(0, boundary);
    // Pinned summaries and system messages stay verbatim; everything else older is summarised.
    const kept = head.filter((m) => m.role === 'system' || (m.role === 'user' && m.pinned === true));
    const replaced = head.filter((m) => !(m.role === 'system' || (m.role === 'user' && m.pinned === true)));
    if (replaced.length === 0) return undefined;
    const limit = new AbortController();
    const handle = timers.setTimeout(
      () => limit.abort({ code: 'MINICODE_E_TIMEOUT', message: `summary exceeded ${summaryTimeoutMs} ms` }),
      summaryTimeoutMs,
    );
    const joined = joinSignals(input.signal, limit.signal);
    try {
      const summary = await raceSignal(
        options.summarize!({ messages: replaced, signal: joined.signal }),
        joined.signal,
      );
      if (summary.usage || options.usage) recordSummaryUsage(summary);
      const pinned: TranscriptMessage = {
        role: 'user',
        pinned: true,
        text: `[minicode: summary of ${replaced.length} earlier messages]\n${summary.text}`,
      };
      const messages = [...kept, pinned, ...input.messages.slice(boundary)];
      const beforeTokens = estimateMessagesTokens(input.messages);
      const afterTokens = estimateMessagesTokens(messages);
      const removedImages = replaced.reduce((n, m) => n + (m.role === 'user' ? (m.images?.length ?? 0) : 0), 0);
      return {
        messages,
        beforeTokens,
        afterTokens,
        removedMessages: replaced.length,
        removedUnits: 0,
        foldedMessages: 0,
        removedImages,
        changed: true,
        strategy: 'llm',
      };
    } catch (error) {
      if (input.signal?.aborted) throw input.signal.reason;
      emitDiagnostic(
        'MINICODE_E_COMPACTION_FALLBACK',
        `LLM summary failed (${toPlainError(error).message}); folded mechanically instead`,
      );
      return undefined;
    } finally {
      timers.clearTimeout(handle);
      joined.dispose();
    }
  }

  function recordSummaryUsage(summary: SummaryResult): void {
    const requestId = `compaction:${turn}:${++summaries}`;
    if (!options.usage) {
      if (summary.usage)
        emit(
          draft(
            'usage.reported',
            { usage: summary.usage, cumulative: false, scope: 'compaction', model: summary.model },
            { turnId: turn },
          ),
        );
      return;
    }
    options.usage.begin(requestId, { provider: summary.provider, model: summary.model, turn, scope: 'compaction' });
    // Absent usage stays absent: the request exists, its tokens are unknown.
    if (summary.usage) {
      emit(
        options.usage.record({
          requestId,
          usage: summary.usage,
          cumulative: false,
          scope: 'compaction',
          provider: summary.provider,
          model: summary.model,
          turn,
        }),
      );
    }
  }

  function emitDiagnostic(code: ErrorCode, message: string): void {
    emit(draft('diagnostic.raised', { code, message, category: 'AGENT_ERROR' }, { turnId: turn, severity: 'warning' }));
  }

  function compactedDraft(reason: string, c: Compacted): EventDraft {
    const d = draft(
      'context.compacted',
      {
        reason,
        strategy: c.strategy,
        beforeTokens: c.beforeTokens,
        afterTokens: c.afterTokens,
        removedMessages: c.removedMessages,
        ...(c.removedImages > 0 ? { removedImages: c.removedImages } : {}),
        // A mechanical fold that changed the conversation is repeated when the session is rebuilt.
        ...(c.strategy === 'mechanical' && c.changed ? { keepRecentUnits: keep, removedUnits: c.removedUnits } : {}),
      },
      { turnId: turn },
    );
    emit(d);
    return d;
  }

  return {
    beginTurn(next) {
      turn = next;
      flags.compactedForBudget = false;
      flags.compactedForRecovery = false;
    },
    async beforeStep(input) {
      const pressure = tokensOf(input.fixed, input.messages) / window;
      if (pressure < threshold) return { action: 'continue', messages: input.messages, pressure };
      if (flags.compactedForBudget) {
        // Already tried this turn: never again (anti-loop); critical means stop, not retry.
        return pressure >= critical
          ? { action: 'terminate', reason: 'budget_exceeded', messages: input.messages, pressure }
          : { action: 'continue', messages: input.messages, pressure };
      }
      flags.compactedForBudget = true; // set when attempted
      await options.beforeCompact?.(input);
      options.onCompacting?.();
      const c = await compactOnce(input);
      options.estimator?.invalidate();
      const reason = `pressure:${pressureLabel(pressure)}${c.changed ? '' : ':no-op'}`;
      const compacted = compactedDraft(reason, c);
      const after = tokensOf(input.fixed, c.messages) / window;
      if (after >= critical)
        return { action: 'terminate', reason: 'budget_exceeded', messages: c.messages, pressure: after, compacted };
      return { action: 'continue', messages: c.messages, pressure: after, compacted };
    },
    async onContextLengthError(input) {
      const pressure = tokensOf(input.fixed, input.messages) / window;
      if (flags.compactedForRecovery)
        return { action: 'terminate', reason: 'budget_exceeded', messages: input.messages, pressure };
      await options.beforeCompact?.(input);
      options.onCompacting?.();
      const c = await compactOnce(input);
      flags.compactedForRecovery = true; // set after compacting
      options.estimator?.invalidate();
      const compacted = compactedDraft('recovery', c);
      return {
        action: 'continue',
        messages: c.messages,
        pressure: tokensOf(input.fixed, c.messages) / window,
        compacted,
      };
    },
    get flags() {
      return { ...flags };
    },
  };
}

/** The default fold: in the worker pool; a pool failure is thrown to trigger the in-process fold. */
async function poolFold(
  messages: readonly TranscriptMessage[],
  options: FoldOptions,
  signal?: AbortSignal,
): Promise<FoldResult> {
  const r = await compactInPool(messages, options, signal ? { signal } : {});
  if (!r.ok) {
    if (r.error.code === 'MINICODE_E_ABORTED' && signal?.aborted) throw signal.reason;
    throw r.error;
  }
  return r.value;
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
