import { draft } from '../events/draft.js';
import type { EventDraft, FileDiff } from '../events/index.js';
import type { WorkspaceCheckpoints } from '../checkpoints/turn.js';
import { decide, gatedNoTtyReason, type ApprovalModeName, type ApprovalPolicy } from '../policy/decide.js';
import { parseArguments, type ToolRegistry } from './index.js';
import { withMode } from '../sandbox/settings.js';
import { escalationRequest } from './escalation.js';
import { RERUN_SUFFIX } from './rerun-id.js';
import { capHeadTail } from './truncate.js';
import type { AnyTool, FileChange, ToolContext, ToolOutcome } from './types.js';
import { reportDropped } from '../debug.js';
import { definedOnly } from '../defined-only.js';
import { storedImageOf, type ImageAttachment } from '../images/load.js';

/** Output excerpt kept in a tool event; the model still gets the whole (producer-capped) output. Default 4,096 chars. */
export const EVENT_OUTPUT_MAX = 4_096;

/** One tool call the model made (the neutral conversation's `ToolCallPart`). */
export interface ToolCallRequest {
  id: string;
  name: string;
  argumentsText: string;
}

/** Options of {@link executeToolCall}. */
export interface ExecuteToolCallOptions {
  registry: ToolRegistry;
  call: ToolCallRequest;
  policy: ApprovalModeName | ApprovalPolicy;
  /** The tool context; `approve` is also what an `ask` decision goes through. */
  ctx: ToolContext;
  /** Receives every draft, in order: started, approval (if any), terminal, file.changed, findings, result. */
  onEvent: (event: EventDraft) => void;
  /** Injected clock for `durationMs`; default `Date.now`. */
  clock?: () => number;
  turnId?: number;
  /**
   * The turn's checkpoints: taken before a workspace-changing tool runs, and the source of its
   * `file.changed` (so changes made through bash or MCP are seen). Absent: no checkpoint, and
   * `file.changed` comes from what the edit tools report.
   */
  checkpoints?: WorkspaceCheckpoints | undefined;
  /** The user's PreToolUse and PostToolUse hooks around the call; absent: none. */
  hooks?: ToolCallHooks | undefined;
  /**
   * Keeps the bytes of the images a completed call returned (`read_image`, MCP image parts) in
   * the session's content store before its terminal event refers to them by digest, so a session
   * rebuilt in another process shows the model the same images. Absent (no store, or a model that
   * is not shown images): the event does not refer to them.
   */
  keepImages?: ((images: readonly ImageAttachment[]) => Promise<void>) | undefined;
}

/** A PreToolUse decision: `deny` refuses the call (the reason is what the model sees), `ask` asks a person, `allow` skips asking. */
export interface PreToolDecision {
  permission?: 'allow' | 'deny' | 'ask' | undefined;
  reason?: string | undefined;
}

/** The hooks around one tool call (the loop binds them to the run's hooks). */
export interface ToolCallHooks {
  /** Before the policy decision. */
  before(call: ToolCallRequest, input: unknown): Promise<PreToolDecision>;
  /** After the tool ran (completed or failed): text added to what the model sees, or undefined. */
  after(call: ToolCallRequest, input: unknown, outcome: ToolOutcome): Promise<string | undefined>;
}

/** Whether a tool may change the workspace (every tool except read, search and those marked read-only, so MCP tools count). */
export function changesWorkspace(tool: AnyTool): boolean {
  return tool.kind !== 'read' && tool.kind !== 'search' && tool.readOnly !== true;
}

/** A tool call's outcome as the loop feeds it back to the model. */
export interface ExecutedToolCall {
  outcome: ToolOutcome;
  /** Text for the tool-result message. */
  content: string;
  isError: boolean;
}

/** The text the model sees for an outcome: output, or the failure / denial spelled out. */
export function outcomeContent(outcome: ToolOutcome): { content: string; isError: boolean } {
  if (outcome.status === 'completed') return { content: outcome.output, isError: false };
  if (outcome.status === 'denied') return { content: `Denied: ${outcome.reason}`, isError: true };
  const parts = [`Error: ${outcome.message}`];
  if (outcome.hint) parts.push(`Hint: ${outcome.hint}`);
  if (outcome.output) parts.push(outcome.output);
  return { content: parts.join('\n'), isError: true };
}

