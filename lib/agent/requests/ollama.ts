import { argumentsObject } from '../conversation.js';
import type { RequestBuilder } from './types.js';
import { joinUrl } from './types.js';

/**
 * Ollama's native chat API (`POST {host}/api/chat`), answered as NDJSON. Tool arguments are
 * objects on this API, and a tool result names its tool (`tool_name`) instead of an id.
 */
export const buildOllamaRequest: RequestBuilder = (conversation, options) => {
  const messages: Record<string, unknown>[] = [];
  if (conversation.system) messages.push({ role: 'system', content: conversation.system });
  for (const m of conversation.messages) {
    if (m.role === 'user')
      messages.push(
        m.images?.length
          ? { role: 'user', content: m.text, images: m.images.map((i) => i.data) }
          : { role: 'user', content: m.text },
      );
    else if (m.role === 'assistant') {
      const message: Record<string, unknown> = { role: 'assistant', content: m.text ?? '' };
      if (m.toolCalls && m.toolCalls.length > 0) {
        message.tool_calls = m.toolCalls.map((c) => ({
          function: { name: c.name, arguments: argumentsObject(c.argumentsText) },
        }));
      }
      messages.push(message);
    } else {
      // A failed result already says what it is (`Error: ...`, `Denied: ...`, `Cancelled: ...`): no second prefix.
      messages.push({ role: 'tool', tool_name: m.name, content: m.content });
    }
  }
  const body: Record<string, unknown> = { model: options.model, messages, stream: true };
  if (conversation.tools.length > 0) {
    body.tools = conversation.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.jsonSchema },
    }));
  }
  // Ollama's `think` is a switch on most models (gpt-oss also takes a level; a switch is what all accept).
  if (options.tuning?.reasoning) body.think = options.tuning.reasoning !== 'off';
  const opts: Record<string, unknown> = {};
  if (options.maxTokens !== undefined) opts.num_predict = options.maxTokens;
  if (options.temperature !== undefined) opts.temperature = options.temperature;
  if (Object.keys(opts).length > 0) body.options = opts;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/x-ndjson',
    ...options.headers,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return { url: joinUrl(options.baseUrl, 'api/chat'), method: 'POST', headers, body: JSON.stringify(body) };
};
