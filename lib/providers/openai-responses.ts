/**
 * OpenAI Responses API streaming: typed events (`event: <type>` + `data: {"type": ...}`), no
 * `[DONE]` from OpenAI itself; the response ends with `response.completed`, `.incomplete` or
 * `.failed`. See fixtures/providers/NOTES.md §4. Hazards handled: items keyed by
 * `output_index` (item ids may rotate per event: the first id is kept), no `sequence_number`
 * in older streams, a resumed stream starting at `response.queued`, OpenRouter's data-only
 * dialect with `:` comments and a trailing `[DONE]`, the `error` event in both flat and nested
 * shapes before `response.failed`, encrypted reasoning kept opaque, custom (free-text) tools,
 * and several responses recorded back to back in one input.
 */
import type { StopReason, Usage } from '../events/index.js';
import type { DecoderFactory } from '../decode/types.js';
import { DECODE_CODES } from './common/codes.js';
import { classifyProviderError, readErrorObject } from './common/errors.js';
import { parseResponsesDelta } from './common/templates.js';
import { createSseJsonDecoder, int, isObject, str } from './common/sse-json.js';

/** Normalise a Responses `usage` object. */
export function responsesUsage(u: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = int(u.input_tokens);
  const output = int(u.output_tokens);
  const total = int(u.total_tokens);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (total !== undefined) out.totalTokens = total;
  if (isObject(u.input_tokens_details)) {
    const cached = int(u.input_tokens_details.cached_tokens);
    if (cached !== undefined) out.cacheReadTokens = cached;
  }
  if (isObject(u.output_tokens_details)) {
    const reasoning = int(u.output_tokens_details.reasoning_tokens);
    if (reasoning !== undefined) out.reasoningTokens = reasoning;
  }
  return out;
}

const INCOMPLETE: Record<string, StopReason> = { max_output_tokens: 'max_tokens', content_filter: 'content_filter' };

/** Progress events of built-in tools and other known events that carry nothing we show. */
const QUIET =
  /^response\.(content_part\.|output_text\.(done|annotation)|refusal\.done|reasoning_summary_part\.done|reasoning_summary_text\.done|reasoning_text\.done|function_call_arguments\.done|custom_tool_call_input\.done|(web_search|file_search|code_interpreter|image_generation|mcp|mcp_list_tools|shell|local_shell|computer)_call|mcp_call|audio)/;
/** Events that only repeat what the deltas and `output_item.done` already carry: never parsed. */
const REPEATS = new Set([
  'response.content_part.added',
  'response.content_part.done',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.done',
  'response.function_call_arguments.done',
  'response.custom_tool_call_input.done',
  'response.refusal.done',
]);
const SERVER_ITEMS =
  /^(web_search|file_search|code_interpreter|image_generation|mcp|local_shell|shell|computer)_call$|^mcp_list_tools$/;