/**
 * Run one tool call end to end: `tool.started`, the policy decision (an `ask` goes through
 * `ctx.approve`, which fails closed without a TTY), the tool, then exactly one terminal event
 * (`tool.completed | tool.failed | tool.denied`), `file.changed` for writes, and for
 * `submit_result` `result.produced` plus one `finding.detected` per finding. A command the
 * sandbox refused may then, in `ask` mode, be rerun unsandboxed with the user's approval
 * (escalation.ts): a call of its own, `<id>.unsandboxed`, after the refused call's terminal.
 * Never throws.
 */
export async function executeToolCall(options: ExecuteToolCallOptions): Promise<ExecutedToolCall> {
  const { registry, call, ctx, onEvent } = options;
  const clock = options.clock ?? Date.now;
  const fields = definedOnly({ correlationId: call.id, turnId: options.turnId });
  const tool = registry.get(call.name);
  const server = tool?.server === undefined ? {} : { server: tool.server };
  const parsed = parseArguments(call.argumentsText);
  const input = parsed.ok ? parsed.value : undefined;
  let title: string | undefined;
  try {
    title = tool?.title && tool.inputSchema.safeParse(input).success ? tool.title(input) : undefined;
  } catch (error) {
    // A tool's title is decoration: the call runs (and reports its own failure) without one.
    reportDropped(`${call.name}: title`, error);
    title = undefined;
  }
  onEvent(
    draft(
      'tool.started',
      definedOnly({
        toolCallId: call.id,
        name: call.name,
        ...server,
        executor: 'minicode',
        kind: tool ? tool.kind : undefined,
        title: title ? title.split('\n')[0]!.slice(0, 200) : undefined,
        input,
        // A client's terminal (ACP) runs the command outside minicode's sandbox.
        sandbox: tool?.startsCommands ? (ctx.terminal ? 'off' : (ctx.sandbox?.mode ?? 'off')) : undefined,
      }),
      fields,
    ),
  );
  const started = clock();
  let outcome: ToolOutcome;
  /** What the checkpoint diff saw the call change; undefined without checkpoints. */
  let observed: FileChange[] | undefined;
  /** Set when the sandbox refused the command and the user approved rerunning it unsandboxed. */
  let escalating = false;
  /** The call's own duration, measured before an escalation question waits for the user. */
  let ranMs: number | undefined;
  if (!tool) outcome = await registry.invoke(call.name, call.argumentsText, ctx);
  else {
    const hooked = options.hooks ? await options.hooks.before(call, input) : {};
    const facts = {
      name: tool.name,
      kind: tool.kind,
      gated: tool.gated,
      input,
      ...server,
      ...(tool.trusted ? { trusted: true } : {}),
      ...(tool.server !== undefined && tool.readOnly ? { readOnly: true } : {}),
    };
    const policyDecision = decide(facts, options.policy, { tty: ctx.tty === true });
    // A hook's deny wins; its ask makes an allowed call ask; its allow stands for the person the
    // policy would ask (so it also answers for one absent), but never lifts the policy's own deny
    // (read-only mode).
    const decision =
      hooked.permission === 'deny'
        ? { decision: 'deny' as const, reason: hooked.reason || `${tool.name} denied by a PreToolUse hook` }
        : hooked.permission === 'ask' && policyDecision.decision === 'allow'
          ? { decision: 'ask' as const, reason: hooked.reason || 'a PreToolUse hook asks for approval' }
          : hooked.permission === 'allow' &&
              policyDecision.decision !== 'allow' &&
              decide(facts, options.policy, { tty: true }).decision === 'ask'
            ? { decision: 'allow' as const, reason: hooked.reason || 'allowed by a PreToolUse hook' }
            : policyDecision;
    if (decision.decision === 'deny') outcome = { status: 'denied', reason: decision.reason };
    else {
      let allowed = decision.decision === 'allow';
      if (decision.decision === 'ask') {
        const diff = await previewOf(tool, input, ctx);
        const answer = await ctx.approve({
          toolName: tool.name,
          toolCallId: call.id,
          action: title ?? tool.name,
          reason: decision.reason,
          diff,
        });
        allowed = answer === 'allow' || answer === 'allow-always';
      }
      const checkpointed = allowed && options.checkpoints !== undefined && changesWorkspace(tool);
      // The checkpoint is written before the tool starts: a crash inside the tool can still be undone.
      if (checkpointed) await options.checkpoints!.beforeChange();
      outcome = allowed
        ? await registry.invoke(call.name, call.argumentsText, {
            ...ctx,
            toolCallId: call.id,
            progress: (message) => onEvent(draft('tool.progress', { toolCallId: call.id, message }, fields)),
          })
        : { status: 'denied', reason: ctx.tty ? `${tool.name} denied by the user` : gatedNoTtyReason(tool.name) };
      // A stopped run settles at once: its cancelled call is not diffed (the turn then lists as
      // unfinished, like a crash, and undo restores the checkpoint taken before the call).
      if (checkpointed && !ctx.signal.aborted) observed = await options.checkpoints!.afterChange();
      const request = ctx.signal.aborted
        ? undefined
        : escalationRequest({ tool, outcome, ctx, policy: options.policy, toolCallId: call.id, title });
      if (request) {
        ranMs = Math.max(0, clock() - started);
        const answer = await ctx.approve(request);
        escalating = (answer === 'allow' || answer === 'allow-always') && !ctx.signal.aborted;
      }
    }
  }
  const durationMs = ranMs ?? Math.max(0, clock() - started);
  if (outcome.status === 'completed' && outcome.images?.length) await options.keepImages?.(outcome.images);
  const ended = emitTerminal({
    outcome,
    imagesKept: options.keepImages !== undefined,
    observed,
    toolCallId: call.id,
    name: call.name,
    server,
    fields,
    durationMs,
    aborted: ctx.signal.aborted,
    onEvent,
  });
  /** The PostToolUse hooks' feedback on what the model is about to see (after the command that counts: the rerun when there is one). */
  const afterHooks = async (executed: ExecutedToolCall): Promise<ExecutedToolCall> => {
    if (!options.hooks || executed.outcome.status === 'denied') return executed;
    const feedback = await options.hooks.after(call, input, executed.outcome);
    return feedback ? { ...executed, content: `${executed.content}\n\n${feedback}` } : executed;
  };
  if (!tool || !escalating) return afterHooks(ended);
  // The user approved rerunning the refused command unsandboxed: a call of its own, under the refused one.
  const rerunId = `${call.id}${RERUN_SUFFIX}`;
  const rerunFields = { ...fields, correlationId: rerunId };
  onEvent(
    draft(
      'tool.started',
      {
        toolCallId: rerunId,
        name: call.name,
        executor: 'minicode',
        kind: tool.kind,
        parentToolCallId: call.id,
        ...(title ? { title: title.split('\n')[0]!.slice(0, 200) } : {}),
        ...(input === undefined ? {} : { input }),
        sandbox: 'off',
        escalated: true,
      },
      rerunFields,
    ),
  );
  const rerunStarted = clock();
  if (options.checkpoints) await options.checkpoints.beforeChange();
  const rerun = await registry.invoke(call.name, call.argumentsText, {
    ...ctx,
    toolCallId: rerunId,
    sandbox: ctx.sandbox ? withMode(ctx.sandbox, 'off') : undefined,
  });
  const rerunObserved =
    options.checkpoints && !ctx.signal.aborted ? await options.checkpoints.afterChange() : undefined;
  if (rerun.status === 'completed' && rerun.images?.length) await options.keepImages?.(rerun.images);
  const rerunEnded = emitTerminal({
    outcome: rerun,
    imagesKept: options.keepImages !== undefined,
    observed: rerunObserved,
    toolCallId: rerunId,
    name: call.name,
    server,
    fields: rerunFields,
    durationMs: Math.max(0, clock() - rerunStarted),
    aborted: ctx.signal.aborted,
    onEvent,
  });
  return afterHooks({
    ...rerunEnded,
    content: `[rerun outside the sandbox, approved by the user]\n${rerunEnded.content}`,
  });
}

