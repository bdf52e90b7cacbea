/**
 * Google Gemini `streamGenerateContent?alt=sse` (AI Studio and Vertex): data-only SSE with CRLF
 * line endings, each frame a full `GenerateContentResponse` fragment, no terminator: the last
 * chunk carries `finishReason`, so a stream whose chunks never had one is truncated. See
 * fixtures/providers/NOTES.md §6. Hazards handled: `thought: true` parts (reasoning) and
 * `thoughtSignature` (also on an empty text part), whole `functionCall`s, Vertex Gemini 3
 * streamed arguments (`partialArgs` JSON-path fragments closed by an empty `functionCall {}`),
 * cumulative `usageMetadata` on intermediate chunks, a JSON `{"error": ...}` chunk, a blocked
 * prompt (`promptFeedback.blockReason`), tool calls that still end with `STOP`.
 */
import type { StopReason, Usage } from '../events/index.js';
import type { DecoderFactory } from '../decode/types.js';
import { DECODE_CODES } from './common/codes.js';
import { classifyProviderError, readErrorObject } from './common/errors.js';
import type { ResponseEmitter } from './common/response.js';
import { createSseJsonDecoder, int, isObject, str } from './common/sse-json.js';

const STOP: Record<string, StopReason> = {
  STOP: 'end_turn',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  LANGUAGE: 'other',
  OTHER: 'other',
};

/** Normalise Gemini `usageMetadata` (cumulative on every chunk). */
export function geminiUsage(u: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = int(u.promptTokenCount);
  const output = int(u.candidatesTokenCount);
  const reasoning = int(u.thoughtsTokenCount);
  const cached = int(u.cachedContentTokenCount);
  const total = int(u.totalTokenCount);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  if (cached !== undefined) out.cacheReadTokens = cached;
  if (total !== undefined) out.totalTokens = total;
  return out;
}

/** Set `value` at a `$.a.b[0]` JSON path inside `root`; strings at a continued path are appended. */
function setPath(root: Record<string, unknown>, jsonPath: string, value: unknown, append: boolean): boolean {
  const parts = jsonPath.replace(/^\$\.?/, '').match(/[^.[\]]+|\[\d+\]/g);
  if (!parts || parts.length === 0) return false;
  let node: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < parts.length; i++) {
    const raw = parts[i] as string;
    const key: string | number = raw.startsWith('[') ? Number(raw.slice(1, -1)) : raw;
    const last = i === parts.length - 1;
    const container = node as Record<string | number, unknown>;
    if (last) {
      const prev = container[key];
      container[key] = append && typeof prev === 'string' && typeof value === 'string' ? prev + value : value;
    } else {
      const next = parts[i + 1] as string;
      if (typeof container[key] !== 'object' || container[key] === null)
        container[key] = next.startsWith('[') ? [] : {};
      node = container[key] as Record<string, unknown>;
    }
  }
  return true;
}

interface StreamingCall {
  key: string;
  args: Record<string, unknown>;
  /** The path whose string value may continue in the next fragment. */
  continuing: string | undefined;
}

const PART_KEYS = new Set([
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'executableCode',
  'codeExecutionResult',
  'inlineData',
  'fileData',
  'functionResponse',
  'videoMetadata',
]);

