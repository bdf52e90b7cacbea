import { argumentsObject } from '../conversation.js';
import { THINKING_BUDGETS } from './tuning.js';
import type { CacheTtl, RequestBuilder } from './types.js';
import { joinUrl, jsonHeaders } from './types.js';

/** The Messages API version header minicode speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';
/** `max_tokens` is required by the API; this is used when the caller sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type Block = Record<string, unknown>;
type Message = { role: 'user' | 'assistant'; content: Block[] };

/** The cache marker of a breakpoint; the 1-hour lifetime is asked for, 5 minutes is the API default. */
function cacheControl(ttl: CacheTtl | undefined): Block {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/** Thinking blocks cannot carry a breakpoint: the last block of a message that can. */
function lastCacheable(message: Message | undefined): Block | undefined {
  if (!message) return undefined;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const b = message.content[i]!;
    if (b.type !== 'thinking' && b.type !== 'redacted_thinking' && !(b.type === 'text' && b.text === '')) return b;
  }
  return undefined;
}

/**
 * Prompt-cache breakpoints, four at most as the API allows: the last tool definition (tools),
 * the system prompt (tools + system), the latest user-text turn (the running task, or the task
 * and the compaction summary pinned after it), and the last block of the request (the whole
 * prefix: the next step reads it back and writes only what it adds). The third keeps the
 * pinned prefix a cache hit when one step adds more blocks than the API looks back over (20).
 * A 1-hour lifetime goes on the first three only (longer lifetimes must come first anyway).
 */
function placeBreakpoints(
  body: Record<string, unknown>,
  messages: Message[],
  anchor: number,
  ttl: CacheTtl | undefined,
): void {
  const tools = body.tools as Block[] | undefined;
  if (tools && tools.length > 0) tools[tools.length - 1]!.cache_control = cacheControl(ttl);
  if (typeof body.system === 'string')
    body.system = [{ type: 'text', text: body.system, cache_control: cacheControl(ttl) }];
  const pinned = lastCacheable(messages[anchor]);
  if (pinned) pinned.cache_control = cacheControl(ttl);
  // The tail is superseded next step: a 1-hour write (2x input) there would be paid for nothing.
  const tail = lastCacheable(messages[messages.length - 1]);
  if (tail && tail !== pinned) tail.cache_control = cacheControl(undefined);
}

/** The beta a 1-hour cache lifetime is asked for with. */
export const EXTENDED_CACHE_TTL_BETA = 'extended-cache-ttl-2025-04-11';

/**
 * Anthropic Messages (`POST {base}/v1/messages`). Roles must alternate, so consecutive tool
 * results (and a user message after them) are merged into one `user` turn of blocks; thinking
 * blocks are replayed first in their assistant turn, with their signatures untouched.
 */
export const buildAnthropicRequest: RequestBuilder = (conversation, options) => {
  const messages: Message[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  let anchor = -1;
  for (const m of conversation.messages) {
    if (m.role === 'user') {
      // Images before the text, as Anthropic's documentation advises.
      push('user', [
        ...(m.images ?? []).map(
          (i) => ({ type: 'image', source: { type: 'base64', media_type: i.mediaType, data: i.data } }) as Block,
        ),
        { type: 'text', text: m.text },
      ]);
      anchor = messages.length - 1;
    } else if (m.role === 'assistant') {
      const blocks: Block[] = [];
      for (const r of m.reasoning ?? []) if (r.format === 'anthropic') blocks.push(r.item as Block);
      if (m.text) blocks.push({ type: 'text', text: m.text });
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.argumentsText) });
      if (blocks.length > 0) push('assistant', blocks);
    } else {
      const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      if (m.isError) block.is_error = true;
      push('user', [block]);
    }
  }
  const tuning = options.tuning ?? {};
  const answerTokens = options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  const thinking = tuning.reasoning && tuning.reasoning !== 'off' ? THINKING_BUDGETS[tuning.reasoning] : undefined;
  const body: Record<string, unknown> = {
    model: options.model,
    // The thinking budget counts against max_tokens: raise it so the answer keeps its room.
    max_tokens: thinking === undefined ? answerTokens : answerTokens + thinking,
    messages,
    stream: true,
  };
  if (conversation.system) body.system = conversation.system;
  if (conversation.tools.length > 0) {
    // A native entry (the text editor, bash) is copied: the cache breakpoint is set on the request's own objects.
    body.tools = conversation.tools.map((t) =>
      t.native ? { ...t.native } : { name: t.name, description: t.description, input_schema: t.jsonSchema },
    );
  }
  if (thinking !== undefined) body.thinking = { type: 'enabled', budget_tokens: thinking };
  // Extended thinking accepts no temperature other than the default.
  else if (options.temperature !== undefined) body.temperature = options.temperature;
  placeBreakpoints(body, messages, anchor, tuning.cacheTtl);
  const headers: Record<string, string> = { ...jsonHeaders(options.headers), 'anthropic-version': ANTHROPIC_VERSION };
  if (tuning.cacheTtl === '1h') headers['anthropic-beta'] = EXTENDED_CACHE_TTL_BETA;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  return { url: joinUrl(options.baseUrl, 'v1/messages'), method: 'POST', headers, body: JSON.stringify(body) };
};
