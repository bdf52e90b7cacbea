import type { ErrorInfo } from '../events/index.js';
import { tokenUsage, type RunCore } from './run-core.js';
import { asRecord, count, excerpt, nonNegative, oneLine, str } from './text.js';
import { toolKindFor, toolTitleFor } from './tool-kind.js';
import { definedOnly } from '../defined-only.js';

/** opencode parts shared by the `run --format json` and server-event decoders. */

const REJECTION_WORDING =
  /rejected permission|permission (?:was )?(?:denied|rejected)|user (?:has )?rejected|auto-?rejected/i;

/** A tool part: `state.status` pending/running opens the call, completed/error ends it. */
export function toolPart(core: RunCore, part: Record<string, unknown>, line: number, raw: string): void {
  const id = str(part.callID) ?? str(part.id);
  const name = str(part.tool) ?? 'unknown';
  const toolState = asRecord(part.state);
  if (!id || !toolState)
    return core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', 'tool part without callID or state', { line, raw });
  const status = str(toolState.status);
  if (!core.isToolOpen(id)) {
    const title = str(toolState.title) ?? toolTitleFor(name, toolState.input);
    core.startTool(
      definedOnly({ toolCallId: id, name, kind: toolKindFor(name), title: oneLine(title), input: toolState.input }),
      'native',
    );
  }
  const time = asRecord(toolState.time);
  const start = nonNegative(time?.start);
  const end = nonNegative(time?.end);
  const durationMs = start !== undefined && end !== undefined && end >= start ? { durationMs: end - start } : {};
  if (status === 'completed') {
    const output = str(toolState.output) ?? '';
    const exitCode = asRecord(toolState.metadata)?.exit;
    const receipt = typeof exitCode === 'number' && Number.isInteger(exitCode) ? { receipt: { exitCode } } : {};
    const summary = typeof exitCode === 'number' ? `exit ${exitCode}` : oneLine(output, 120) || 'ok';
    core.finishTool(
      {
        type: 'tool.completed',
        payload: definedOnly({
          toolCallId: id,
          name,
          summary,
          ...durationMs,
          output: output ? excerpt(output) : undefined,
          ...receipt,
        }),
      },
      'native',
    );
  } else if (status === 'error') {
    const message = str(toolState.error) ?? 'tool error';
    if (REJECTION_WORDING.test(message))
      core.finishTool(
        { type: 'tool.denied', payload: { toolCallId: id, name, reason: oneLine(message, 300) } },
        'inferred',
      );
    else
      core.finishTool(
        {
          type: 'tool.failed',
          payload: { toolCallId: id, name, cause: 'TOOL_ERROR', message: oneLine(message, 300), ...durationMs },
        },
        'native',
      );
  } else if (status !== 'pending' && status !== 'running') {
    core.diagnostic('MINICODE_E_NATIVE_BAD_RECORD', `tool part with unknown status ${JSON.stringify(status ?? null)}`, {
      line,
      raw,
    });
  }
}

/** Per-step tokens and cost of a `step-finish` part: an increment, not a total. */
export function reportStepUsage(core: RunCore, part: Record<string, unknown>): void {
  const tokens = asRecord(part.tokens);
  if (!tokens) return;
  const cache = asRecord(tokens.cache);
  const usage = tokenUsage([
    ['inputTokens', tokens.input],
    ['outputTokens', tokens.output],
    ['reasoningTokens', tokens.reasoning],
    ['cacheReadTokens', cache?.read],
    ['cacheWriteTokens', cache?.write],
    ['totalTokens', tokens.total],
  ]);
  const cost = nonNegative(part.cost);
  core.emit('usage.reported', definedOnly({ usage, cumulative: false, scope: 'request', costUsd: cost }), 'native');
}

/** opencode errors: v1 `{name, data:{message, statusCode}}`, v2 `{type:"provider.rate-limit", message}`. */
export function errorInfo(value: unknown): ErrorInfo {
  const error = asRecord(value);
  const data = asRecord(error?.data);
  const name = str(error?.name) ?? str(error?.type) ?? 'UnknownError';
  const message = str(data?.message) ?? str(error?.message) ?? name;
  const status = count(data?.statusCode) ?? count(error?.status);
  const retryable = data?.isRetryable === true || status === 429 || name.includes('rate-limit');
  return definedOnly({
    category: name.includes('auth') || name === 'ProviderAuthError' ? 'CONFIGURATION_ERROR' : 'PROVIDER_ERROR',
    code: `opencode:${name}`,
    message: oneLine(message, 500),
    recoverability: retryable ? 'RETRYABLE' : 'UNKNOWN',
    providerCode: name,
    httpStatus: status,
  });
}
