/**
 * Ollama native streaming (`/api/chat` and `/api/generate`): NDJSON, one compact JSON object
 * per `\n`; the response ends with a `"done": true` line carrying usage and `done_reason`. A
 * mid-stream failure is a `{"error": "..."}` line and the stream ends (HTTP status stays 200)
 * without `done: true`. Tool calls arrive whole, with arguments as a JSON object. Ollama's
 * OpenAI-compatible `/v1` SSE is decoded by `openai-chat`. See fixtures/providers/NOTES.md §7.
 */
import type { StopReason, Usage } from '../events/index.js';
import { createLineFramer } from '../framing/lines.js';
import type { DecoderFactory, StreamDecoder } from '../decode/types.js';
import { DECODE_CODES } from './common/codes.js';
import { classifyProviderError, readErrorObject } from './common/errors.js';
import { createResponseEmitter } from './common/response.js';
import { int, isObject, str } from './common/sse-json.js';

const STOP: Record<string, StopReason> = { stop: 'end_turn', length: 'max_tokens' };

/** Normalise the usage of Ollama's `done: true` line (no reasoning-token count exists). */
export function ollamaUsage(o: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = int(o.prompt_eval_count);
  const output = int(o.eval_count);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  return out;
}

/** Decoder for `ollama` (native NDJSON). */
export const createOllamaDecoder: DecoderFactory = (options): StreamDecoder => {
  const r = createResponseEmitter({ onEvent: options.onEvent, provider: 'ollama' });
  let calls = 0;

  function onRecord(json: Record<string, unknown>, line: string, lineNumber: number): void {
    if (r.finished) {
      if (json.error === undefined && json.done !== undefined) {
        r.nextResponse(); // several responses recorded back to back
        calls = 0;
      } else {
        r.diagnostic(DECODE_CODES.AFTER_TERMINATOR, 'a line after done:true was ignored', {
          excerpt: line,
          line: lineNumber,
        });
        return;
      }
    }
    if (json.error !== undefined) {
      const { error, limit } = classifyProviderError(readErrorObject(json.error, 'ollama_error'));
      r.error(error, limit);
      return;
    }
    r.started({ model: str(json.model) });
    const message = isObject(json.message) ? json.message : undefined;
    const thinking = str(message ? message.thinking : json.thinking);
    if (thinking) r.reasoningDelta('r', thinking);
    const content = str(message ? message.content : json.response);
    if (content) {
      if (r.hasReasoning('r')) r.reasoningDone('r');
      r.textDelta('m', content);
    }
    if (message && Array.isArray(message.tool_calls)) {
      for (const tc of message.tool_calls) {
        const fn = isObject(tc) && isObject(tc.function) ? tc.function : undefined;
        if (!fn) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a tool call without a function', {
            excerpt: line,
            line: lineNumber,
          });
          continue;
        }
        const key = `t${calls++}`;
        r.toolStart(key, { id: isObject(tc) ? str(tc.id) : undefined, name: str(fn.name), index: int(fn.index) });
        // Arguments are a JSON object here (a string from some servers: parsed by the emitter).
        if (typeof fn.arguments === 'string') r.toolDone(key, { argumentsText: fn.arguments });
        else r.toolDone(key, { argumentsText: JSON.stringify(fn.arguments ?? {}), arguments: fn.arguments ?? {} });
      }
    }
    if (json.done === true) {
      r.usage(ollamaUsage(json));
      const raw = str(json.done_reason);
      let stopReason: StopReason | undefined = raw === undefined ? undefined : (STOP[raw] ?? 'other');
      // Ollama says `stop` even after tool calls.
      if ((stopReason === 'end_turn' || stopReason === undefined) && r.toolCallsCompleted > 0) stopReason = 'tool_use';
      r.finish('completed', { stopReason, rawStopReason: raw });
    }
  }

  const framer = createLineFramer({
    maxLineLength: options.maxFrameBytes ?? 16 * 1024 * 1024,
    onOverflow: (line, length) =>
      r.diagnostic(DECODE_CODES.FRAME_TOO_LARGE, `a line of ${length}+ characters exceeded maxFrameBytes; dropped`, {
        line,
      }),
    onLine(line, lineNumber) {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        r.diagnostic(DECODE_CODES.BAD_JSON, 'line is not valid JSON', { excerpt: line, line: lineNumber });
        return;
      }
      if (!isObject(json)) {
        r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a line that is not a JSON object', {
          excerpt: line,
          line: lineNumber,
        });
        return;
      }
      onRecord(json, line, lineNumber);
    },
  });

  return {
    feed(chunk) {
      framer.feed(chunk);
    },
    end() {
      framer.end();
      if (!r.finished) {
        if (!r.errored) r.diagnostic(DECODE_CODES.NO_TERMINATOR, 'the ollama stream ended without a done:true line');
        r.endOfStream();
      }
    },
  };
};
