/**
 * OpenAI Chat Completions streaming (`data: <chunk>` frames, `data: [DONE]` terminator) and the
 * OpenAI-compatible dialects that reuse it: DeepSeek / xAI (`reasoning_content`), Groq
 * (`reasoning`, `event: error`, whole tool calls, `x_groq.usage`), OpenRouter (comments,
 * `reasoning_details`, an error inside a normal chunk), Azure (a leading `choices: []` chunk
 * that is not the usage chunk), Ollama `/v1`, gateways whose tool indexes start at 1 or are
 * missing. See fixtures/providers/NOTES.md §3 and §8.
 */
import type { StopReason, Usage } from '../events/index.js';
import type { DecoderFactory } from '../decode/types.js';
import { DECODE_CODES } from './common/codes.js';
import { classifyProviderError, readErrorObject } from './common/errors.js';
import type { ResponseEmitter } from './common/response.js';
import { createChatChunkParser } from './common/templates.js';
import { createSseJsonDecoder, int, isObject, str } from './common/sse-json.js';

const STOP: Record<string, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'content_filter',
};

/** Normalise an OpenAI chat `usage` object; absent fields stay absent. */
export function chatUsage(u: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = int(u.prompt_tokens);
  const output = int(u.completion_tokens);
  const total = int(u.total_tokens);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (total !== undefined) out.totalTokens = total;
  if (isObject(u.prompt_tokens_details)) {
    const cached = int(u.prompt_tokens_details.cached_tokens);
    if (cached !== undefined) out.cacheReadTokens = cached;
  }
  if (isObject(u.completion_tokens_details)) {
    const reasoning = int(u.completion_tokens_details.reasoning_tokens);
    if (reasoning !== undefined) out.reasoningTokens = reasoning;
  }
  return out;
}

/** Tool-call slots of one choice: index -> key, plus the latest slot for deltas without an index. */
interface ChoiceState {
  /** Emitter keys of the choice's text and reasoning, built once (not per delta). */
  text: string;
  reasoning: string;
  slots: Map<string, { key: string; id: string | undefined }>;
  latest: string | undefined;
  seq: number;
  stop: string | undefined;
}

function handleToolDeltas(r: ResponseEmitter, c: number, state: ChoiceState, calls: unknown[]): void {
  for (const call of calls) {
    if (!isObject(call)) continue;
    const fn = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : undefined;
    const id = str(call.id) || undefined;
    const name = fn ? str(fn.name) || undefined : undefined;
    const args = fn ? (str(fn.arguments) ?? str(fn.input)) : undefined;
    const index = int(call.index);
    let slotName: string | undefined;
    if (index !== undefined) slotName = `i${index}`;
    else if (id !== undefined) {
      for (const [n, s] of state.slots) if (s.id === id) slotName = n;
      slotName ??= `id:${id}`;
    } else slotName = state.latest; // a continuation without an index continues the latest call
    if (slotName === undefined) {
      r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a tool-call delta without index or id before any tool call', {
        excerpt: JSON.stringify(call),
      });
      continue;
    }
    let slot = state.slots.get(slotName);
    // A reused index with a new id AND a name is a different call: close the old one first.
    if (slot && id !== undefined && slot.id !== undefined && id !== slot.id && name !== undefined) {
      r.toolDone(slot.key);
      slot = undefined;
    }
    if (!slot) {
      slot = { key: `c${c}:t${state.seq++}`, id };
      state.slots.set(slotName, slot);
      r.toolStart(slot.key, { id, name, index });
    } else if (name !== undefined) {
      r.toolStart(slot.key, { id, name, index }); // fills a missing name, keeps the first id
    }
    state.latest = slotName;
    if (args) r.toolDelta(slot.key, args);
  }
}

