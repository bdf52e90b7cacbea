import type { ErrorInfo, PayloadOf } from '../events/index.js';
import type { DecoderOptions } from '../decode/types.js';
import { createJsonlInput, type JsonlInputOptions } from './jsonl-input.js';
import { createRunCore, tokenUsage, type RunCore } from './run-core.js';
import { settlingDecoder, type SettlingNativeDecoder } from './settling.js';
import { asRecord, count, excerpt, matchLimitWording, nonNegative, oneLine, str } from './text.js';
import { toolKindFor, toolTitleFor } from './tool-kind.js';
import { definedOnly } from '../defined-only.js';

// Record kinds Claude Code documents that carry nothing the event model needs (lifecycle of
// subagent tasks already shows as the spawning tool; hooks, status and token estimates are
// chatter). Known, so they are skipped without a diagnostic.
const QUIET_SYSTEM = new Set([
  'status',
  'compact_boundary',
  'hook_started',
  'hook_progress',
  'hook_response',
  'task_started',
  'task_progress',
  'task_updated',
  'task_notification',
  'thinking_tokens',
  'informational',
  'notification',
  'local_command_output',
  'files_persisted',
  'model_refusal_fallback',
  'model_refusal_no_fallback',
  'session_state_changed',
  'background_tasks_changed',
  'commands_changed',
  'memory_recall',
  'elicitation_complete',
  'plugin_install',
  'mirror_error',
  'control_request_progress',
  'worker_shutting_down',
  'session_writes_lost',
]);
const QUIET_TYPES = new Set([
  'tool_progress',
  'tool_use_summary',
  'auth_status',
  'prompt_suggestion',
  'conversation_reset',
  'keep_alive',
]);
const QUIET_CONTROL = new Set([
  'initialize',
  'interrupt',
  'set_permission_mode',
  'set_model',
  'hook_callback',
  'mcp_message',
]);
const DENIAL_WORDING =
  /haven't granted|has not been granted|permission (?:was )?denied|doesn't want to proceed|rejected|denied by/i;

/**
 * Decoder for `claude -p --output-format stream-json --verbose` (NOTES.md §2). `tool_use`
 * blocks in `assistant` frames open tool calls, `tool_result` blocks in `user` frames end them
 * (paired by id); `result` settles the run, including the API-error form
 * `{subtype:"success", is_error:true}`. Permission prompts (`control_request` can_use_tool)
 * become approvals; the host's answer is not on stdout, so an approval settles from the
 * `control_response` when a recording has it, else from the tool's own result (inferred).
 * Subagent frames carry `parent_tool_use_id`, kept as `parentToolCallId` / `parentId`.
 */
export function createClaudeCodeDecoder(options: DecoderOptions): SettlingNativeDecoder {
  const core = createRunCore({ agent: 'claude-code', onEvent: options.onEvent });
  const state: ClaudeState = {
    textBlocks: new Map(),
    mainText: false,
    streamMessageId: undefined,
    deniedTools: new Set(),
  };
  const input = createJsonlInput(
    definedOnly<JsonlInputOptions>({
      core,
      maxLineLength: options.maxFrameBytes,
      onRecord: (record, line, raw) => decodeRecord(core, state, record, line, raw),
    }),
  );
  return settlingDecoder(core, input);
}

interface ClaudeState {
  /** Text blocks seen per message id, so each block gets its own message id. */
  textBlocks: Map<string, number>;
  /** Whether the main agent (not a subagent) produced any text. */
  mainText: boolean;
  streamMessageId: string | undefined;
  /** Tool calls whose approval was denied. */
  deniedTools: Set<string>;
}

