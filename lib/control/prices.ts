/**
 * The price table: USD per million tokens, a handful of current models per provider. Cost is
 * always an estimate (the table goes stale; it is not a bill). A model that is not in the
 * table has an unknown price, and an unknown price gives an unknown cost, never zero.
 * Prices as published by the providers, checked 2026-09 (`PRICES_AS_OF`).
 */

/** Prices of one model in USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached input read; default: the input price. */
  cacheRead?: number;
  /** Cache write (Anthropic, 5-minute lifetime); default: the input price. */
  cacheWrite?: number;
  /** Cache write with a 1-hour lifetime (Anthropic); default: the `cacheWrite` price. */
  cacheWrite1h?: number;
  /**
   * Whether the provider's `inputTokens` already include cached tokens (OpenAI, Gemini) or
   * count them apart (Anthropic). Decides how cache reads are priced.
   */
  inputIncludesCache: boolean;
}

/** When the table was last checked. */
export const PRICES_AS_OF = '2026-09';

const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheRead,
  inputIncludesCache: true,
});
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
  cacheWrite1h: input * 2,
  inputIncludesCache: false,
});
const google = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheRead,
  inputIncludesCache: true,
});

/** provider -> model (or model prefix) -> price. */
export const PRICE_TABLE: Readonly<Record<string, Readonly<Record<string, ModelPrice>>>> = {
  openai: {
    'gpt-5': openai(1.25, 10, 0.125),
    'gpt-5-mini': openai(0.25, 2, 0.025),
    'gpt-5-nano': openai(0.05, 0.4, 0.005),
    'gpt-4.1': openai(2, 8, 0.5),
    'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
    'gpt-4o': openai(2.5, 10, 1.25),
    'gpt-4o-mini': openai(0.15, 0.6, 0.075),
  },
  anthropic: {
    'claude-opus-4': anthropic(15, 75),
    'claude-sonnet-4': anthropic(3, 15),
    'claude-haiku-4-5': anthropic(1, 5),
    'claude-3-5-haiku': anthropic(0.8, 4),
  },
  google: {
    'gemini-2.5-pro': google(1.25, 10, 0.31),
    'gemini-2.5-flash': google(0.3, 2.5, 0.075),
    'gemini-2.5-flash-lite': google(0.1, 0.4, 0.025),
  },
  // Local models cost nothing per token: a known zero, not an unknown.
  ollama: { '*': { input: 0, output: 0, inputIncludesCache: true } },
};

/**
 * Find a model's price: exact name first, then the longest table key the model name starts
 * with (dated snapshots such as `claude-sonnet-4-20250514`), then a provider-wide `*`.
 */
export function findPrice(provider: string, model: string, table = PRICE_TABLE): ModelPrice | undefined {
  const models = table[provider];
  if (!models) return undefined;
  const exact = models[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(models)) {
    if (key !== '*' && model.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  return best ? models[best] : models['*'];
}

/** Token counts a cost is computed from; absent fields are unknown. */
export interface PricedUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cacheReadTokens?: number | undefined;
  cacheWriteTokens?: number | undefined;
  /** The part of `cacheWriteTokens` with a 1-hour lifetime. */
  cacheWrite1hTokens?: number | undefined;
}

/**
 * Estimated cost in USD, or undefined when the price or the input/output counts are unknown
 * (an unknown is never priced as zero).
 */
export function costFor(usage: PricedUsage, price: ModelPrice | undefined): number | undefined {
  if (!price || usage.inputTokens === undefined || usage.outputTokens === undefined) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const cacheWrite1h = Math.min(cacheWrite, usage.cacheWrite1hTokens ?? 0);
  const writePrice = price.cacheWrite ?? price.input;
  const plainInput = price.inputIncludesCache ? Math.max(0, usage.inputTokens - cacheRead) : usage.inputTokens;
  const usd =
    plainInput * price.input +
    usage.outputTokens * price.output +
    cacheRead * (price.cacheRead ?? price.input) +
    (cacheWrite - cacheWrite1h) * writePrice +
    cacheWrite1h * (price.cacheWrite1h ?? writePrice);
  return usd / 1_000_000;
}
