/**
 * The loop's side of the control plane's compaction (control-plane §3): the conversation the
 * loop keeps (`conversation.ts`, with provider-specific reasoning items) is mapped to the
 * control plane's neutral transcript, measured against the model's context window by the
 * anchored estimator, and compacted by `createCompactionController` — pressure compaction
 * before a request at >= 75% of the window, recovery compaction after a context-length error.
 *
 * The compaction module (and with it the worker pool) is imported only when a run first
 * reaches the threshold: a short `exec` never loads it.
 */
import type { EventDraft, Usage } from '../events/index.js';
import type { CompactionController } from '../control/compaction.js';
import { createContextEstimator } from '../control/estimate.js';
import type { FoldOptions, FoldResult } from '../control/fold.js';
import type { FixedContext, TranscriptImage, TranscriptMessage } from '../control/transcript.js';
import { imagePlaceholder } from '../images/placeholder.js';
import { imageTokens, type OpenAiImageDetail } from '../images/tokens.js';
import type { ConversationMessage, ImagePart, ProviderFormat, ToolSpec } from './conversation.js';
import { definedOnly } from '../defined-only.js';

/** Pressure (estimated tokens / window) at which the budget path compacts: 0.75. */
export const PRESSURE_THRESHOLD = 0.75;

/** A user message's images as the transcript carries them: placeholder and tokens by `format`'s rule at the `detail` sent. */
function transcriptImages(
  images: readonly ImagePart[],
  format: ProviderFormat,
  detail: OpenAiImageDetail | undefined,
): TranscriptImage[] {
  return images.map((i) => ({
    placeholder: imagePlaceholder({ name: i.name, mediaType: i.mediaType, width: i.width, height: i.height }),
    tokens: imageTokens(format, i.width, i.height, detail),
  }));
}

/**
 * Map the loop's conversation to the control plane's transcript (reasoning items are not
 * context the fold can shorten); images count as `format`'s provider counts them, at the
 * `imageDetail` the OpenAI formats send (the provider's tuning; default `auto`). The last
 * user message (not counting the images tools returned) is the task of the running turn: it is
 * pinned, so a compaction never folds or removes what the agent was asked to do (nor its images).
 */
export function toTranscript(
  messages: readonly ConversationMessage[],
  format: ProviderFormat,
  imageDetail?: OpenAiImageDetail,
): TranscriptMessage[] {
  let task = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !m.fromTools) task = i;
  });
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every role (tsc checks it is exhaustive).
  return messages.map((m, i): TranscriptMessage => {
    switch (m.role) {
      case 'user': {
        const out: TranscriptMessage =
          i === task ? { role: 'user', text: m.text, pinned: true } : { role: 'user', text: m.text };
        if (m.images?.length) out.images = transcriptImages(m.images, format, imageDetail);
        return out;
      }
      case 'tool':
        return { role: 'tool', toolCallId: m.toolCallId, content: m.content };
      case 'assistant': {
        const out: TranscriptMessage = { role: 'assistant', text: m.text ?? '' };
        if (m.toolCalls?.length)
          out.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, argumentsText: c.argumentsText }));
        return out;
      }
    }
  });
}

function keyOf(m: TranscriptMessage): string {
  switch (m.role) {
    case 'system':
    case 'user':
      return `${m.role}\u0000${m.text}\u0000${m.role === 'user' ? (m.images?.length ?? 0) : 0}`;
    case 'tool':
      return `tool\u0000${m.toolCallId}\u0000${m.content}`;
    case 'assistant':
      return `assistant\u0000${m.text}\u0000${(m.toolCalls ?? []).map((c) => c.id).join(',')}`;
  }
}

/**
 * Map a compacted transcript back. A message the compaction left as it was is the original
 * (its reasoning items and signatures intact, which Anthropic requires on the latest turn); a
 * folded one keeps its tool names and call signatures from the originals by id.
 */
export function fromTranscript(
  compacted: readonly TranscriptMessage[],
  originals: readonly ConversationMessage[],
): ConversationMessage[] {
  const unchanged = new Map<string, ConversationMessage[]>();
  // The format only prices images, which the keys below do not read.
  const source = toTranscript(originals, 'openai-chat');
  source.forEach((t, i) => {
    const k = keyOf(t);
    const list = unchanged.get(k);
    if (list) list.push(originals[i]!);
    else unchanged.set(k, [originals[i]!]);
  });
  const tools = new Map<string, { name: string; isError?: boolean }>();
  const calls = new Map<
    string,
    NonNullable<Extract<ConversationMessage, { role: 'assistant' }>['toolCalls']>[number]
  >();
  for (const m of originals) {
    if (m.role === 'tool') tools.set(m.toolCallId, definedOnly({ name: m.name, isError: m.isError || undefined }));
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  }
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every role (tsc checks it is exhaustive).
  return compacted.map((m): ConversationMessage => {
    const same = unchanged.get(keyOf(m))?.shift();
    if (same) return same;
    switch (m.role) {
      case 'system':
      case 'user':
        return { role: 'user', text: m.text };
      case 'tool': {
        const t = tools.get(m.toolCallId);
        return definedOnly({
          role: 'tool',
          toolCallId: m.toolCallId,
          name: t?.name ?? 'tool',
          content: m.content,
          isError: t?.isError ? true : undefined,
        });
      }
      case 'assistant':
        return definedOnly({
          role: 'assistant',
          text: m.text || undefined,
          toolCalls: m.toolCalls?.length ? m.toolCalls.map((c) => calls.get(c.id) ?? c) : undefined,
        });
    }
  });
}

