import type { ProviderFormat } from '../conversation.js';
import { buildAnthropicRequest } from './anthropic.js';
import { buildGeminiRequest } from './gemini.js';
import { buildOllamaRequest } from './ollama.js';
import { buildOpenAIChatRequest } from './openai-chat.js';
import { buildOpenAIResponsesRequest } from './openai-responses.js';
import type { RequestBuilder } from './types.js';

export * from './types.js';

/** The request builder of each wire format. */
export const REQUEST_BUILDERS: Readonly<Record<ProviderFormat, RequestBuilder>> = {
  'openai-chat': buildOpenAIChatRequest,
  'openai-responses': buildOpenAIResponsesRequest,
  anthropic: buildAnthropicRequest,
  gemini: buildGeminiRequest,
  ollama: buildOllamaRequest,
};

/** Build a streaming request for `format`. */
export function buildRequest(format: ProviderFormat, ...args: Parameters<RequestBuilder>): ReturnType<RequestBuilder> {
  return REQUEST_BUILDERS[format](...args);
}
