/**
 * Every token-usage field, in the order of the `Usage` schema in payloads.ts (which fails to
 * compile when the two disagree): what sums and totals go over. Import-free, so that the exec
 * path (usage collector, reducer) needs no zod schema for it.
 */
export const USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cacheWrite1hTokens',
  'reasoningTokens',
  'totalTokens',
] as const;
