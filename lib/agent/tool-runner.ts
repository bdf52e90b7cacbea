/**
 * One tool call's whole lifecycle: `tool.started`, the policy decision (and an approval when a
 * person must decide), the run, and exactly one terminal event (`tool.completed`, `tool.failed`,
 * `tool.denied` or `tool.cancelled`), plus the evidence events it implies (`file.changed`,
 * `finding.detected`, `result.produced`). Returns what the model sees next.
 */
import type { EventDraft } from '../events/index.js';
import { kernelTruncate } from '../control/truncation.js';
import { decide, type ApprovalPolicy } from '../policy/index.js';
import { parseArguments, type ToolRegistry } from '../tools/index.js';
import type { ApprovalDecision, ApprovalRequest, ToolLimits, ToolOutcome } from '../tools/types.js';
import type { ToolCallPart, ToolMessage } from './conversation.js';

/** Bounded excerpt of tool output kept in the event (full output is what the model sees). */
const EVENT_OUTPUT_CHARS = 4_000;

/** What every tool call of a run shares. */
export interface ToolRunContext {
  registry: ToolRegistry;
  policy: ApprovalPolicy;
  tty: boolean;
  cwd: string;
  signal: AbortSignal;
  limits: ToolLimits;
  emit: (draft: EventDraft) => void;
  approve: (request: ApprovalRequest) => Promise<ApprovalDecision>;
  clock: () => number;
  env?: NodeJS.ProcessEnv;
  promptAskText?: (question: string, signal: AbortSignal) => Promise<string>;
}

/** The result of one call, for the conversation and the run's summary. */
export interface ToolCallResult {
  message: ToolMessage;
  outcome: ToolOutcome | { status: 'cancelled'; reason: string };
}

function excerpt(text: string): string {
  return text.length <= EVENT_OUTPUT_CHARS ? text : `${text.slice(0, EVENT_OUTPUT_CHARS)}\n[… ${text.length - EVENT_OUTPUT_CHARS} more chars in the tool result]`;
}

function smallInput(value: unknown): unknown {
  const json = JSON.stringify(value);
  return json !== undefined && json.length <= 2_000 ? value : undefined;
}

/** Run one tool call through policy, approval and the tool itself. */
export async function runToolCall(call: ToolCallPart, ctx: ToolRunContext): Promise<ToolCallResult> {
  const tool = ctx.registry.get(call.name);
  const parsed = parseArguments(call.argumentsText);
  const input = parsed.ok ? parsed.value : undefined;
  const kind = tool?.kind ?? 'other';
  let title = call.name;
  try {
    if (tool?.title && input !== undefined) title = tool.title(input as never);
  } catch {
    // A malformed input has no title; the tool's own validation reports it.
  }
  const correlationId = call.id;
  const started = ctx.clock();
  const base = { toolCallId: call.id, name: call.name };
  const small = input === undefined ? undefined : smallInput(input);
  const path = input && typeof input === 'object' && typeof (input as { path?: unknown }).path === 'string' ? (input as { path: string }).path : undefined;
  ctx.emit({
    type: 'tool.started',
    payload: { ...base, kind, title, executor: 'minicode', ...(small !== undefined ? { input: small } : {}), ...(path ? { locations: [{ path }] } : {}) },
    correlationId,
  });
  const answer = (outcome: ToolCallResult['outcome'], content: string, isError: boolean): ToolCallResult => ({
    outcome,
    message: { role: 'tool', toolCallId: call.id, name: call.name, content: kernelTruncate(content).text, ...(isError ? { isError: true } : {}) },
  });
  const denied = (reason: string): ToolCallResult => {
    ctx.emit({ type: 'tool.denied', payload: { ...base, reason }, correlationId });
    return answer({ status: 'denied', reason }, `denied: ${reason}`, true);
  };

  if (tool) {
    const decision = decide({ name: call.name, kind, gated: tool.gated, input }, ctx.policy, { tty: ctx.tty });
    if (decision.decision === 'deny') return denied(decision.reason);
    if (decision.decision === 'ask') {
      const verdict = await ctx.approve({ toolName: call.name, toolCallId: call.id, action: title, reason: decision.reason });
      if (verdict !== 'allow' && verdict !== 'allow-always') return denied(verdict === 'cancelled' ? 'approval cancelled' : 'denied by the user');
    }
  }

  let outcome: ToolOutcome;
  try {
    outcome = await ctx.registry.invoke(call.name, call.argumentsText, {
      cwd: ctx.cwd,
      signal: ctx.signal,
      approve: ctx.approve,
      limits: ctx.limits,
      tty: ctx.tty,
      toolCallId: call.id,
      ...(ctx.env ? { env: ctx.env } : {}),
      ...(ctx.promptAskText ? { promptAskText: ctx.promptAskText } : {}),
    });
  } catch (error) {
    outcome = { status: 'failed', cause: 'INTERNAL_ERROR', message: (error as Error).message };
  }
  const durationMs = Math.max(0, ctx.clock() - started);
  if (ctx.signal.aborted) {
    const reason = 'aborted';
    ctx.emit({ type: 'tool.cancelled', payload: { ...base, reason, durationMs }, correlationId });
    return answer({ status: 'cancelled', reason }, 'cancelled: the run was stopped', true);
  }
  switch (outcome.status) {
    case 'completed': {
      ctx.emit({
        type: 'tool.completed',
        payload: { ...base, summary: outcome.summary, durationMs, output: excerpt(outcome.output), ...(outcome.receipt ? { receipt: outcome.receipt } : {}) },
        correlationId,
      });
      if (outcome.fileChanges && outcome.fileChanges.length > 0) {
        ctx.emit({ type: 'file.changed', payload: { changes: outcome.fileChanges, toolCallId: call.id }, correlationId });
      }
      for (const f of outcome.findings ?? []) {
        ctx.emit({ type: 'finding.detected', payload: { category: f.category, severity: f.severity, summary: f.summary, ...(f.evidence !== undefined ? { evidence: f.evidence } : {}) }, correlationId });
      }
      if (outcome.result !== undefined) ctx.emit({ type: 'result.produced', payload: { source: 'submit_result', result: outcome.result }, correlationId });
      return answer(outcome, outcome.output, false);
    }
    case 'failed':
      ctx.emit({
        type: 'tool.failed',
        payload: {
          ...base,
          cause: outcome.cause,
          message: outcome.message,
          durationMs,
          ...(outcome.hint ? { hint: outcome.hint } : {}),
          ...(outcome.output ? { output: excerpt(outcome.output) } : {}),
          ...(outcome.receipt ? { receipt: outcome.receipt } : {}),
        },
        correlationId,
      });
      return answer(outcome, [outcome.message, outcome.hint, outcome.output].filter(Boolean).join('\n'), true);
    case 'denied':
      return denied(outcome.reason);
  }
}