function decodeRecord(
  core: RunCore,
  state: ClaudeState,
  record: Record<string, unknown>,
  line: number,
  raw: string,
): void {
  const type = str(record.type);
  switch (type) {
    case 'system':
      return systemRecord(core, record, line, raw);
    case 'assistant':
      return assistantRecord(core, state, record, line, raw);
    case 'user':
      return userRecord(core, state, record);
    case 'result':
      return resultRecord(core, state, record);
    case 'rate_limit_event':
      return rateLimit(core, record);
    case 'stream_event':
      return streamEvent(core, state, record);
    case 'control_request':
      return controlRequest(core, record, line, raw);
    case 'control_response': {
      const response = asRecord(record.response);
      const approvalId = str(response?.request_id);
      const behavior = str(asRecord(response?.response)?.behavior);
      if (approvalId && (behavior === 'allow' || behavior === 'deny')) {
        const toolCallId = str(asRecord(response?.response)?.toolUseID);
        if (behavior === 'deny' && toolCallId) state.deniedTools.add(toolCallId);
        core.settleApproval(approvalId, behavior, 'user', 'native');
      }
      return;
    }
    case 'control_cancel_request': {
      const approvalId = str(record.request_id);
      if (approvalId) core.settleApproval(approvalId, 'cancelled', 'cancelled-by-agent', 'native');
      return;
    }
    default:
      if (type && QUIET_TYPES.has(type)) return;
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_RECORD',
        `unknown claude-code record type ${JSON.stringify(type ?? null)}; skipped`,
        { line, raw },
      );
  }
}

function systemRecord(core: RunCore, record: Record<string, unknown>, line: number, raw: string): void {
  const subtype = str(record.subtype);
  if (subtype === 'init') {
    core.startTask('native');
    const id = str(record.session_id);
    if (!id) return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'system/init without session_id', { line, raw });
    const tools = Array.isArray(record.tools)
      ? record.tools.filter((t): t is string => typeof t === 'string')
      : undefined;
    const model = str(record.model);
    const cwd = str(record.cwd);
    core.identify(definedOnly({ nativeSessionId: id, model: model || undefined, cwd: cwd || undefined, tools }));
    return;
  }
  if (subtype === 'api_retry') {
    const status = count(record.error_status);
    const reason = str(record.error) ?? (status !== undefined ? `HTTP ${status}` : 'API error');
    const attempt = count(record.attempt);
    const delayMs = nonNegative(record.retry_delay_ms);
    if (status === 429)
      core.emit('limit.reached', definedOnly({ kind: 'rate-limit', message: reason, retryAfterMs: delayMs }), 'native');
    core.emit('recovery.started', definedOnly({ strategy: 'retry', reason, attempt, delayMs }), 'native');
    return;
  }
  if (subtype === 'permission_denied') {
    const id = str(record.tool_use_id);
    if (id && core.isToolOpen(id))
      core.finishTool(
        {
          type: 'tool.denied',
          payload: { toolCallId: id, name: core.toolName(id) ?? 'unknown', reason: 'permission denied' },
        },
        'native',
      );
    return;
  }
  if (subtype && QUIET_SYSTEM.has(subtype)) return;
  core.diagnostic(
    'MINICODE_E_NATIVE_UNKNOWN_RECORD',
    `unknown claude-code system subtype ${JSON.stringify(subtype ?? null)}; skipped`,
    { line, raw },
  );
}

const ASSISTANT_ERRORS: Record<string, PayloadOf<'limit.reached'>['kind']> = {
  rate_limit: 'rate-limit',
  billing_error: 'usage-quota',
  overloaded: 'overloaded',
  max_output_tokens: 'max-tokens',
};

