/**
 * Context windows (tokens) of the models minicode knows, by model-name prefix, longest match
 * first. A model not in the table gets {@link DEFAULT_CONTEXT_WINDOW}; the operator can set the
 * real figure with `MINICODE_CONTEXT_WINDOW` or the config's `contextWindow`.
 */
import type { ProviderFormat } from './conversation.js';

/** Window used when neither the table nor the operator knows the model: 128k tokens. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

const WINDOWS: readonly (readonly [prefix: string, tokens: number])[] = [
  ['claude-', 200_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 400_000],
  ['o3', 200_000],
  ['o4', 200_000],
  ['gemini-2.5', 1_048_576],
  ['gemini-2.0', 1_048_576],
  ['gemini-1.5', 1_048_576],
];

/** The context window of `model` served through `format` (an explicit window wins). */
export function contextWindowOf(format: ProviderFormat, model: string, explicit?: number): number {
  if (explicit !== undefined && explicit > 0) return explicit;
  const lower = model.toLowerCase();
  let best: readonly [string, number] | undefined;
  for (const entry of WINDOWS)
    if (lower.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  if (best) return best[1];
  // Local servers (Ollama, llama.cpp) run with whatever num_ctx the operator chose; guessing
  // low would stop runs the server would have accepted, so they get the default too.
  void format;
  return DEFAULT_CONTEXT_WINDOW;
}
