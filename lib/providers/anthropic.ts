/**
 * Anthropic Messages streaming: `event: <type>` + `data: {"type": ...}` frames, grammar
 * `message_start (content_block_start delta* content_block_stop)* message_delta+ message_stop`,
 * with `ping` anywhere and `error` possibly at any point (then the server closes). See
 * fixtures/providers/NOTES.md §5. Hazards handled: JSON padded with spaces (we never compare
 * bytes), an empty `thinking_delta` before `signature_delta`, `redacted_thinking` arriving whole,
 * server tools (`server_tool_use` + `*_tool_result` blocks), cumulative `message_delta.usage`
 * that may change `input_tokens`, a refusal with no content block, a duplicated
 * `message_start` (ignored) and a second one spliced mid-stream (the first generation is
 * abandoned, its block indexes restart at 0).
 */
import type { StopReason, Usage } from '../events/index.js';
import type { DecoderFactory } from '../decode/types.js';
import { DECODE_CODES } from './common/codes.js';
import { classifyProviderError, readErrorObject } from './common/errors.js';
import { parseAnthropicDelta } from './common/templates.js';
import { createSseJsonDecoder, int, isObject, str } from './common/sse-json.js';

const STOP: Record<string, StopReason> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'max_tokens',
};

/** Normalise an Anthropic usage object (message_start or cumulative message_delta). */
export function anthropicUsage(u: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = int(u.input_tokens);
  const output = int(u.output_tokens);
  const read = int(u.cache_read_input_tokens);
  const write = int(u.cache_creation_input_tokens);
  const creation = u.cache_creation;
  const write1h =
    creation !== null && typeof creation === 'object'
      ? int((creation as Record<string, unknown>).ephemeral_1h_input_tokens)
      : undefined;
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (read !== undefined) out.cacheReadTokens = read;
  if (write !== undefined) out.cacheWriteTokens = write;
  if (write1h !== undefined && write1h > 0) out.cacheWrite1hTokens = write1h;
  return out;
}

type BlockKind = 'text' | 'thinking' | 'tool' | 'ignored';
interface Block {
  kind: BlockKind;
  key: string;
  /** A tool_use block whose `input` arrived whole in content_block_start. */
  wholeInput?: unknown;
  sawDelta?: boolean;
}

/** Summarise a server tool result block for `tool.completed`. */
function serverResultSummary(block: Record<string, unknown>): { summary: string; output?: string } {
  const content = block.content;
  if (isObject(content)) {
    const code = int(content.return_code);
    const stdout = str(content.stdout) ?? '';
    const stderr = str(content.stderr) ?? '';
    if (code !== undefined || stdout || stderr) return { summary: `exit ${code ?? '?'}`, output: stdout + stderr };
    if (str(content.error_code)) return { summary: `error ${String(content.error_code)}` };
  }
  if (Array.isArray(content)) return { summary: `${content.length} result(s)` };
  return { summary: String(block.type) };
}