function assistantRecord(
  core: RunCore,
  state: ClaudeState,
  record: Record<string, unknown>,
  line: number,
  raw: string,
): void {
  const message = asRecord(record.message);
  const content = message?.content;
  if (!message || !Array.isArray(content))
    return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'assistant frame without message content', { line, raw });
  const parent = str(record.parent_tool_use_id);
  const fields = parent ? { parentId: parent } : {};
  const messageId = str(message.id) ?? str(record.uuid) ?? `line-${line}`;
  const error = str(record.error);
  if (error) {
    const kind = ASSISTANT_ERRORS[error];
    if (kind) core.emit('limit.reached', { kind, message: error }, 'native');
  }
  for (const value of content) {
    const block = asRecord(value);
    const blockType = str(block?.type);
    if (!block) continue;
    if (blockType === 'text') {
      const n = (state.textBlocks.get(messageId) ?? 0) + 1;
      state.textBlocks.set(messageId, n);
      // Records of one message arrive together (sub-agents may interleave a few): the latest
      // messages' counts are enough, and a long session does not keep one entry per message.
      if (state.textBlocks.size > 256) state.textBlocks.delete(state.textBlocks.keys().next().value as string);
      if (!parent) state.mainText = true;
      core.emit(
        'assistant.message.completed',
        { messageId: n === 1 ? messageId : `${messageId}:${n}`, text: str(block.text) ?? '' },
        'native',
        fields,
      );
    } else if (blockType === 'thinking') {
      const text = str(block.thinking);
      core.emit(
        'assistant.reasoning.completed',
        definedOnly({ reasoningId: `${messageId}:thinking:${line}`, text: text || undefined }),
        'native',
        fields,
      );
    } else if (blockType === 'redacted_thinking') {
      core.emit(
        'assistant.reasoning.completed',
        { reasoningId: `${messageId}:thinking:${line}`, redacted: true },
        'native',
        fields,
      );
    } else if (blockType === 'tool_use' || blockType === 'server_tool_use' || blockType === 'mcp_tool_use') {
      const id = str(block.id);
      const name = str(block.name) ?? 'unknown';
      if (!id) {
        core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'tool_use block without id', { line, raw });
        continue;
      }
      core.startTool(
        definedOnly({
          toolCallId: id,
          name,
          kind: toolKindFor(name),
          title: toolTitleFor(name, block.input),
          input: block.input,
          parentToolCallId: parent || undefined,
        }),
        'native',
      );
    } else if (
      blockType === 'tool_result' ||
      blockType === 'web_search_tool_result' ||
      blockType === 'mcp_tool_result'
    ) {
      toolResult(core, state, block, undefined);
    } else {
      core.diagnostic(
        'MINICODE_E_NATIVE_UNKNOWN_BLOCK',
        `unknown assistant content block ${JSON.stringify(blockType ?? null)}; skipped`,
        { line, raw },
      );
    }
  }
}

function userRecord(core: RunCore, state: ClaudeState, record: Record<string, unknown>): void {
  const content = asRecord(record.message)?.content;
  // A string content or text blocks are prompts (the subagent's task prompt); not tool results.
  if (!Array.isArray(content)) return;
  for (const value of content) {
    const block = asRecord(value);
    if (block && block.type === 'tool_result') toolResult(core, state, block, record.tool_result_meta);
  }
}

function toolResult(core: RunCore, state: ClaudeState, block: Record<string, unknown>, meta: unknown): void {
  const id = str(block.tool_use_id);
  if (!id) return;
  const name = core.toolName(id);
  const text = contentText(block.content);
  const isError = block.is_error === true;
  const metaDenied =
    Array.isArray(meta) && meta.some((m) => str(asRecord(m)?.non_execution_kind) === 'permission-rule');
  const approvalDenied = state.deniedTools.has(id);
  const wordingDenied = isError && DENIAL_WORDING.test(text);
  const denied = isError && (metaDenied || approvalDenied || wordingDenied);
  const approval = core.approvalForTool(id);
  // The host's answer to the prompt is on stdin, not stdout: the tool's result shows it.
  if (approval) core.settleApproval(approval, denied ? 'deny' : 'allow', 'inferred-from-tool-result', 'inferred');
  const base = definedOnly({ toolCallId: id, name: name || undefined });
  if (denied) {
    core.finishTool(
      { type: 'tool.denied', payload: { ...base, reason: oneLine(text, 300) || 'permission denied' } },
      metaDenied || approvalDenied ? 'native' : 'inferred',
    );
  } else if (isError) {
    core.finishTool(
      {
        type: 'tool.failed',
        payload: definedOnly({
          ...base,
          cause: 'TOOL_ERROR',
          message: oneLine(text, 300) || 'tool error',
          output: text ? excerpt(text) : undefined,
        }),
      },
      'native',
    );
  } else {
    core.finishTool(
      {
        type: 'tool.completed',
        payload: definedOnly({
          ...base,
          summary: oneLine(text, 120) || 'ok',
          output: text ? excerpt(text) : undefined,
        }),
      },
      'native',
    );
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const value of content) {
    const block = asRecord(value);
    if (!block) continue;
    if (typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'tool_reference' && typeof block.tool_name === 'string')
      parts.push(`tool reference: ${block.tool_name}`);
    else if (typeof block.type === 'string') parts.push(`[${block.type}]`);
  }
  return parts.join('\n');
}