/** What {@link emitTerminal} needs. */
interface TerminalInput {
  outcome: ToolOutcome;
  /** Whether the outcome's images were kept in the content store (the event then refers to them). */
  imagesKept: boolean;
  observed: FileChange[] | undefined;
  toolCallId: string;
  name: string;
  server: { server?: string };
  fields: { correlationId: string; turnId?: number };
  durationMs: number;
  aborted: boolean;
  onEvent: (event: EventDraft) => void;
}

/** The one terminal event of a call (and its file changes, plan, result, findings), and what the model sees. */
function emitTerminal(t: TerminalInput): ExecutedToolCall {
  const { outcome, observed, server, fields, durationMs, onEvent } = t;
  const call = { id: t.toolCallId, name: t.name };
  if (t.aborted && outcome.status !== 'completed') {
    // The run was stopped while the tool ran: that is a cancellation, not a tool failure.
    onEvent(
      draft(
        'tool.cancelled',
        { toolCallId: call.id, name: call.name, ...server, reason: 'aborted', durationMs },
        fields,
      ),
    );
    emitFileChanges(observed, call.id, fields, onEvent);
    return { outcome, content: 'Cancelled: the run was stopped', isError: true };
  }
  if (outcome.status === 'completed') {
    onEvent(
      draft(
        'tool.completed',
        definedOnly({
          toolCallId: call.id,
          name: call.name,
          ...server,
          summary: outcome.summary,
          durationMs,
          output: capHeadTail(outcome.output, EVENT_OUTPUT_MAX).text,
          receipt: outcome.receipt,
          // A reference per image (its bytes kept by `keepImages`), never the base64.
          images: t.imagesKept && outcome.images?.length ? outcome.images.map(storedImageOf) : undefined,
        }),
        fields,
      ),
    );
    emitFileChanges(mergeChanges(observed, outcome.fileChanges), call.id, fields, onEvent);
    if (outcome.plan) {
      const { planId, created, steps, explanation } = outcome.plan;
      onEvent(
        draft(
          created ? 'plan.created' : 'plan.updated',
          definedOnly({ planId, steps, explanation: explanation || undefined }),
          fields,
        ),
      );
    }
    if (outcome.result !== undefined)
      onEvent(draft('result.produced', { source: 'submit_result', result: outcome.result }, fields));
    for (const finding of outcome.findings ?? []) onEvent(draft('finding.detected', finding, fields));
  } else if (outcome.status === 'failed') {
    onEvent(
      draft(
        'tool.failed',
        definedOnly({
          toolCallId: call.id,
          name: call.name,
          ...server,
          cause: outcome.cause,
          message: outcome.message,
          durationMs,
          hint: outcome.hint || undefined,
          output: outcome.output ? capHeadTail(outcome.output, EVENT_OUTPUT_MAX).text : undefined,
          receipt: outcome.receipt,
        }),
        fields,
      ),
    );
    emitFileChanges(observed, call.id, fields, onEvent);
  } else {
    onEvent(draft('tool.denied', { toolCallId: call.id, name: call.name, ...server, reason: outcome.reason }, fields));
  }
  return { outcome, ...outcomeContent(outcome) };
}

