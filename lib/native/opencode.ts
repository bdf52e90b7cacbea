import type { ErrorInfo } from '../events/index.js';
import type { DecoderOptions } from '../decode/types.js';
import { createJsonlInput, type JsonlInputOptions } from './jsonl-input.js';
import { errorInfo, reportStepUsage, toolPart } from './opencode-parts.js';
import { createOpencodeServerState, decodeServerEvent, isServerEvent } from './opencode-server.js';
import { createRunCore, type RunCore } from './run-core.js';
import { settlingDecoder, type SettlingNativeDecoder } from './settling.js';
import { asRecord, matchLimitWording, str } from './text.js';
import { definedOnly } from '../defined-only.js';

/**
 * Decoder for `opencode run --format json` (NOTES.md §4): `step_start`, `text`, `reasoning`,
 * `tool_use` (one line per finished call, call and result together), `step_finish` (per-step
 * tokens and cost: reported with `cumulative:false`), `error`. There is no terminal record:
 * the process exit settles the run (clean exit -> completed unless an `error` line came,
 * non-zero -> failed). A `done` line (an unmerged upstream PR) settles it natively. The same
 * decoder reads the server's `GET /event` bus events (one JSON payload per line, or raw SSE
 * `data:` lines), where `session.idle` settles the run; see opencode-server.ts.
 */
export function createOpencodeDecoder(options: DecoderOptions): SettlingNativeDecoder {
  const core = createRunCore({ agent: 'opencode', onEvent: options.onEvent });
  const state: OpencodeState = { lastError: undefined, server: createOpencodeServerState() };
  const input = createJsonlInput(
    definedOnly<JsonlInputOptions>({
      core,
      maxLineLength: options.maxFrameBytes,
      repair: sseData,
      onRecord: (record, line, raw) => {
        if (isServerEvent(record)) decodeServerEvent(core, state.server, record, line, raw);
        else decodeRecord(core, state, record, line, raw);
      },
    }),
  );
  return settlingDecoder(core, input, {
    beforeExit(code, signal) {
      if (core.settled || code !== 0 || signal !== null || !state.lastError) return false;
      // opencode exits 1 after a session error; a clean exit with one is still a failure.
      core.failTask('provider', state.lastError, 'inferred');
      return true;
    },
    // opencode has no terminal record: a clean exit completes the run.
    cleanExitCompletes: true,
  });
}

interface OpencodeState {
  lastError: ErrorInfo | undefined;
  server: ReturnType<typeof createOpencodeServerState>;
}

/** Raw SSE framing: `data: {...}` lines decode as their payload; `event:`/`id:`/comments are skipped. */
function sseData(raw: string): Record<string, unknown> | undefined {
  if (!raw.startsWith('data:')) return undefined;
  try {
    return asRecord(JSON.parse(raw.slice(5).trim()));
  } catch {
    // Not JSON: a line without data.
    return undefined;
  }
}

function decodeRecord(
  core: RunCore,
  state: OpencodeState,
  record: Record<string, unknown>,
  line: number,
  raw: string,
): void {
  const type = str(record.type);
  const sessionId = str(record.sessionID);
  if (sessionId) core.identify({ nativeSessionId: sessionId });
  const part = asRecord(record.part);
  switch (type) {
    case 'step_start':
      core.startTask('synthetic');
      return;
    case 'text':
      if (part)
        core.emit(
          'assistant.message.completed',
          { messageId: str(part.id) ?? `line-${line}`, text: str(part.text) ?? '' },
          'native',
        );
      return;
    case 'reasoning':
      if (part) {
        const text = str(part.text);
        core.emit(
          'assistant.reasoning.completed',
          definedOnly({ reasoningId: str(part.id) ?? `line-${line}`, text: text || undefined }),
          'native',
        );
      }
      return;
    case 'tool_use':
      if (!part) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'tool_use without part', { line, raw });
      return toolPart(core, part, line, raw);
    case 'step_finish':
      if (part) reportStepUsage(core, part);
      return;
    case 'error': {
      const error = errorInfo(record.error);
      state.lastError = error;
      if (error.httpStatus === 429 || matchLimitWording(`${error.code} ${error.message}`)) {
        const limit = matchLimitWording(`${error.code} ${error.message}`);
        core.emit(
          'limit.reached',
          { kind: limit?.kind ?? 'rate-limit', message: error.message },
          error.httpStatus === 429 ? 'native' : 'inferred',
        );
      }
      core.emit('error.raised', { error }, 'native', { status: 'active' });
      return;
    }
    case 'done':
      if (state.lastError) core.failTask('provider', state.lastError, 'native');
      else core.completeTask('native');
      return;
    default:
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown opencode record type ${JSON.stringify(type ?? null)}; skipped`,
        { line, raw },
      );
  }
}
