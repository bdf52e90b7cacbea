import { DEFAULT_OPENAI_IMAGE_DETAIL } from '../../images/tokens.js';
import { defaultCacheKey, openaiEffort, takesReasoningEffort } from './tuning.js';
import type { RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/**
 * OpenAI Responses (`POST {base}/responses`), stateless (`store: false`): the whole history is
 * sent as input items each turn, so nothing is kept on OpenAI's side and a run can be replayed
 * anywhere. Reasoning models are asked for their reasoning encrypted
 * (`include: ["reasoning.encrypted_content"]`), and those items are replayed verbatim before the
 * calls they led to. The prefix (instructions, tools, earlier items) is byte-stable across steps
 * and `prompt_cache_key` routes every step and every batch run with it to one cache.
 */
export const buildOpenAIResponsesRequest: RequestBuilder = (conversation, options) => {
  const input: unknown[] = [];
  /** Calls of freeform tools: answered with `custom_tool_call_output`. */
  const freeform = new Set<string>();
  for (const m of conversation.messages) {
    if (m.role === 'user') {
      input.push({
        role: 'user',
        content: [
          { type: 'input_text', text: m.text },
          ...(m.images ?? []).map((i) => ({
            type: 'input_image',
            image_url: `data:${i.mediaType};base64,${i.data}`,
            detail: options.tuning?.imageDetail ?? DEFAULT_OPENAI_IMAGE_DETAIL,
          })),
        ],
      });
    } else if (m.role === 'assistant') {
      for (const r of m.reasoning ?? []) if (r.format === 'openai-responses') input.push(r.item);
      if (m.text) input.push({ role: 'assistant', content: [{ type: 'output_text', text: m.text }] });
      for (const c of m.toolCalls ?? []) {
        if (c.freeform) {
          freeform.add(c.id);
          input.push({ type: 'custom_tool_call', call_id: c.id, name: c.name, input: c.argumentsText });
        } else input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.argumentsText });
      }
    } else {
      // A failed result already says what it is (`Error: ...`, `Denied: ...`, `Cancelled: ...`): no second prefix.
      const output = m.content;
      input.push({
        type: freeform.has(m.toolCallId) ? 'custom_tool_call_output' : 'function_call_output',
        call_id: m.toolCallId,
        output,
      });
    }
  }
  const body: Record<string, unknown> = { model: options.model, input, stream: true, store: false };
  if (conversation.system) body.instructions = conversation.system;
  if (conversation.tools.length > 0) {
    body.tools = conversation.tools.map(
      (t) =>
        t.native ?? {
          type: 'function',
          name: t.name,
          description: t.description,
          parameters: t.jsonSchema,
          strict: false,
        },
    );
  }
  body.prompt_cache_key = options.tuning?.cacheKey ?? defaultCacheKey(options.model, conversation);
  if (takesReasoningEffort(options.model)) {
    body.include = ['reasoning.encrypted_content'];
    const effort = options.tuning?.reasoning ? openaiEffort(options.model, options.tuning.reasoning) : undefined;
    if (effort) body.reasoning = { effort };
  }
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  const headers = jsonHeaders(options.headers);
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: joinUrl(options.baseUrl, 'responses'), method: 'POST', headers, body: JSON.stringify(body) };
};
