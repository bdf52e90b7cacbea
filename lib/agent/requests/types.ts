import type { Conversation } from '../conversation.js';
import type { OpenAiImageDetail } from '../../images/tokens.js';

/** A ready HTTP request: pass it to `fetch(url, {method, headers, body})`. */
export interface ProviderRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  /** JSON text of the body; streaming is always enabled. */
  body: string;
}

/** What every builder needs besides the conversation. */
export interface RequestOptions {
  model: string;
  /** Endpoint base, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434`. */
  baseUrl: string;
  apiKey?: string | undefined;
  /** Output token cap; Anthropic requires one (default 8192 there), others omit it when unset. */
  maxTokens?: number | undefined;
  temperature?: number;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`); never logged. */
  headers?: Record<string, string>;
  /** Prompt caching and reasoning controls (see {@link RequestTuning}). */
  tuning?: RequestTuning | undefined;
}

/** The reasoning efforts `--reasoning` accepts, in order. */
export const REASONING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
/** A reasoning effort; `off` asks the provider for no reasoning where it can be turned off. */
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

/** The cache lifetimes `--cache-ttl` accepts (Anthropic's two; others cache implicitly). */
export const CACHE_TTLS = ['5m', '1h'] as const;
/** A cache breakpoint lifetime. */
export type CacheTtl = (typeof CACHE_TTLS)[number];

/** Per-run request options that change cost and latency, not the conversation. */
export interface RequestTuning {
  /** Reasoning effort; absent: the provider's default (nothing sent). */
  reasoning?: ReasoningLevel;
  /** Anthropic breakpoint lifetime; default 5m. */
  cacheTtl?: CacheTtl;
  /** OpenAI `prompt_cache_key`; default a hash of the stable prefix (model, system, tools). */
  cacheKey?: string;
  /** The `detail` of every image in the OpenAI formats (config `imageDetail`); default `auto`, sent explicitly. */
  imageDetail?: OpenAiImageDetail;
}

/** A request builder for one wire format. */
export type RequestBuilder = (conversation: Conversation, options: RequestOptions) => ProviderRequest;

/** Join a base URL and a path without doubling or losing the slash. */
export function joinUrl(base: string, suffix: string): string {
  return `${base.replace(/\/+$/, '')}/${suffix.replace(/^\/+/, '')}`;
}

/** The headers every streaming JSON request carries. */
export function jsonHeaders(extra: Record<string, string> | undefined): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'text/event-stream', ...extra };
}