function resultRecord(core: RunCore, state: ClaudeState, record: Record<string, unknown>): void {
  const subtype = str(record.subtype);
  const usage = asRecord(record.usage);
  const cost = nonNegative(record.total_cost_usd);
  if (usage) {
    const reported = tokenUsage([
      ['inputTokens', usage.input_tokens],
      ['outputTokens', usage.output_tokens],
      ['cacheReadTokens', usage.cache_read_input_tokens],
      ['cacheWriteTokens', usage.cache_creation_input_tokens],
      // Only a non-zero 1-hour share is kept: zero and absent price the same.
      [
        'cacheWrite1hTokens',
        Number(asRecord(usage.cache_creation)?.ephemeral_1h_input_tokens) > 0
          ? asRecord(usage.cache_creation)?.ephemeral_1h_input_tokens
          : undefined,
      ],
    ]);
    const models = Object.keys(asRecord(record.modelUsage) ?? {});
    core.emit(
      'usage.reported',
      definedOnly({
        usage: reported,
        cumulative: true,
        scope: 'session',
        model: models.length === 1 && models[0] ? models[0] : undefined,
        costUsd: cost,
      }),
      'native',
    );
  }
  const denials = Array.isArray(record.permission_denials) ? record.permission_denials : [];
  for (const value of denials) {
    const id = str(asRecord(value)?.tool_use_id);
    if (id && core.isToolOpen(id))
      core.finishTool(
        {
          type: 'tool.denied',
          payload: { toolCallId: id, name: core.toolName(id) ?? 'unknown', reason: 'permission denied' },
        },
        'native',
      );
  }
  if (record.structured_output !== undefined && record.structured_output !== null) {
    core.emit('result.produced', { source: 'native', result: record.structured_output }, 'native');
  }
  const text = str(record.result) ?? '';
  const durationMs = nonNegative(record.duration_ms);
  const isError = record.is_error === true;
  if ((subtype === 'success' || subtype === undefined) && !isError) {
    if (!state.mainText && text)
      core.emit('assistant.message.completed', { messageId: str(record.uuid) ?? 'result', text }, 'native');
    const steps = count(record.num_turns);
    core.completeTask('native', definedOnly({ durationMs, steps }));
    return;
  }
  const errors = Array.isArray(record.errors) ? record.errors.filter((e): e is string => typeof e === 'string') : [];
  const message = oneLine(text || errors.join('; ') || subtype || 'error', 500);
  const terminal = str(record.terminal_reason) ?? '';
  if (subtype === 'error_max_turns') {
    core.emit('limit.reached', { kind: 'max-turns', message }, 'native');
    return core.failTask(
      'max_steps_exceeded',
      agentError('claude-code:max-turns', message, 'ACTION_REQUIRED'),
      'native',
      durationMs,
    );
  }
  if (subtype === 'error_max_budget_usd') {
    core.emit('limit.reached', { kind: 'budget', message }, 'native');
    return core.failTask(
      'budget_exceeded',
      agentError('claude-code:max-budget', message, 'ACTION_REQUIRED'),
      'native',
      durationMs,
    );
  }
  if (terminal.startsWith('aborted')) return core.cancelTask('aborted', message, 'native');
  const limit = matchLimitWording(text);
  if (limit)
    core.emit(
      'limit.reached',
      definedOnly({ kind: limit.kind, message, retryAfterMs: limit.retryAfterMs }),
      'inferred',
    );
  const status = count(record.api_error_status);
  const error: ErrorInfo = definedOnly({
    category: subtype === 'success' ? 'PROVIDER_ERROR' : 'AGENT_ERROR',
    code: `claude-code:${subtype ?? 'error'}${terminal ? `:${terminal}` : ''}`,
    message,
    recoverability: limit || (status !== undefined && (status === 429 || status >= 500)) ? 'RETRYABLE' : 'UNKNOWN',
    httpStatus: status,
  });
  core.failTask('provider', error, 'native', durationMs);
}

