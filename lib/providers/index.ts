import type { DecoderFactory } from '../pipeline/types.js';
import { createAnthropicDecoder } from './anthropic.js';
import { createOpenAiChatDecoder } from './openai-chat.js';
import { createOpenAiResponsesDecoder } from './openai-responses.js';

/** Provider stream decoders by format name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `ollama`). */
export const PROVIDER_DECODERS: Partial<Record<string, DecoderFactory>> = {
  'openai-chat': createOpenAiChatDecoder,
  'openai-responses': createOpenAiResponsesDecoder,
  anthropic: createAnthropicDecoder,
};