/** Decoder for `openai-responses`. */
export const createOpenAiResponsesDecoder: DecoderFactory = (options) =>
  createSseJsonDecoder(options, 'openai-responses', (r) => {
    /** Items by output_index: their kind, and whether arguments streamed. */
    const items = new Map<string, { kind: string }>();
    /** Text deltas seen in this response: then `output_text.done` only repeats them. */
    let sawTextDelta = false;

    // Emitter keys, built once per output index rather than per delta: the same string object
    // each time also keeps its hash cached for the emitter's Map lookups.
    const outputKeys: string[] = [];
    const reasoningKeys = new Map<string, string>();
    const keyOf = (json: Record<string, unknown>): string => {
      const i = int(json.output_index);
      if (i === undefined) return `id:${str(json.item_id) ?? '?'}`;
      return i < 256 ? (outputKeys[i] ??= `o${i}`) : `o${i}`;
    };
    const reasoningKey = (key: string): string => {
      let k = reasoningKeys.get(key);
      if (k === undefined) reasoningKeys.set(key, (k = `${key}:r`));
      return k;
    };

    function startResponse(json: Record<string, unknown>): void {
      const resp = isObject(json.response) ? json.response : {};
      if (r.finished) {
        r.nextResponse();
        items.clear();
        sawTextDelta = false;
      }
      r.started({ responseId: str(resp.id), model: str(resp.model) });
    }

    function endResponse(json: Record<string, unknown>, type: string): void {
      const resp = isObject(json.response) ? json.response : {};
      if (isObject(resp.usage)) r.usage(responsesUsage(resp.usage));
      if (type === 'response.failed') {
        if (!r.errored) {
          const { error, limit } = classifyProviderError(readErrorObject(resp.error, 'response_failed'));
          r.error(error, limit);
        }
        r.finish('error', { stopReason: 'error', rawStopReason: 'failed' });
      } else if (type === 'response.incomplete') {
        const reason = isObject(resp.incomplete_details) ? str(resp.incomplete_details.reason) : undefined;
        r.finish('completed', {
          stopReason: (reason ? INCOMPLETE[reason] : undefined) ?? 'other',
          rawStopReason: reason ?? 'incomplete',
        });
      } else {
        r.finish('completed', {
          stopReason: r.toolCallsCompleted > 0 ? 'tool_use' : 'end_turn',
          rawStopReason: str(resp.status) ?? 'completed',
        });
      }
    }

    function itemAdded(json: Record<string, unknown>, frame: { data: string; offset: number }): void {
      const item = isObject(json.item) ? json.item : undefined;
      if (!item) return;
      const key = keyOf(json);
      const kind = str(item.type) ?? '';
      items.set(key, { kind });
      if (kind === 'function_call' || kind === 'custom_tool_call') {
        r.toolStart(key, {
          id: str(item.call_id) ?? str(item.id),
          name: str(item.name),
          index: int(json.output_index),
        });
      } else if (SERVER_ITEMS.test(kind)) {
        r.toolStart(key, { id: str(item.id), name: kind, index: int(json.output_index), executor: 'server' });
      } else if (kind !== 'message' && kind !== 'reasoning') {
        r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, `unknown output item type "${kind}"`, {
          excerpt: frame.data,
          offset: frame.offset,
        });
      }
    }

    function itemDone(json: Record<string, unknown>): void {
      const item = isObject(json.item) ? json.item : undefined;
      const key = keyOf(json);
      const kind = item ? (str(item.type) ?? '') : (items.get(key)?.kind ?? '');
      items.delete(key);
      if (kind === 'message') {
        r.textDone(key);
      } else if (kind === 'reasoning') {
        const encrypted = item ? str(item.encrypted_content) : undefined;
        const rk = reasoningKey(key);
        if (encrypted !== undefined)
          r.reasoningDone(rk, r.hasReasoning(rk) ? { data: encrypted } : { data: encrypted, redacted: true });
        else r.reasoningDone(rk);
      } else if (kind === 'function_call') {
        const args = item ? str(item.arguments) : undefined;
        if (!r.hasTool(key) && item)
          r.toolStart(key, {
            id: str(item.call_id) ?? str(item.id),
            name: str(item.name),
            index: int(json.output_index),
          });
        r.toolDone(key, args === undefined ? undefined : { argumentsText: args });
      } else if (kind === 'custom_tool_call') {
        const input = item ? str(item.input) : undefined;
        // A custom tool's input is free text, not JSON: it is its own argument.
        if (input !== undefined) r.toolDone(key, { argumentsText: input, arguments: input });
        else r.toolDone(key);
      } else if (SERVER_ITEMS.test(kind)) {
        r.toolDone(key, { argumentsText: '', arguments: {} });
      }
    }

    return {
      parse: parseResponsesDelta,
      skip(event, data) {
        // Route on the event name, or on the leading `{"type":"..."` of data-only dialects; a
        // payload whose type is not first is simply parsed.
        let type = event;
        if (type === undefined && data.startsWith('{"type":"')) type = data.slice(9, data.indexOf('"', 9));
        if (type === undefined) return false;
        // The bulk of a stream is `*.delta` events, never skipped: decide those on two characters
        // (a Set lookup would hash the freshly sliced name every time).
        if (type.charCodeAt(type.length - 1) === 97 && type.charCodeAt(type.length - 2) === 116) return false; // ...ta
        if (type === 'response.output_text.done') return sawTextDelta;
        if (type === 'response.in_progress') return r.isStarted && !r.finished;
        return REPEATS.has(type);
      },
      onJson(json, frame) {
        if (!isObject(json)) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a frame that is not a JSON object', {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        const type = str(json.type) ?? frame.event ?? '';
        if (type === 'response.created' || type === 'response.queued' || type === 'response.in_progress') {
          if (type !== 'response.in_progress' || !r.isStarted || r.finished) startResponse(json);
          return;
        }
        if (r.finished) {
          r.diagnostic(DECODE_CODES.AFTER_TERMINATOR, `"${type}" after the response ended was ignored`, {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        const key = keyOf(json);
        switch (type) {
          case 'response.output_item.added':
            return itemAdded(json, frame);
          case 'response.output_item.done':
            return itemDone(json);
          case 'response.output_text.delta':
            sawTextDelta = true;
            return r.textDelta(key, str(json.delta) ?? '', str(json.item_id));
          case 'response.refusal.delta':
            return r.refusalDelta(key, str(json.delta) ?? '', str(json.item_id));
          case 'response.output_text.done': {
            // Some servers send the text only here.
            const text = str(json.text);
            if (text && !r.hasMessage(key)) r.textDelta(key, text, str(json.item_id));
            return;
          }
          case 'response.function_call_arguments.delta':
          case 'response.custom_tool_call_input.delta':
            if (!r.hasTool(key)) r.toolStart(key, { id: str(json.item_id), index: int(json.output_index) });
            return r.toolDelta(key, str(json.delta) ?? '');
          case 'response.reasoning_summary_part.added':
            // Summary parts are paragraphs of one reasoning: keep them apart.
            if ((int(json.summary_index) ?? 0) > 0 && r.hasReasoning(reasoningKey(key)))
              r.reasoningDelta(reasoningKey(key), '\n\n');
            return;
          case 'response.reasoning_summary_text.delta':
          case 'response.reasoning_text.delta':
            return r.reasoningDelta(reasoningKey(key), str(json.delta) ?? '');
          case 'response.completed':
          case 'response.incomplete':
          case 'response.failed':
            return endResponse(json, type);
          case 'error': {
            const raw = isObject(json.error) ? readErrorObject(json.error, 'error') : readErrorObject(json, 'error');
            if (raw.type === 'error' && raw.code !== undefined) raw.type = String(raw.code);
            const { error, limit } = classifyProviderError(raw);
            r.error(error, limit);
            return;
          }
          default:
            if (QUIET.test(type)) return;
            r.diagnostic(DECODE_CODES.UNKNOWN_EVENT, `unknown Responses event "${type}"`, {
              excerpt: frame.data,
              offset: frame.offset,
            });
        }
      },
      // OpenRouter's Responses dialect ends with [DONE] after response.completed.
      onDone(frame) {
        if (!r.finished)
          r.diagnostic(DECODE_CODES.NO_TERMINATOR, '[DONE] arrived before the response ended', {
            offset: frame.offset,
          });
      },
    };
  });
