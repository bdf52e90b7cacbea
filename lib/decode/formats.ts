/**
 * Every input format name minicode decodes, in one import-free module: registering the CLI
 * commands (done on every start) reads these lists without loading a single decoder, and every
 * other list of formats (CLI choices, batch line schema, decoder tables) derives from them.
 */

/** Provider wire formats (HTTP streams minicode both speaks and decodes), in documentation order. */
export const PROVIDER_FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ollama'] as const;
/** One of {@link PROVIDER_FORMATS}. */
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

/** Native agent CLIs minicode can supervise (`run --agent`, batch `agent`) and decode. */
export const NATIVE_AGENTS = ['codex', 'claude-code', 'gemini-cli', 'opencode'] as const;
/** One of {@link NATIVE_AGENTS}. */
export type NativeAgent = (typeof NATIVE_AGENTS)[number];

/** Native decoder formats: the agents plus plain terminal text. */
export const NATIVE_FORMATS = [...NATIVE_AGENTS, 'terminal'] as const;
/** One of {@link NATIVE_FORMATS}. */
export type NativeFormat = (typeof NATIVE_FORMATS)[number];

/** Every `ingest --from` format name: the provider formats, then the native ones. */
export const INGEST_FORMATS = [...PROVIDER_FORMATS, ...NATIVE_FORMATS] as const;
/** One of {@link INGEST_FORMATS}. */
export type IngestFormat = (typeof INGEST_FORMATS)[number];

/**
 * The base URL a format uses against a server at `origin` (the replay server, a proxy): the
 * OpenAI formats live under `/v1`, the others at the root.
 */
export function baseUrlForOrigin(format: ProviderFormat, origin: string): string {
  const root = origin.replace(/\/+$/, '');
  return format === 'openai-chat' || format === 'openai-responses' ? `${root}/v1` : root;
}
