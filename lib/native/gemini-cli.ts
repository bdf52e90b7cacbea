import type { ErrorInfo, TerminationReason } from '../events/index.js';
import type { DecoderOptions } from '../decode/types.js';
import { createJsonlInput, type JsonlInputOptions } from './jsonl-input.js';
import { createRunCore, reportLimitWording, tokenUsage, type RunCore } from './run-core.js';
import { settlingDecoder, type SettlingNativeDecoder } from './settling.js';
import { asRecord, excerpt, nonNegative, oneLine, str } from './text.js';
import { toolKindFor, toolTitleFor } from './tool-kind.js';
import { definedOnly } from '../defined-only.js';

const DENIAL_WORDING = /denied by policy|not allowed|permission|not found in registry|Tool "[^"]+" not found/i;

/**
 * Decoder for `gemini -p PROMPT --output-format stream-json` (NOTES.md §3). The assistant text
 * only arrives as `message` deltas; a message is complete when a tool call or the `result`
 * follows it (so its `assistant.message.completed` is `inferred`), and a stream that stops
 * after deltas gets `assistant.message.truncated`, never an invented final message. `error`
 * lines do not end the run (max-turns arrives as an error line under `status:"success"`).
 * Lines carrying the test-snapshot placeholders `<DURATION>` / `<TIMESTAMP>` are repaired
 * (placeholder -> null) and decoded, with a diagnostic.
 */
export function createGeminiCliDecoder(options: DecoderOptions): SettlingNativeDecoder {
  const core = createRunCore({ agent: 'gemini-cli', onEvent: options.onEvent });
  const state: GeminiState = { pending: [], messages: 0, user: 0 };
  const input = createJsonlInput(
    definedOnly<JsonlInputOptions>({
      core,
      maxLineLength: options.maxFrameBytes,
      repair: repairPlaceholders,
      onRecord: (record, line, raw) => decodeRecord(core, state, record, line, raw),
    }),
  );
  return settlingDecoder(core, input, {
    afterEnd() {
      // Deltas with no following record: the message may be cut; say so, never invent it.
      if (!core.settled && state.pending.length > 0) {
        core.emit(
          'assistant.message.truncated',
          { messageId: currentId(state), text: state.pending.join(''), reason: 'stream-ended' },
          'synthetic',
        );
        state.pending = [];
      }
    },
    beforeExit(code, signal) {
      if (code !== 0 || signal !== null) flush(core, state);
    },
  });
}

interface GeminiState {
  pending: string[];
  messages: number;
  user: number;
}

const PLACEHOLDER = /:\s*<[A-Z_]+>/g;

function repairPlaceholders(raw: string): Record<string, unknown> | undefined {
  if (!PLACEHOLDER.test(raw)) return undefined;
  PLACEHOLDER.lastIndex = 0;
  try {
    const value: unknown = JSON.parse(raw.replace(PLACEHOLDER, ':null'));
    return asRecord(value);
  } catch {
    // Still not JSON after the repair: the caller reports the line.
    return undefined;
  }
}

function currentId(state: GeminiState): string {
  return `message-${state.messages + 1}`;
}

/** Close the message the deltas built: a later record shows it is complete. */
function flush(core: RunCore, state: GeminiState): void {
  if (state.pending.length === 0) return;
  const text = state.pending.join('');
  state.pending = [];
  core.emit('assistant.message.completed', { messageId: currentId(state), text }, 'inferred');
  state.messages++;
}