/** Decoder for `gemini`. */
export const createGeminiDecoder: DecoderFactory = (options) =>
  createSseJsonDecoder(options, 'gemini', (r) => {
    let calls = 0;
    let streaming: StreamingCall | undefined;

    function applyPartial(call: StreamingCall, partials: unknown[]): void {
      for (const p of partials) {
        if (!isObject(p) || typeof p.jsonPath !== 'string') continue;
        let value: unknown;
        if ('stringValue' in p) value = p.stringValue;
        else if ('numberValue' in p) value = p.numberValue;
        else if ('boolValue' in p) value = p.boolValue;
        else value = null;
        setPath(call.args, p.jsonPath, value, call.continuing === p.jsonPath);
        call.continuing = p.willContinue === true && typeof value === 'string' ? p.jsonPath : undefined;
      }
    }

    function closeStreaming(): void {
      if (!streaming) return;
      r.toolDone(streaming.key, { argumentsText: JSON.stringify(streaming.args), arguments: streaming.args });
      streaming = undefined;
    }

    function functionCall(r: ResponseEmitter, c: number, fc: Record<string, unknown>): void {
      const name = str(fc.name);
      const partial = Array.isArray(fc.partialArgs) ? fc.partialArgs : undefined;
      if (name === undefined && partial === undefined && !isObject(fc.args)) {
        closeStreaming(); // the empty `functionCall {}` that ends a streamed call
        return;
      }
      if (name !== undefined) {
        closeStreaming();
        const key = `c${c}:f${calls++}`;
        r.toolStart(key, { id: str(fc.id), name, index: calls - 1 });
        if (isObject(fc.args)) {
          r.toolDone(key, { argumentsText: JSON.stringify(fc.args), arguments: fc.args });
          return;
        }
        streaming = { key, args: {}, continuing: undefined };
      }
      if (!streaming) return;
      if (partial) applyPartial(streaming, partial);
      if (fc.willContinue !== true && name !== undefined) closeStreaming(); // a whole call given as partialArgs
    }

    function part(c: number, p: Record<string, unknown>, where: { data: string; offset: number }): void {
      const text = str(p.text);
      const sig = str(p.thoughtSignature);
      if (p.thought === true) {
        if (text) r.reasoningDelta(`c${c}:r`, text);
        if (sig) r.reasoningSignature(`c${c}:r`, sig);
        return;
      }
      if (sig) {
        // A signature on a function call or an (often empty) text part: kept opaque with the reasoning.
        r.reasoningSignature(`c${c}:r`, sig);
      }
      if (text) {
        if (r.hasReasoning(`c${c}:r`)) r.reasoningDone(`c${c}:r`);
        r.textDelta(`c${c}`, text);
      }
      if (isObject(p.functionCall)) functionCall(r, c, p.functionCall);
      if (isObject(p.executableCode)) {
        const key = `c${c}:x${calls++}`;
        r.toolStart(key, { name: 'code_execution', executor: 'server' });
        r.toolDone(key, { argumentsText: JSON.stringify(p.executableCode), arguments: p.executableCode });
      }
      if (isObject(p.codeExecutionResult)) {
        const res = p.codeExecutionResult;
        r.serverToolResult(`code-execution-${calls}`, 'code_execution', str(res.outcome) ?? 'result', str(res.output));
      }
      for (const k in p) {
        if (!PART_KEYS.has(k)) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, `unknown part field "${k}"`, {
            excerpt: where.data,
            offset: where.offset,
          });
          break;
        }
      }
    }

    return {
      onJson(json, frame) {
        if (!isObject(json)) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a chunk that is not a JSON object', {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        if (r.finished) {
          const id = str(json.responseId);
          if (json.error === undefined && id !== undefined && id !== r.responseId) {
            r.nextResponse();
            calls = 0;
            streaming = undefined;
          } else {
            r.diagnostic(DECODE_CODES.AFTER_TERMINATOR, 'a chunk after the finishing chunk was ignored', {
              excerpt: frame.data,
              offset: frame.offset,
            });
            return;
          }
        }
        if (json.error !== undefined) {
          const { error, limit } = classifyProviderError(readErrorObject(json.error));
          r.error(error, limit);
          r.finish('error');
          return;
        }
        if (!r.isStarted) r.started({ responseId: str(json.responseId), model: str(json.modelVersion) });
        let finish: string | undefined;
        if (Array.isArray(json.candidates)) {
          for (const cand of json.candidates) {
            if (!isObject(cand)) continue;
            const c = int(cand.index) ?? 0;
            const content = isObject(cand.content) ? cand.content : undefined;
            if (content && Array.isArray(content.parts))
              for (const p of content.parts) if (isObject(p)) part(c, p, frame);
            const f = str(cand.finishReason);
            if (f && finish === undefined) finish = f;
          }
        }
        if (isObject(json.usageMetadata)) r.usage(geminiUsage(json.usageMetadata));
        const blocked = isObject(json.promptFeedback) ? str(json.promptFeedback.blockReason) : undefined;
        if (finish !== undefined || blocked !== undefined) {
          closeStreaming();
          const raw = finish ?? (blocked as string);
          let stopReason: StopReason =
            blocked !== undefined && finish === undefined ? 'content_filter' : (STOP[raw] ?? 'other');
          if (stopReason === 'end_turn' && r.toolCallsCompleted > 0) stopReason = 'tool_use';
          r.finish('completed', { stopReason, rawStopReason: raw });
        }
      },
    };
  });
