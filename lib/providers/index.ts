import type { DecoderFactory } from '../pipeline/types.js';
import { createOpenAiChatDecoder } from './openai-chat.js';

/** Provider stream decoders by format name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `ollama`). */
export const PROVIDER_DECODERS: Partial<Record<string, DecoderFactory>> = {
  'openai-chat': createOpenAiChatDecoder,
};
