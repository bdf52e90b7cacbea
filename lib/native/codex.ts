import type { ErrorInfo, PayloadOf } from '../events/index.js';
import type { DecoderOptions } from '../decode/types.js';
import { createJsonlInput, type JsonlInputOptions } from './jsonl-input.js';
import { createRunCore, reportLimitWording, type RunCore } from './run-core.js';
import { settlingDecoder, type SettlingNativeDecoder } from './settling.js';
import { asRecord, count, excerpt, matchLimitWording, oneLine, str } from './text.js';
import { toolKindFor } from './tool-kind.js';
import { definedOnly } from '../defined-only.js';

/**
 * Decoder for `codex exec --json` (JSONL on stdout; NOTES.md §1). One item object carries a
 * tool call and its result; `item.started` opens it, `item.completed` ends it. Usage on
 * `turn.completed` is the thread's cumulative total, so it is reported with `cumulative:true`
 * (replace, never add). `error` lines and `error` items do not end the run; `turn.completed` /
 * `turn.failed` do. Older builds spell the item type `item_type` and the message
 * `assistant_message`; the very first `--experimental-json` builds said `session.created`.
 */
export function createCodexDecoder(options: DecoderOptions): SettlingNativeDecoder {
  const core = createRunCore({ agent: 'codex', onEvent: options.onEvent });
  let threadId: string | undefined;
  // One callback for the stream (not a closure per record); `line` is the record's line.
  const onThread = (id: string, line: number): boolean => {
    if (threadId !== undefined && threadId !== id) {
      core.diagnostic('MINICODE_E_NATIVE_SESSION_CHANGED', `thread id changed from ${threadId} to ${id}`, { line });
    }
    const resumed = threadId === id;
    threadId = id;
    return resumed;
  };
  const input = createJsonlInput(
    definedOnly<JsonlInputOptions>({
      core,
      maxLineLength: options.maxFrameBytes,
      onRecord: (record, line, raw) => decodeRecord(core, record, line, raw, onThread),
    }),
  );
  return settlingDecoder(core, input);
}