/** Decoder for `openai-chat`. */
export const createOpenAiChatDecoder: DecoderFactory = (options) =>
  createSseJsonDecoder(options, 'openai-chat', (r) => {
    const choices = new Map<number, ChoiceState>();
    let firstStop: string | undefined;

    function choice(i: number): ChoiceState {
      let s = choices.get(i);
      if (!s)
        choices.set(
          i,
          (s = { text: `c${i}`, reasoning: `c${i}:r`, slots: new Map(), latest: undefined, seq: 0, stop: undefined }),
        );
      return s;
    }

    function closeChoice(i: number, s: ChoiceState): void {
      r.reasoningDone(s.reasoning);
      r.textDone(s.text);
      for (const slot of s.slots.values()) r.toolDone(slot.key);
      s.slots.clear();
      s.latest = undefined;
    }

    function stopInfo(): { stopReason?: StopReason; rawStopReason?: string } {
      if (firstStop === undefined) return {};
      let stopReason = STOP[firstStop] ?? 'other';
      if (stopReason === 'end_turn' && r.toolCallsCompleted > 0) stopReason = 'tool_use';
      return { stopReason, rawStopReason: firstStop };
    }

    return {
      parse: createChatChunkParser(),
      onJson(json, frame) {
        if (r.finished) {
          r.diagnostic(DECODE_CODES.AFTER_TERMINATOR, 'a chunk after [DONE] was ignored', {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        if (!isObject(json)) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a chunk that is not a JSON object', {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        // Azure's first chunk has empty id/model: learn them from a later chunk.
        if (!r.isStarted || r.responseId === undefined)
          r.started({ responseId: str(json.id) || undefined, model: str(json.model) || undefined });
        if (json.error !== undefined && json.error !== null) {
          const { error, limit } = classifyProviderError(
            readErrorObject(json.error, frame.event === 'error' ? 'stream_error' : undefined),
          );
          r.error(error, limit);
        } else if (frame.event === 'error') {
          const { error, limit } = classifyProviderError({ type: 'stream_error', message: frame.data });
          r.error(error, limit);
        } else if (frame.event !== undefined && frame.event !== 'message') {
          r.diagnostic(DECODE_CODES.UNKNOWN_EVENT, `unknown SSE event "${frame.event}"`, {
            excerpt: frame.data,
            offset: frame.offset,
          });
        }
        // OpenRouter may put choices and usage beside an error: surface both.
        if (Array.isArray(json.choices)) {
          for (const ch of json.choices) {
            if (!isObject(ch)) continue;
            const i = int(ch.index) ?? 0;
            const s = choice(i);
            const delta = isObject(ch.delta) ? ch.delta : undefined;
            if (delta) {
              const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
              if (reasoning) r.reasoningDelta(s.reasoning, reasoning);
              if (Array.isArray(delta.reasoning_details)) {
                for (const d of delta.reasoning_details) {
                  if (!isObject(d)) continue;
                  const sig = str(d.signature);
                  if (sig) r.reasoningSignature(s.reasoning, sig);
                  if (d.type === 'reasoning.encrypted' && typeof d.data === 'string')
                    r.reasoningDone(`c${i}:enc`, { data: d.data, redacted: true });
                }
              }
              const content = str(delta.content);
              if (content) {
                if (r.hasReasoning(s.reasoning)) r.reasoningDone(s.reasoning);
                r.textDelta(s.text, content);
              }
              const refusal = str(delta.refusal);
              if (refusal) r.refusalDelta(s.text, refusal);
              if (Array.isArray(delta.tool_calls)) handleToolDeltas(r, i, s, delta.tool_calls);
              if (isObject(delta.function_call))
                handleToolDeltas(r, i, s, [{ index: 0, function: delta.function_call }]);
            }
            const finish = str(ch.finish_reason);
            if (finish && s.stop === undefined) {
              s.stop = finish;
              if (firstStop === undefined) firstStop = finish;
              closeChoice(i, s);
            }
          }
        }
        const usage = isObject(json.usage)
          ? json.usage
          : isObject(json.x_groq) && isObject(json.x_groq.usage)
            ? json.x_groq.usage
            : undefined;
        if (usage) r.usage(chatUsage(usage));
      },
      onDone() {
        if (r.finished) return;
        for (const [i, s] of choices) closeChoice(i, s);
        r.finish('completed', stopInfo());
      },
    };
  });
