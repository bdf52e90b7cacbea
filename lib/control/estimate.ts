/**
 * Logical context estimation: the heuristic size of a transcript plus its fixed overhead
 * (system prompt, tool schemas), anchored to the last input-token count the provider reported.
 * `estimate = reported input tokens + heuristic(messages added since)`, with the heuristic
 * scaled by a correction factor learnt from the provider's own counts as the run goes.
 */
import { DEFAULT_DENSITIES, estimateTextTokens, type DensityTable } from './density.js';
import type { FixedContext, TranscriptMessage } from './transcript.js';

/** Heuristic tokens of one message, including its per-message framing and its images' provider-counted tokens. */
export function estimateMessageTokens(m: TranscriptMessage, table: Readonly<DensityTable> = DEFAULT_DENSITIES): number {
  let n = table.perMessage;
  switch (m.role) {
    case 'system':
      n += estimateTextTokens(m.text, table);
      break;
    case 'user':
      n += estimateTextTokens(m.text, table);
      // An image counts as its provider counts it, not as its placeholder text.
      for (const image of m.images ?? []) n += image.tokens;
      break;
    case 'tool':
      n += estimateTextTokens(m.content, table);
      break;
    case 'assistant':
      n += estimateTextTokens(m.text, table);
      if (m.reasoning) n += estimateTextTokens(m.reasoning, table);
      for (const c of m.toolCalls ?? [])
        n += 3 + estimateTextTokens(c.name, table) + estimateTextTokens(c.argumentsText, table);
      break;
  }
  return n;
}

/** Heuristic tokens of a list of messages. */
export function estimateMessagesTokens(
  messages: readonly TranscriptMessage[],
  table: Readonly<DensityTable> = DEFAULT_DENSITIES,
): number {
  let n = 0;
  for (const m of messages) n += estimateMessageTokens(m, table);
  return n;
}

/** Heuristic tokens of the fixed overhead: system prompt and tool schemas. */
export function estimateFixedTokens(fixed: FixedContext, table: Readonly<DensityTable> = DEFAULT_DENSITIES): number {
  let n = fixed.system ? table.perMessage + estimateTextTokens(fixed.system, table) : 0;
  for (const s of fixed.toolSchemas) n += estimateTextTokens(s, table);
  return n;
}

/** Options of {@link createContextEstimator}. */
export interface ContextEstimatorOptions {
  densities?: DensityTable;
  /** Smoothing of the correction factor (weight of the newest observation); default 0.5. */
  learningRate?: number;
  /** The correction factor stays within [1/maxCorrection, maxCorrection]; default 2. */
  maxCorrection?: number;
}

/** The anchored estimator a run keeps (the kernel's `contextTokens`). */
export interface ContextEstimator {
  /**
   * Estimated tokens of the next request. Uses the anchor when there is one and the transcript
   * still starts with the anchored prefix (same `generation`); otherwise the scaled heuristic.
   */
  estimate(fixed: FixedContext, messages: readonly TranscriptMessage[]): number;
  /**
   * The provider reported `inputTokens` for a request built from `fixed` + the first
   * `messageCount` messages of `messages`. Moves the anchor and corrects the heuristic.
   */
  observeUsage(
    inputTokens: number | undefined,
    fixed: FixedContext,
    messages: readonly TranscriptMessage[],
    messageCount?: number,
  ): void;
  /** The transcript was rewritten (compaction): the anchor no longer describes a prefix. */
  invalidate(): void;
  /** Multiplier applied to the heuristic (1 until the provider reports usage). */
  readonly correction: number;
  /** The anchor, for /status and tests. */
  readonly anchor: { inputTokens: number; messageCount: number } | undefined;
}

/** Create an anchored context estimator. */
export function createContextEstimator(options: ContextEstimatorOptions = {}): ContextEstimator {
  const table = options.densities ?? DEFAULT_DENSITIES;
  const rate = options.learningRate ?? 0.5;
  const maxCorrection = options.maxCorrection ?? 2;
  let correction = 1;
  let anchor: { inputTokens: number; messageCount: number } | undefined;

  const heuristic = (fixed: FixedContext, messages: readonly TranscriptMessage[]): number =>
    estimateFixedTokens(fixed, table) + estimateMessagesTokens(messages, table);

  return {
    estimate(fixed, messages) {
      if (anchor && messages.length >= anchor.messageCount) {
        const delta = estimateMessagesTokens(messages.slice(anchor.messageCount), table);
        return anchor.inputTokens + Math.round(delta * correction);
      }
      return Math.round(heuristic(fixed, messages) * correction);
    },
    observeUsage(inputTokens, fixed, messages, messageCount = messages.length) {
      // Unknown usage moves nothing: an absent count is not a zero (control-plane §1).
      if (inputTokens === undefined) return;
      const raw = heuristic(fixed, messages.slice(0, messageCount));
      if (raw > 0 && inputTokens > 0) {
        const observed = Math.min(maxCorrection, Math.max(1 / maxCorrection, inputTokens / raw));
        correction = correction * (1 - rate) + observed * rate;
      }
      anchor = { inputTokens, messageCount };
    },
    invalidate() {
      anchor = undefined;
    },
    get correction() {
      return correction;
    },
    get anchor() {
      return anchor;
    },
  };
}
