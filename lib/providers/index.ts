import type { ProviderFormat } from '../decode/formats.js';
import type { DecoderFactory } from '../decode/types.js';
import { createAnthropicDecoder } from './anthropic.js';
import { createGeminiDecoder } from './gemini.js';
import { createOllamaDecoder } from './ollama.js';
import { createOpenAiChatDecoder } from './openai-chat.js';
import { createOpenAiResponsesDecoder } from './openai-responses.js';

/** Provider stream decoders by format name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `ollama`). */
export const PROVIDER_DECODERS: Partial<Record<string, DecoderFactory>> = {
  'openai-chat': createOpenAiChatDecoder,
  'openai-responses': createOpenAiResponsesDecoder,
  anthropic: createAnthropicDecoder,
  gemini: createGeminiDecoder,
  ollama: createOllamaDecoder,
} satisfies Record<ProviderFormat, DecoderFactory>;
