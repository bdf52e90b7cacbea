import type { Conversation } from '../conversation.js';

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
  apiKey?: string;
  /** Output token cap; Anthropic requires one (default 8192 there), others omit it when unset. */
  maxTokens?: number;
  temperature?: number;
  /** Extra headers (e.g. OpenRouter's `HTTP-Referer`); never logged. */
  headers?: Record<string, string>;
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
