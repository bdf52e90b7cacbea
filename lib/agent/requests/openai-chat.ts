import { DEFAULT_OPENAI_IMAGE_DETAIL } from '../../images/tokens.js';
import { defaultCacheKey, openaiEffort, takesReasoningEffort } from './tuning.js';
import type { RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/**
 * OpenAI Chat Completions (`POST {base}/chat/completions`), also every OpenAI-compatible server
 * (Ollama `/v1`, vLLM, llama.cpp, LM Studio, OpenRouter). Usage is requested in the stream
 * (`stream_options.include_usage`), so the last chunk carries it. `prompt_cache_key` goes to
 * OpenAI itself only (`api.openai.com`): compatible servers may reject fields they do not know.
 */
export const buildOpenAIChatRequest: RequestBuilder = (conversation, options) => {
  const messages: Record<string, unknown>[] = [];
  // Sent explicitly: the context estimate counts each image by this detail (lib/images/tokens.ts).
  const detail = options.tuning?.imageDetail ?? DEFAULT_OPENAI_IMAGE_DETAIL;
  if (conversation.system) messages.push({ role: 'system', content: conversation.system });
  for (const m of conversation.messages) {
    if (m.role === 'user') {
      messages.push(
        m.images?.length
          ? {
              role: 'user',
              content: [
                { type: 'text', text: m.text },
                ...m.images.map((i) => ({
                  type: 'image_url',
                  image_url: { url: `data:${i.mediaType};base64,${i.data}`, detail },
                })),
              ],
            }
          : { role: 'user', content: m.text },
      );
    } else if (m.role === 'assistant') {
      const message: Record<string, unknown> = { role: 'assistant', content: m.text ?? null };
      if (m.toolCalls && m.toolCalls.length > 0) {
        message.tool_calls = m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.argumentsText },
        }));
      }
      messages.push(message);
    } else {
      // A failed result already says what it is (`Error: ...`, `Denied: ...`, `Cancelled: ...`): no second prefix.
      messages.push({
        role: 'tool',
        tool_call_id: m.toolCallId,
        content: m.content,
      });
    }
  }
  const body: Record<string, unknown> = {
    model: options.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (conversation.tools.length > 0) {
    body.tools = conversation.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.jsonSchema },
    }));
  }
  if (isOpenAI(options.baseUrl))
    body.prompt_cache_key = options.tuning?.cacheKey ?? defaultCacheKey(options.model, conversation);
  else if (options.tuning?.cacheKey) body.prompt_cache_key = options.tuning.cacheKey;
  const effort =
    options.tuning?.reasoning && takesReasoningEffort(options.model)
      ? openaiEffort(options.model, options.tuning.reasoning)
      : undefined;
  if (effort) body.reasoning_effort = effort;
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  const headers = jsonHeaders(options.headers);
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: joinUrl(options.baseUrl, 'chat/completions'), method: 'POST', headers, body: JSON.stringify(body) };
};

/** Whether the endpoint is OpenAI's own API (where `prompt_cache_key` is known). */
function isOpenAI(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    // Not a URL (refused where the provider is chosen): not OpenAI's.
    return false;
  }
}