function agentError(code: string, message: string, recoverability: ErrorInfo['recoverability']): ErrorInfo {
  return { category: 'AGENT_ERROR', code, message, recoverability };
}

function rateLimit(core: RunCore, record: Record<string, unknown>): void {
  const info = asRecord(record.rate_limit_info);
  const status = str(info?.status);
  const type = str(info?.rateLimitType) ?? 'unknown';
  const resetsAt = nonNegative(info?.resetsAt);
  const resetAt = resetsAt === undefined ? undefined : new Date(resetsAt * 1000).toISOString();
  if (status === 'rejected') {
    // Subscription windows (five_hour, seven_day, ...) are usage quotas, not per-minute limits.
    core.emit(
      'limit.reached',
      definedOnly({ kind: 'usage-quota', message: `${type} limit reached`, resetAt: resetAt || undefined }),
      'native',
    );
  } else if (status === 'allowed_warning') {
    const utilization = nonNegative(info?.utilization);
    core.diagnostic(
      'MINICODE_W_NATIVE_LIMIT_NEAR',
      `${type} usage limit is near${utilization === undefined ? '' : ` (${Math.round(utilization * 100)}%)`}${resetAt ? `; resets at ${resetAt}` : ''}`,
    );
  }
}

function streamEvent(core: RunCore, state: ClaudeState, record: Record<string, unknown>): void {
  const event = asRecord(record.event);
  const type = str(event?.type);
  if (type === 'message_start') {
    state.streamMessageId = str(asRecord(event?.message)?.id);
    return;
  }
  if (type !== 'content_block_delta' || !state.streamMessageId) return;
  const delta = asRecord(event?.delta);
  if (delta?.type === 'text_delta' && typeof delta.text === 'string') {
    core.emit('assistant.message.delta', { messageId: state.streamMessageId, delta: delta.text }, 'native');
  } else if (delta?.type === 'thinking_delta' && typeof delta.thinking === 'string') {
    core.emit(
      'assistant.reasoning.delta',
      { reasoningId: `${state.streamMessageId}:thinking`, delta: delta.thinking },
      'native',
    );
  }
}

function controlRequest(core: RunCore, record: Record<string, unknown>, line: number, raw: string): void {
  const request = asRecord(record.request);
  const subtype = str(request?.subtype);
  const approvalId = str(record.request_id);
  if (subtype === 'can_use_tool' && request && approvalId) {
    const toolName = str(request.tool_name) ?? 'unknown';
    const toolCallId = str(request.tool_use_id);
    const what = str(request.description) ?? toolTitleFor(toolName, request.input);
    core.requestApproval(
      definedOnly({
        approvalId,
        toolName,
        action: what === toolName ? toolName : `${toolName}: ${what}`,
        options: ['allow', 'deny'],
        toolCallId: toolCallId || undefined,
      }),
      'native',
    );
    return;
  }
  if (subtype && QUIET_CONTROL.has(subtype)) return;
  core.diagnostic(
    'MINICODE_E_NATIVE_UNKNOWN_RECORD',
    `unknown claude-code control_request ${JSON.stringify(subtype ?? null)}; skipped`,
    { line, raw },
  );
}