function decodeRecord(
  core: RunCore,
  record: Record<string, unknown>,
  line: number,
  raw: string,
  onThread: (id: string, line: number) => boolean,
): void {
  const type = str(record.type);
  switch (type) {
    case 'thread.started':
    case 'session.created': {
      const id = str(record.thread_id) ?? str(record.session_id);
      if (!id) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', `${type} without a thread id`, { line, raw });
      // `exec resume` re-emits the same thread id; after a settled turn it is the next run of
      // the same thread (a new task, identified as resumed); before, it is a repeat.
      const again = onThread(id, line);
      core.startTask('native');
      core.identify(again ? { nativeSessionId: id, resumed: true } : { nativeSessionId: id });
      return;
    }
    case 'turn.started':
      core.startTask('native');
      return;
    case 'turn.completed': {
      const usage = usageOf(record.usage);
      if (usage) core.emit('usage.reported', { usage, cumulative: true, scope: 'session' }, 'native');
      core.completeTask('native');
      return;
    }
    case 'turn.failed': {
      const message = str(asRecord(record.error)?.message) ?? 'turn failed';
      reportLimitWording(core, message);
      core.failTask('provider', providerError(message), 'native');
      return;
    }
    case 'error': {
      const message = str(record.message) ?? '';
      const retry = /^Reconnecting\.*\s*(\d+)\/(\d+)/i.exec(message);
      if (retry) {
        core.emit(
          'recovery.started',
          { strategy: 'retry', reason: oneLine(message, 300), attempt: Number(retry[1]) },
          'inferred',
        );
        return;
      }
      reportLimitWording(core, message);
      core.emit('error.raised', { error: providerError(message) }, 'native', { status: 'active' });
      return;
    }
    case 'item.started':
    case 'item.updated':
    case 'item.completed': {
      const item = asRecord(record.item);
      if (!item) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', `${type} without an item`, { line, raw });
      decodeItem(core, type, item, line, raw);
      return;
    }
    default:
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown codex record type ${JSON.stringify(type ?? null)}; skipped`,
        { line, raw },
      );
  }
}

type Phase = 'item.started' | 'item.updated' | 'item.completed';

function decodeItem(core: RunCore, phase: Phase, item: Record<string, unknown>, line: number, raw: string): void {
  const id = str(item.id);
  let itemType = str(item.type) ?? str(item.item_type);
  if (itemType === 'assistant_message') itemType = 'agent_message';
  if (!id || !itemType)
    return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'item without id or type', { line, raw });
  const done = phase === 'item.completed';
  switch (itemType) {
    case 'agent_message':
      if (done) core.emit('assistant.message.completed', { messageId: id, text: str(item.text) ?? '' }, 'native');
      return;
    case 'reasoning': {
      const text = str(item.text);
      if (done)
        core.emit('assistant.reasoning.completed', text ? { reasoningId: id, text } : { reasoningId: id }, 'native');
      return;
    }
    case 'command_execution':
      return commandItem(core, phase, id, item);
    case 'file_change':
      return fileChangeItem(core, phase, id, item);
    case 'mcp_tool_call': {
      const name = `mcp:${str(item.server) ?? '?'}/${str(item.tool) ?? '?'}`;
      openOnce(core, id, { toolCallId: id, name, kind: 'other', title: name, input: item.arguments });
      if (done) {
        const error = str(asRecord(item.error)?.message);
        if (error !== undefined || item.status === 'failed') {
          core.finishTool(
            {
              type: 'tool.failed',
              payload: { toolCallId: id, name, cause: 'TOOL_ERROR', message: error ?? 'MCP tool call failed' },
            },
            'native',
          );
        } else {
          const output = mcpText(item.result);
          core.finishTool(
            {
              type: 'tool.completed',
              payload: definedOnly({
                toolCallId: id,
                name,
                summary: 'ok',
                output: output ? excerpt(output) : undefined,
              }),
            },
            'native',
          );
        }
      }
      return;
    }
    case 'web_search': {
      const query = str(item.query) ?? '';
      openOnce(core, id, {
        toolCallId: id,
        name: 'web_search',
        kind: 'search',
        title: oneLine(query),
        input: { query },
      });
      if (done)
        core.finishTool(
          {
            type: 'tool.completed',
            payload: { toolCallId: id, name: 'web_search', summary: oneLine(query) || 'searched' },
          },
          'native',
        );
      return;
    }
    case 'collab_tool_call': {
      const name = `collab:${str(item.tool) ?? '?'}`;
      openOnce(core, id, { toolCallId: id, name, kind: 'other', title: oneLine(str(item.prompt) ?? name) });
      if (done) endByStatus(core, id, name, str(item.status), 'sub-agent call');
      return;
    }
    case 'todo_list': {
      const steps = planSteps(item.items);
      if (phase === 'item.started') core.emit('plan.created', { planId: id, steps }, 'native');
      else core.emit('plan.updated', { planId: id, steps }, 'native');
      return;
    }
    case 'error':
      // An error item reports a problem the run survives (e.g. a config warning).
      if (done) {
        const message = str(item.message) ?? 'error';
        reportLimitWording(core, message);
        core.emit(
          'error.raised',
          {
            error: {
              ...providerError(message),
              category: 'AGENT_ERROR',
              code: 'codex:error-item',
              recoverability: 'RECOVERABLE',
            },
          },
          'native',
          {
            severity: 'warning',
            status: 'active',
          },
        );
      }
      return;
    default:
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_ITEM',
        `unknown codex item type ${JSON.stringify(itemType)}; skipped`,
        { line, raw },
      );
  }
}

function openOnce(core: RunCore, id: string, payload: Omit<PayloadOf<'tool.started'>, 'executor'>): void {
  // item.completed without item.started (older file_change) still opens the call, natively:
  // the record itself documents the call.
  if (!core.isToolOpen(id)) core.startTool(payload, 'native');
}

function commandItem(core: RunCore, phase: Phase, id: string, item: Record<string, unknown>): void {
  const command = str(item.command) ?? '';
  const name = 'shell';
  if (phase === 'item.started') {
    core.startTool(
      { toolCallId: id, name, kind: toolKindFor('shell'), title: oneLine(command), input: { command } },
      'native',
    );
    return;
  }
  if (phase !== 'item.completed') return;
  if (!core.isToolOpen(id))
    openOnce(core, id, { toolCallId: id, name, kind: 'execute', title: oneLine(command), input: { command } });
  const output = str(item.aggregated_output) ?? '';
  const exitCode = typeof item.exit_code === 'number' && Number.isInteger(item.exit_code) ? item.exit_code : undefined;
  const status = str(item.status);
  // Payloads are built field by field in the order of their spread-built form (same JSON):
  // a conditional spread costs a temporary object and a generic copy per command.
  if (status === 'declined') {
    core.finishTool(
      { type: 'tool.denied', payload: { toolCallId: id, name, reason: 'declined by the sandbox or approval policy' } },
      'native',
    );
  } else if (status === 'failed' || (exitCode !== undefined && exitCode !== 0)) {
    const failed: PayloadOf<'tool.failed'> = {
      toolCallId: id,
      name,
      cause: 'TOOL_ERROR',
      message: exitCode === undefined ? 'command failed' : `exit ${exitCode}`,
    };
    if (output) failed.output = excerpt(output);
    if (exitCode !== undefined) failed.receipt = { exitCode };
    core.finishTool({ type: 'tool.failed', payload: failed }, 'native');
  } else if (exitCode === undefined) {
    // codex#14691: an item abandoned at turn end is reported "completed" with exit_code null.
    core.finishTool(
      { type: 'tool.cancelled', payload: { toolCallId: id, name, reason: 'abandoned without an exit code' } },
      'inferred',
    );
  } else {
    const lines = lineCount(output);
    const completed: PayloadOf<'tool.completed'> = {
      toolCallId: id,
      name,
      summary: `exit ${exitCode}, ${lines} line${lines === 1 ? '' : 's'}`,
    };
    if (output) completed.output = excerpt(output);
    completed.receipt = { exitCode, lines };
    core.finishTool({ type: 'tool.completed', payload: completed }, 'native');
  }
}

/**
 * Lines of a command's output, a final line break not starting another: what
 * `output.replace(/\r?\n$/, '').split('\n').length` gives (0 for ''), counted without
 * building the array of lines for every command.
 */
function lineCount(output: string): number {
  if (output === '') return 0;
  // A final `\n` ends the last line; the `\r` before it needs no care (it is no `\n`).
  const end = output.charCodeAt(output.length - 1) === 0x0a ? output.length - 1 : output.length;
  let lines = 1;
  for (let i = output.indexOf('\n'); i !== -1 && i < end; i = output.indexOf('\n', i + 1)) lines++;
  return lines;
}

const CHANGE_KINDS: Record<string, 'create' | 'modify' | 'delete' | 'move'> = {
  add: 'create',
  update: 'modify',
  delete: 'delete',
  move: 'move',
};

function fileChangeItem(core: RunCore, phase: Phase, id: string, item: Record<string, unknown>): void {
  // One loop rather than map/flatMap/map chains: this runs for every file change record.
  const changes: { path: string; kind: 'create' | 'modify' | 'delete' | 'move' }[] = [];
  const paths: string[] = [];
  const raw = Array.isArray(item.changes) ? (item.changes as unknown[]) : [];
  for (let i = 0; i < raw.length; i++) {
    const c = asRecord(raw[i]);
    const path = c && str(c.path);
    if (!path) continue;
    changes.push({ path, kind: CHANGE_KINDS[str(c.kind) ?? ''] ?? 'modify' });
    paths.push(path);
  }
  // The start's payload is built only when the call is not open yet (item.completed after item.started: the common case).
  if (!core.isToolOpen(id))
    openOnce(core, id, {
      toolCallId: id,
      name: 'apply_patch',
      kind: 'edit',
      title: oneLine(paths.join(', ') || 'patch'),
      locations: paths.map((path) => ({ path })),
    });
  if (phase !== 'item.completed') return;
  const status = str(item.status);
  if (status === 'completed' && changes.length > 0)
    core.emit('file.changed', { changes, toolCallId: id }, 'native', { correlationId: id });
  endByStatus(core, id, 'apply_patch', status, `${changes.length} file${changes.length === 1 ? '' : 's'} changed`, {
    paths,
  });
}

function endByStatus(
  core: RunCore,
  id: string,
  name: string,
  status: string | undefined,
  summary: string,
  receipt?: { paths: string[] },
): void {
  if (status === 'failed') {
    core.finishTool(
      { type: 'tool.failed', payload: { toolCallId: id, name, cause: 'TOOL_ERROR', message: `${name} failed` } },
      'native',
    );
  } else if (status === 'declined') {
    core.finishTool(
      { type: 'tool.denied', payload: { toolCallId: id, name, reason: 'declined by the sandbox or approval policy' } },
      'native',
    );
  } else {
    const completed: PayloadOf<'tool.completed'> = { toolCallId: id, name, summary };
    if (receipt) completed.receipt = receipt;
    core.finishTool({ type: 'tool.completed', payload: completed }, 'native');
  }
}

function planSteps(items: unknown): PayloadOf<'plan.created'>['steps'] {
  if (!Array.isArray(items)) return [];
  return items.map(asRecord).flatMap((step, index) =>
    step
      ? [
          {
            id: String(index + 1),
            title: str(step.text) ?? '',
            status: step.completed === true ? ('completed' as const) : ('pending' as const),
          },
        ]
      : [],
  );
}

function mcpText(result: unknown): string | undefined {
  const content = asRecord(result)?.content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map(asRecord).flatMap((c) => (c && typeof c.text === 'string' ? [c.text] : []));
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** Codex usage: `input_tokens` includes cached and cache-write tokens, `output_tokens` includes reasoning. */
function usageOf(value: unknown): PayloadOf<'usage.reported'>['usage'] | undefined {
  const u = asRecord(value);
  if (!u) return undefined;
  // What tokenUsage([[field, raw], ...]) gives, in the same order, without its pair arrays (once per turn).
  const usage: PayloadOf<'usage.reported'>['usage'] = {};
  const input = count(u.input_tokens);
  if (input !== undefined) usage.inputTokens = input;
  const output = count(u.output_tokens);
  if (output !== undefined) usage.outputTokens = output;
  const cacheRead = count(u.cached_input_tokens);
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  const cacheWrite = count(u.cache_write_input_tokens);
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  const reasoning = count(u.reasoning_output_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

function providerError(message: string): ErrorInfo {
  const limit = matchLimitWording(message);
  return definedOnly({
    category: 'PROVIDER_ERROR',
    code: limit ? `codex:${limit.kind}` : 'codex:error',
    message: oneLine(message, 500),
    recoverability: limit ? 'RETRYABLE' : 'UNKNOWN',
    retryAfterMs: limit?.retryAfterMs,
  });
}