function decodeRecord(
  core: RunCore,
  state: GeminiState,
  record: Record<string, unknown>,
  line: number,
  raw: string,
): void {
  const type = str(record.type);
  switch (type) {
    case 'init': {
      core.startTask('native');
      const id = str(record.session_id);
      const model = str(record.model);
      if (id) core.identify(definedOnly({ nativeSessionId: id, model: model || undefined }));
      else core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'init without session_id', { line, raw });
      return;
    }
    case 'message': {
      const content = str(record.content) ?? '';
      if (record.role === 'user') {
        state.user++;
        core.emit('user.message.received', { messageId: `user-${state.user}`, text: content }, 'native');
        return;
      }
      if (record.role !== 'assistant')
        return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'message with unknown role', { line, raw });
      core.emit('assistant.message.delta', { messageId: currentId(state), delta: content }, 'native');
      state.pending.push(content);
      // A non-delta assistant message is whole by itself.
      if (record.delta !== true) flush(core, state);
      return;
    }
    case 'tool_use': {
      flush(core, state);
      const id = str(record.tool_id);
      const name = str(record.tool_name) ?? 'unknown';
      if (!id) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'tool_use without tool_id', { line, raw });
      core.startTool(
        {
          toolCallId: id,
          name,
          kind: toolKindFor(name),
          title: toolTitleFor(name, record.parameters),
          input: record.parameters,
        },
        'native',
      );
      return;
    }
    case 'tool_result': {
      flush(core, state);
      const id = str(record.tool_id);
      if (!id) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'tool_result without tool_id', { line, raw });
      const name = core.toolName(id);
      const base = definedOnly({ toolCallId: id, name: name || undefined });
      const output = str(record.output);
      const error = asRecord(record.error);
      if (record.status === 'success') {
        core.finishTool(
          {
            type: 'tool.completed',
            payload: definedOnly({
              ...base,
              summary: oneLine(output ?? '', 120) || 'ok',
              output: output ? excerpt(output) : undefined,
            }),
          },
          'native',
        );
        return;
      }
      const message = str(error?.message) ?? output ?? 'tool error';
      if (DENIAL_WORDING.test(message)) {
        core.finishTool({ type: 'tool.denied', payload: { ...base, reason: oneLine(message, 300) } }, 'inferred');
      } else {
        core.finishTool(
          {
            type: 'tool.failed',
            payload: definedOnly({
              ...base,
              cause: 'TOOL_ERROR',
              message: oneLine(message, 300),
              hint: str(error?.type) || undefined,
            }),
          },
          'native',
        );
      }
      return;
    }
    case 'error': {
      const message = str(record.message) ?? 'error';
      if (/maximum session turns/i.test(message))
        core.emit('limit.reached', { kind: 'max-turns', message }, 'inferred');
      else reportLimitWording(core, message);
      if (record.severity === 'warning') {
        core.diagnostic('MINICODE_W_NATIVE_AGENT_WARNING', `gemini-cli warning: ${oneLine(message, 300)}`, { line });
        return;
      }
      core.emit(
        'error.raised',
        {
          error: {
            category: 'AGENT_ERROR',
            code: 'gemini-cli:error',
            message: oneLine(message, 500),
            recoverability: 'UNKNOWN',
          },
        },
        'native',
        { status: 'active' },
      );
      return;
    }
    case 'result':
      flush(core, state);
      return resultRecord(core, record);
    default:
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown gemini-cli record type ${JSON.stringify(type ?? null)}; skipped`,
        { line, raw },
      );
  }
}

function resultRecord(core: RunCore, record: Record<string, unknown>): void {
  const stats = asRecord(record.stats);
  const durationMs = nonNegative(stats?.duration_ms);
  if (stats) {
    const usage = tokenUsage([
      ['inputTokens', stats.input_tokens],
      ['outputTokens', stats.output_tokens],
      ['cacheReadTokens', stats.cached],
      ['totalTokens', stats.total_tokens],
    ]);
    const models = Object.keys(asRecord(stats.models) ?? {});
    core.emit(
      'usage.reported',
      definedOnly({
        usage,
        cumulative: true,
        scope: 'session',
        model: models.length === 1 && models[0] ? models[0] : undefined,
      }),
      'native',
    );
  }
  if (record.status === 'success') {
    core.completeTask('native', durationMs === undefined ? {} : { durationMs });
    return;
  }
  const error = asRecord(record.error);
  const errorType = str(error?.type);
  const message = str(error?.message) ?? 'gemini-cli reported an error';
  if (errorType === 'FatalCancellationError') return core.cancelTask('aborted', message, 'native');
  let reason: TerminationReason = 'provider';
  if (errorType === 'TerminalQuotaError')
    core.emit('limit.reached', { kind: 'usage-quota', message: oneLine(message, 300) }, 'native');
  else if (errorType === 'FatalTurnLimitedError') {
    reason = 'max_steps_exceeded';
    core.emit('limit.reached', { kind: 'max-turns', message: oneLine(message, 300) }, 'native');
  } else reportLimitWording(core, message);
  const info: ErrorInfo = definedOnly({
    category: errorType === 'FatalAuthenticationError' ? 'CONFIGURATION_ERROR' : 'PROVIDER_ERROR',
    code: `gemini-cli:${errorType ?? 'error'}`,
    message: oneLine(message, 500),
    recoverability: errorType === 'TerminalQuotaError' ? 'RETRYABLE' : 'UNKNOWN',
    providerCode: errorType || undefined,
  });
  core.failTask(reason, info, 'native', durationMs);
}
