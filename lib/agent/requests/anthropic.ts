import { argumentsObject } from '../conversation.js';
import type { RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/** The Messages API version header minicode speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required by the API; this is used when the caller sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;

/**
 * Anthropic Messages (`POST {base}/v1/messages`). Roles must alternate, so consecutive tool
 * results (and a user message after them) are merged into one `user` turn of blocks; thinking
 * blocks are replayed first in their assistant turn, with their signatures untouched.
 */
export const buildAnthropicRequest: RequestBuilder = (conversation, options) => {
  const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of conversation.messages) {
    if (m.role === 'user') push('user', [{ type: 'text', text: m.text }]);
    else if (m.role === 'assistant') {
      const blocks: Block[] = [];
      for (const r of m.reasoning ?? []) if (r.format === 'anthropic') blocks.push(r.item as Block);
      if (m.text) blocks.push({ type: 'text', text: m.text });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.argumentsText) });
      if (blocks.length > 0) push('assistant', blocks);
    } else {
      const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      if (m.isError) block.is_error = true;
      push('user', [block]);
    }
  }
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (conversation.system) body.system = conversation.system;
  if (conversation.tools.length > 0) {
    body.tools = conversation.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.jsonSchema }));
  }
  if (options.temperature !== undefined) body.temperature = options.temperature;
  const headers: Record<string, string> = { ...jsonHeaders(options.headers), 'anthropic-version': ANTHROPIC_VERSION };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return { url: joinUrl(options.baseUrl, 'v1/messages'), method: 'POST', headers, body: JSON.stringify(body) };
};