/** Decoder for `anthropic`. */
export const createAnthropicDecoder: DecoderFactory = (options) =>
  createSseJsonDecoder(options, 'anthropic', (r) => {
    let blocks = new Map<number, Block>();
    let generation = 0;
    let messageId: string | undefined;
    let rawStop: string | undefined;
    let refusal: string | undefined;

    function block(index: number | undefined, where: { data: string; offset: number }): Block | undefined {
      const b = index === undefined ? undefined : blocks.get(index);
      if (!b)
        r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, `content block ${String(index)} was never started`, {
          excerpt: where.data,
          offset: where.offset,
        });
      return b;
    }

    function closeBlock(b: Block): void {
      if (b.kind === 'text') r.textDone(b.key);
      else if (b.kind === 'thinking') r.reasoningDone(b.key);
      else if (b.kind === 'tool') {
        if (!b.sawDelta && b.wholeInput !== undefined)
          r.toolDone(b.key, { argumentsText: JSON.stringify(b.wholeInput), arguments: b.wholeInput });
        else r.toolDone(b.key);
      }
    }

    return {
      parse: parseAnthropicDelta,
      // Keep-alives carry nothing: not parsed.
      skip: (event) => event === 'ping',
      onJson(json, frame) {
        if (!isObject(json)) {
          r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'a frame that is not a JSON object', {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        const type = str(json.type) ?? frame.event;
        if (r.finished && type !== 'message_start' && type !== 'ping') {
          r.diagnostic(DECODE_CODES.AFTER_TERMINATOR, `"${String(type)}" after message_stop was ignored`, {
            excerpt: frame.data,
            offset: frame.offset,
          });
          return;
        }
        switch (type) {
          case 'ping':
            return;
          case 'message_start': {
            const m = isObject(json.message) ? json.message : {};
            const id = str(m.id);
            if (r.finished) {
              r.nextResponse();
              messageId = undefined;
              rawStop = undefined;
              refusal = undefined;
              blocks = new Map();
            } else if (messageId !== undefined) {
              if (id === messageId) return; // a duplicated message_start (proxy/retry artefact)
              r.diagnostic(
                DECODE_CODES.SPLICED_RESPONSE,
                `message ${String(id)} started inside unfinished message ${messageId}; the first is abandoned`,
                {
                  excerpt: frame.data,
                  offset: frame.offset,
                },
              );
              r.abandonOpen('a second message_start was spliced into the stream');
              blocks = new Map();
              generation++;
            }
            messageId = id ?? `anthropic-${generation}`;
            r.started({ responseId: id, model: str(m.model) });
            if (isObject(m.usage)) r.usage(anthropicUsage(m.usage));
            return;
          }
          case 'content_block_start': {
            const index = int(json.index);
            const cb = isObject(json.content_block) ? json.content_block : undefined;
            if (index === undefined || !cb) {
              r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, 'content_block_start without index or content_block', {
                excerpt: frame.data,
                offset: frame.offset,
              });
              return;
            }
            r.started();
            const key = `g${generation}:b${index}`;
            const cbType = str(cb.type) ?? '';
            if (cbType === 'text') {
              blocks.set(index, { kind: 'text', key });
              const t = str(cb.text);
              if (t) r.textDelta(key, t);
            } else if (cbType === 'thinking') {
              blocks.set(index, { kind: 'thinking', key });
              const t = str(cb.thinking);
              if (t) r.reasoningDelta(key, t);
              const sig = str(cb.signature);
              if (sig) r.reasoningSignature(key, sig);
            } else if (cbType === 'redacted_thinking') {
              blocks.set(index, { kind: 'ignored', key });
              r.reasoningDone(key, { data: str(cb.data) ?? '', redacted: true });
            } else if (cbType === 'tool_use' || cbType === 'server_tool_use' || cbType === 'mcp_tool_use') {
              const b: Block = { kind: 'tool', key };
              if (isObject(cb.input) && Object.keys(cb.input).length > 0) b.wholeInput = cb.input;
              blocks.set(index, b);
              r.toolStart(key, {
                id: str(cb.id),
                name: str(cb.name),
                index,
                executor: cbType === 'tool_use' ? undefined : 'server',
              });
            } else if (cbType.endsWith('_tool_result')) {
              blocks.set(index, { kind: 'ignored', key });
              const { summary, output } = serverResultSummary(cb);
              r.serverToolResult(str(cb.tool_use_id) ?? key, cbType, summary, output);
            } else {
              // compaction, fallback and future block kinds: nothing to show; only unknown ones are reported.
              blocks.set(index, { kind: 'ignored', key });
              if (cbType !== 'compaction' && cbType !== 'fallback') {
                r.diagnostic(
                  DECODE_CODES.UNEXPECTED_SHAPE,
                  `unknown content block type "${cbType}"; its deltas are ignored`,
                  { excerpt: frame.data, offset: frame.offset },
                );
              }
            }
            return;
          }
          case 'content_block_delta': {
            const b = block(int(json.index), frame);
            const delta = isObject(json.delta) ? json.delta : undefined;
            if (!b || !delta) return;
            const dType = str(delta.type);
            if (dType === 'text_delta' && b.kind === 'text') r.textDelta(b.key, str(delta.text) ?? '');
            else if (dType === 'thinking_delta' && b.kind === 'thinking')
              r.reasoningDelta(b.key, str(delta.thinking) ?? '');
            else if (dType === 'signature_delta' && b.kind === 'thinking')
              r.reasoningSignature(b.key, str(delta.signature) ?? '');
            else if (dType === 'input_json_delta' && b.kind === 'tool') {
              const part = str(delta.partial_json) ?? '';
              if (part) b.sawDelta = true;
              r.toolDelta(b.key, part);
            } else if (dType === 'citations_delta' || b.kind === 'ignored') {
              // citations ride along the text; deltas of ignored blocks (compaction) are dropped.
            } else {
              r.diagnostic(DECODE_CODES.UNEXPECTED_SHAPE, `delta "${String(dType)}" does not fit a ${b.kind} block`, {
                excerpt: frame.data,
                offset: frame.offset,
              });
            }
            return;
          }
          case 'content_block_stop': {
            const index = int(json.index);
            const b = block(index, frame);
            if (!b || index === undefined) return;
            blocks.delete(index);
            closeBlock(b);
            return;
          }
          case 'message_delta': {
            const d = isObject(json.delta) ? json.delta : {};
            const stop = str(d.stop_reason);
            if (stop) rawStop = stop;
            if (isObject(d.stop_details) && str(d.stop_details.explanation)) refusal = str(d.stop_details.explanation);
            if (isObject(json.usage)) r.usage(anthropicUsage(json.usage));
            return;
          }
          case 'message_stop': {
            for (const b of blocks.values()) closeBlock(b);
            blocks.clear();
            if (rawStop === 'refusal') r.refusalDelta('refusal', refusal ?? 'refused');
            r.finish(
              'completed',
              rawStop === undefined ? {} : { stopReason: STOP[rawStop] ?? 'other', rawStopReason: rawStop },
            );
            return;
          }
          case 'error': {
            const { error, limit } = classifyProviderError(readErrorObject(json.error, 'error'));
            r.error(error, limit);
            return;
          }
          default:
            r.diagnostic(DECODE_CODES.UNKNOWN_EVENT, `unknown Anthropic event "${String(type)}"`, {
              excerpt: frame.data,
              offset: frame.offset,
            });
        }
      },
    };
  });