/**
 * What the checkpoint diff saw, plus what the tool says it changed that the diff could not see
 * (a write into an editor's buffer through ACP lands on disk only when saved).
 */
function mergeChanges(
  observed: FileChange[] | undefined,
  reported: FileChange[] | undefined,
): FileChange[] | undefined {
  if (!observed) return reported;
  // The tool's diff of a path the checkpoint also saw goes with the observed change.
  const diffs = new Map((reported ?? []).flatMap((c) => (c.diff ? [[c.path, c.diff] as const] : [])));
  const seen = new Set(observed.map((c) => c.path));
  const merged = observed.map((c) => {
    const diff = c.diff ?? diffs.get(c.path);
    return diff ? { ...c, diff } : c;
  });
  return [...merged, ...(reported ?? []).filter((c) => !seen.has(c.path))];
}

/** The tool's preview of what it would change; a failing preview only means no diff is shown. */
async function previewOf(tool: AnyTool, input: unknown, ctx: ToolContext): Promise<FileDiff | undefined> {
  if (!tool.preview || !tool.inputSchema.safeParse(input).success) return undefined;
  try {
    return await tool.preview(input, ctx);
  } catch (error) {
    reportDropped(`${tool.name}: preview`, error);
    return undefined;
  }
}

/** One `file.changed` for a call's changes, when there are any (a failed command may have changed files too). */
function emitFileChanges(
  changes: FileChange[] | undefined,
  toolCallId: string,
  fields: { correlationId: string; turnId?: number },
  onEvent: (event: EventDraft) => void,
): void {
  if (changes && changes.length > 0) onEvent(draft('file.changed', { changes, toolCallId }, fields));
}