/** What the loop does next. */
export interface ContextDecision {
  /** The conversation to send (compacted, or the same array when nothing happened). */
  messages: ConversationMessage[];
  /** Still critical after compaction, or a second context-length error: stop with `budget_exceeded`. */
  terminate?: string;
}

/** Options of {@link createContextManager}. */
export interface ContextManagerOptions {
  format: ProviderFormat;
  /** The `detail` the OpenAI formats send with images (the provider's tuning); default `auto`. */
  imageDetail?: OpenAiImageDetail | undefined;
  /** The model's context window in tokens. */
  window: number;
  system: string;
  tools: readonly ToolSpec[];
  turn: number;
  /** Awaited right before a compaction starts (the PreCompact hooks); default nothing. */
  beforeCompact?: (() => Promise<void>) | undefined;
  /** The run's task: a compaction in progress is told as its `task.progress`. */
  taskId: string;
}

/** The per-run context keeper. */
export interface ContextManager {
  /** The provider reported usage for a request built from the first `messageCount` messages. */
  observe(usage: Usage | undefined, messages: readonly ConversationMessage[], messageCount: number): void;
  /** Before a request: compact once at >= 75% of the window. */
  beforeStep(
    messages: ConversationMessage[],
    signal: AbortSignal,
    emit: (d: EventDraft) => void,
  ): Promise<ContextDecision>;
  /** After a context-length error: compact once per turn, then retry; a second one stops the run. */
  onContextLength(
    messages: ConversationMessage[],
    signal: AbortSignal,
    emit: (d: EventDraft) => void,
  ): Promise<ContextDecision>;
  /** Let go of the worker pool (closed when no other holder, such as a batch, keeps it). */
  release(): Promise<void>;
  /** The tools sent with each request changed (an MCP server's list changed mid-run). */
  setTools(tools: readonly ToolSpec[]): void;
}

/** Create the context keeper of one run (one turn). */
export function createContextManager(options: ContextManagerOptions): ContextManager {
  const estimator = createContextEstimator();
  const fixed: FixedContext = { system: options.system, toolSchemas: options.tools.map((t) => JSON.stringify(t)) };
  let controller: CompactionController | undefined;
  let sink: (d: EventDraft) => void = () => {};
  let releasePool: (() => Promise<void>) | undefined;

  const load = async (): Promise<CompactionController> => {
    if (controller) return controller;
    const [{ createCompactionController }, { foldTranscript }, { compactInPool, FOLD_IN_POOL_CHARS }, { holdPool }] =
      await Promise.all([
        import('../control/compaction.js'),
        import('../control/fold.js'),
        import('../control/offload.js'),
        import('../control/pool.js'),
      ]);
    // Held, not owned: a batch may share the pool, and only its last holder closes it.
    releasePool = holdPool();
    const fold = async (
      messages: readonly TranscriptMessage[],
      foldOptions: FoldOptions,
      signal?: AbortSignal,
    ): Promise<FoldResult> => {
      let chars = 0;
      for (const m of messages) chars += m.role === 'tool' ? m.content.length : m.text.length;
      // Small folds stay here: encoding for the pool would stall this loop longer than folding does.
      if (chars < FOLD_IN_POOL_CHARS) return foldTranscript(messages, foldOptions);
      const r = await compactInPool(messages, foldOptions, signal ? { signal } : {});
      if (!r.ok) throw r.error;
      return r.value;
    };
    controller = createCompactionController({
      contextWindow: options.window,
      pressureThreshold: PRESSURE_THRESHOLD,
      estimator,
      fold,
      onEvent: (d) => sink(d),
      beforeCompact: options.beforeCompact ? () => options.beforeCompact!() : undefined,
      onCompacting: () =>
        sink({ type: 'task.progress', payload: { taskId: options.taskId, message: 'compacting the conversation' } }),
    });
    controller.beginTurn(options.turn);
    return controller;
  };

  const apply = (
    messages: ConversationMessage[],
    compacted: TranscriptMessage[],
    terminate: boolean,
    pressure: number,
  ): ContextDecision => {
    const next = fromTranscript(compacted, messages);
    return terminate
      ? {
          messages: next,
          terminate: `the context is still at ${Math.round(pressure * 100)}% of the model's ${options.window}-token window after compaction`,
        }
      : { messages: next };
  };

  return {
    observe(usage, messages, messageCount) {
      // Unknown stays unknown: no usage moves no anchor.
      if (usage?.inputTokens === undefined) return;
      // Anthropic counts cached input apart from `input_tokens`; the window holds all of it.
      const input =
        options.format === 'anthropic'
          ? usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
          : usage.inputTokens;
      estimator.observeUsage(input, fixed, toTranscript(messages, options.format, options.imageDetail), messageCount);
    },
    async beforeStep(messages, signal, emit) {
      const transcript = toTranscript(messages, options.format, options.imageDetail);
      if (!controller && estimator.estimate(fixed, transcript) / options.window < PRESSURE_THRESHOLD)
        return { messages };
      const c = await load();
      sink = emit;
      const d = await c.beforeStep({ turn: options.turn, fixed, messages: transcript, signal });
      if (d.action === 'continue' && !d.compacted) return { messages };
      return apply(messages, d.messages, d.action === 'terminate', d.pressure);
    },
    async onContextLength(messages, signal, emit) {
      const c = await load();
      sink = emit;
      const d = await c.onContextLengthError({
        turn: options.turn,
        fixed,
        messages: toTranscript(messages, options.format, options.imageDetail),
        signal,
      });
      return apply(messages, d.messages, d.action === 'terminate', d.pressure);
    },
    async release() {
      await releasePool?.();
    },
    setTools(tools) {
      fixed.toolSchemas = tools.map((t) => JSON.stringify(t));
    },
  };
}
