/**
 * How `--reasoning` and the cache options map onto each provider's request fields. One table
 * per fact, read by the builders and by the docs' tests; nothing here touches the conversation.
 */
import { createHash } from 'node:crypto';
import type { Conversation } from '../conversation.js';
import type { ReasoningLevel } from './types.js';

/** Thinking budgets in tokens for Anthropic `thinking.budget_tokens` and Gemini `thinkingBudget` (1024 is Anthropic's minimum). */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ReasoningLevel, 'off'>, number>> = {
  low: 1024,
  medium: 8192,
  high: 24_576,
};

/**
 * OpenAI effort names: `off` is `minimal`, the least reasoning the GPT-5 family allows (o-series
 * models have no way to turn reasoning off, and reject `minimal`: `off` sends nothing there).
 */
export function openaiEffort(model: string, level: ReasoningLevel): string | undefined {
  if (level !== 'off') return level;
  return /^(openai\/)?gpt-5/.test(model) ? 'minimal' : undefined;
}

/**
 * Whether an OpenAI model takes a reasoning effort (`o1`/`o3`/`o4-mini`…, `gpt-5*`, also behind an
 * `openai/` router prefix). Others (gpt-4.1, gpt-4o, local models) reject the field: it is left out.
 */
export function takesReasoningEffort(model: string): boolean {
  return /^(openai\/)?(o\d|gpt-5)/.test(model);
}

/**
 * The default OpenAI `prompt_cache_key`: a hash of what every request of a run starts with
 * (model, system prompt, tool definitions), so every step of a session and every run of a batch
 * with the same prefix asks for the same cache shard, and nothing about the user leaks into it.
 */
export function defaultCacheKey(model: string, conversation: Conversation): string {
  const hash = createHash('sha256');
  hash
    .update(model)
    .update('\u0000')
    .update(conversation.system ?? '')
    .update('\u0000')
    .update(JSON.stringify(conversation.tools));
  return `minicode-${hash.digest('hex').slice(0, 16)}`;
}
