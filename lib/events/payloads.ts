import { z } from 'zod';
import { SANDBOX_MODES } from '../sandbox/settings.js';
import { ContentRef } from './content-ref.js';
import { FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES } from './file-diff-bounds.js';
import { USAGE_FIELDS } from './usage-fields.js';
import { HOOK_EVENTS, HOOK_EXCERPT_MAX } from '../hooks/names.js';
import {
  ApprovalOutcome,
  ErrorCategory,
  Fidelity,
  Recoverability,
  RunOutcome,
  StopReason,
  TerminationReason,
} from './enums.js';

// Shared pieces ------------------------------------------------------------------------------

const id = z.string().min(1);
const count = z.number().int().nonnegative();
const durationMs = z.number().nonnegative();

/**
 * Token usage as a provider reported it. Every field is optional: a field the provider did not
 * report is absent (unknown), never zero.
 */
export const Usage = z.object({
  inputTokens: count.optional(),
  outputTokens: count.optional(),
  cacheReadTokens: count.optional(),
  cacheWriteTokens: count.optional(),
  /** The part of `cacheWriteTokens` written with a 1-hour lifetime (Anthropic prices it higher). */
  cacheWrite1hTokens: count.optional(),
  reasoningTokens: count.optional(),
  totalTokens: count.optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Every usage field, in the schema's order: what sums and totals go over. */
export { USAGE_FIELDS };
/** The field list and the schema are one fact: a field in one and not the other fails to compile. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const usageFieldsMatchSchema: SameKeys<(typeof USAGE_FIELDS)[number], keyof Usage> = true;
void usageFieldsMatchSchema;

/** An image an event refers to: what it is, and a reference to its bytes in the content store (stored once by digest; never inline). */
export const StoredImage = z.object({
  /** The file's base name. */
  name: z.string(),
  /** From the bytes, not the name: image/png, image/jpeg, image/gif or image/webp. */
  mediaType: z.string(),
  width: count,
  height: count,
  content: ContentRef,
});
export type StoredImage = z.infer<typeof StoredImage>;

/** An error as every surface shows it: category, stable code, message, recoverability. */
export const ErrorInfo = z.object({
  category: ErrorCategory,
  /** Stable code, e.g. `MINICODE_E_STREAM_TRUNCATED` or the provider's own error type. */
  code: z.string().min(1),
  message: z.string(),
  recoverability: Recoverability,
  /** What the user can do about it, when there is something. */
  action: z.string().optional(),
  httpStatus: z.number().int().optional(),
  /** The provider's own error type/code, kept verbatim (scrubbed). */
  providerCode: z.string().optional(),
  retryAfterMs: z.number().nonnegative().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

const PlanStep = z.object({
  id,
  title: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

/** Compact evidence of what a tool did (exit code, sizes, paths). */
export const Receipt = z.object({
  exitCode: z.number().int().optional(),
  bytes: count.optional(),
  lines: count.optional(),
  paths: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
});

export { FILE_DIFF_MAX_LINE_CHARS, FILE_DIFF_MAX_LINES };

/**
 * A bounded unified diff of one text file (what an edit changed, or would change): hunk
 * headers `@@ -a,b +c,d @@` and lines starting with ` `, `+`, `-` or `\`, without the `---`/`+++`
 * file header. Scrubbed like every payload string.
 */
export const FileDiff = z.object({
  lines: z.array(z.string().max(FILE_DIFF_MAX_LINE_CHARS)).max(FILE_DIFF_MAX_LINES),
  /** Lines added and removed over the whole diff, shown or not. */
  added: count,
  removed: count,
  /** Diff lines left out past the bound (0 when every line is in `lines`). */
  omitted: count,
});
export type FileDiff = z.infer<typeof FileDiff>;

/** A file a tool created, modified or deleted: one entry of `file.changed`. */
export const FileChange = z.object({
  path: z.string(),
  kind: z.enum(['create', 'modify', 'delete', 'move']),
  /** What changed in a text file an edit tool wrote (absent for other changes, and in sessions stored before diffs). */
  diff: FileDiff.optional(),
});
export type FileChange = z.infer<typeof FileChange>;

/** Kind of tool, as ACP and the renderers group them. */
export const ToolKind = z.enum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other']);

/** Who executed a tool: minicode itself, the provider server-side, or a supervised native agent. */
export const ToolExecutor = z.enum(['minicode', 'server', 'native']);

// Payloads by event type ---------------------------------------------------------------------

/**
 * One hook command's run (`hook.completed` when it exited 0 or blocked, `hook.failed` for any
 * other exit, a timeout, or a command that could not start): what ran for which event and how it
 * ended. Its output is an excerpt, scrubbed like every payload.
 */
const HookRun = z.object({
  /** The hook event (Claude Code's names). */
  hookEvent: z.enum(HOOK_EVENTS),
  /** The command line as configured. */
  command: z.string(),
  /** The file that configured it. */
  source: z.string(),
  matcher: z.string().optional(),
  /** The tool call of a PreToolUse or PostToolUse hook. */
  toolName: z.string().optional(),
  toolCallId: z.string().optional(),
  outcome: z.enum(['success', 'blocked', 'error', 'timeout']),
  /** Absent when it was killed or never started. */
  exitCode: z.number().int().optional(),
  durationMs,
  /** What it decided, when it decided something: a permission, a block, or stopping the run. */
  decision: z.enum(['allow', 'deny', 'ask', 'block', 'stop']).optional(),
  /** Its reason (exit 2's stderr, a JSON `reason`, `permissionDecisionReason` or `stopReason`). */
  reason: z.string().optional(),
  /** Its `systemMessage`, or why it could not start. */
  message: z.string().optional(),
  stdout: z
    .string()
    .max(HOOK_EXCERPT_MAX + 100)
    .optional(),
  stderr: z
    .string()
    .max(HOOK_EXCERPT_MAX + 100)
    .optional(),
});

/** Every event type of the taxonomy with its payload schema. */
export const payloadSchemas = {
  'session.started': z.object({
    /** What opened the session: exec, ingest, run, acp, batch, chat. */
    origin: z.string().min(1),
    cwd: z.string().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
    /** The provider endpoint the session ran against (a reopened session keeps it); absent for a native agent or a replay. */
    baseUrl: z.string().optional(),
    agent: z.string().optional(),
    /** Input format for ingested streams (openai-chat, codex, ...). */
    format: z.string().optional(),
    /** sha256 digest of the first prompt, for the session index. */
    promptDigest: z.string().optional(),
    version: z.string().optional(),
    /** The OS sandbox of the session's commands (docs/sandbox.md); `off` is shown so it is never silent. */
    sandbox: z.enum(SANDBOX_MODES).optional(),
    /** `sha256:<hex>` of the effective system prompt (written part and instructions): runs with the same digest sent the model the same system prompt. */
    systemPromptDigest: z.string().optional(),
    /** The project instruction files in that system prompt, most general first (empty: none found, or `--no-instructions`). */
    instructions: z
      .array(
        z.object({
          /** Relative to the repository root for project files; absolute for the user's own file. */
          path: z.string().min(1),
          scope: z.enum(['user', 'project']),
          /** Bytes given to the model. */
          bytes: count,
          /** `sha256:<hex>` of those bytes. */
          sha256: z.string(),
          /** The 32 KiB cap on all instruction files cut this one short. */
          truncated: z.literal(true).optional(),
        }),
      )
      .optional(),
    /** `sha256:<hex>` of the output schema's JSON when the run must submit a typed result (`--output-schema`). */
    outputSchemaDigest: z.string().optional(),
    /** A child session (the `task` tool): the session whose tool call started it. */
    parentSessionId: z.string().optional(),
    /** A child session: the `task` tool call of the parent session that started it (its result is the child's answer). */
    parentToolCallId: z.string().optional(),
    /** A child session: the agent definition it runs (`general`, `explore`, or a user or project definition). */
    subagentType: z.string().optional(),
  }),
  'session.ended': z.object({
    outcome: RunOutcome,
    reason: TerminationReason.optional(),
    durationMs: durationMs.optional(),
  }),
  'user.message.received': z.object({
    messageId: id,
    text: z.string(),
    /** Images sent with the message (`exec -i`): what they are, and a reference to their bytes in the content store (stored once by digest; never inline). */
    images: z.array(StoredImage).optional(),
  }),
  'user.approval.requested': z.object({
    approvalId: id,
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    /** What is asked, in one line (sanitised). */
    action: z.string(),
    options: z.array(ApprovalOutcome).optional(),
    /** What an edit would change, shown with the question (absent for other requests). */
    diff: FileDiff.optional(),
    /** A question to rerun a command outside the sandbox: the line that says what the sandbox refused. */
    sandboxRefusal: z.string().optional(),
  }),
  'user.approval.settled': z.object({
    approvalId: id,
    outcome: ApprovalOutcome,
    /** Why: `user`, `policy`, `no-tty`, `parent-ended`, ... */
    reason: z.string().optional(),
  }),
  'task.started': z.object({
    taskId: id,
    prompt: z.string().optional(),
  }),
  'task.progress': z.object({
    taskId: id,
    message: z.string(),
  }),
  'task.completed': z.object({
    taskId: id,
    reason: z.literal('completed'),
    durationMs: durationMs.optional(),
    steps: count.optional(),
  }),
  'task.failed': z.object({
    taskId: id,
    reason: TerminationReason,
    error: ErrorInfo,
    durationMs: durationMs.optional(),
  }),
  'task.cancelled': z.object({
    taskId: id,
    reason: z.union([TerminationReason, z.literal('parent-ended')]),
    message: z.string().optional(),
    durationMs: durationMs.optional(),
    /** `parent-cancel`: a child session's task stopped because its parent's run stopped (user abort, timeout, budget). */
    cause: z.literal('parent-cancel').optional(),
  }),
  'plan.created': z.object({ planId: id, steps: z.array(PlanStep), explanation: z.string().optional() }),
  'plan.updated': z.object({ planId: id, steps: z.array(PlanStep), explanation: z.string().optional() }),
  'plan.step.started': z.object({ planId: id, stepId: id, title: z.string().optional() }),
  'plan.step.completed': z.object({ planId: id, stepId: id, title: z.string().optional() }),
  'assistant.message.delta': z.object({ messageId: id, delta: z.string() }),
  'assistant.message.completed': z.object({
    messageId: id,
    text: z.string(),
    /** A refusal the model gave instead of (or besides) text. */
    refusal: z.string().optional(),
    textRef: ContentRef.optional(),
  }),
  'assistant.message.truncated': z.object({
    messageId: id,
    /** The text that did arrive, as far as it goes. */
    text: z.string(),
    reason: z.enum(['stream-ended', 'max-tokens', 'cap', 'aborted']),
    textRef: ContentRef.optional(),
  }),
  'assistant.reasoning.delta': z.object({ reasoningId: id, delta: z.string() }),
  'assistant.reasoning.completed': z.object({
    reasoningId: id,
    /** Reasoning the provider chose to display; absent when it showed none. */
    text: z.string().optional(),
    /** Opaque provider signature, kept verbatim to send back; never shown. */
    signature: z.string().optional(),
    /** True for redacted/encrypted reasoning: only the opaque data is kept. */
    redacted: z.boolean().optional(),
    /** Opaque redacted/encrypted reasoning blob, or a ref to it when large. */
    data: z.string().optional(),
    dataRef: ContentRef.optional(),
  }),
  'assistant.tool_call.started': z.object({
    toolCallId: id,
    name: z.string(),
    index: count.optional(),
    executor: ToolExecutor.optional(),
  }),
  'assistant.tool_call.delta': z.object({ toolCallId: id, delta: z.string() }),
  'assistant.tool_call.completed': z.object({
    toolCallId: id,
    name: z.string(),
    /** The raw argument text as the model produced it. */
    argumentsText: z.string(),
    /** Parsed arguments; absent when the text is not valid JSON (see argumentsError). */
    arguments: z.unknown().optional(),
    argumentsError: z.string().optional(),
    executor: ToolExecutor.optional(),
  }),
  'model.response.started': z.object({
    responseId: z.string().optional(),
    model: z.string().optional(),
    provider: z.string().optional(),
  }),
  'model.response.completed': z.object({
    responseId: z.string().optional(),
    /** completed: the provider's terminator arrived; truncated: the stream ended without it. */
    outcome: z.enum(['completed', 'truncated', 'error']),
    stopReason: StopReason.optional(),
    rawStopReason: z.string().optional(),
    usage: Usage.optional(),
  }),
  'agent.session.identified': z.object({
    agent: z.string(),
    nativeSessionId: id,
    model: z.string().optional(),
    cwd: z.string().optional(),
    tools: z.array(z.string()).optional(),
    resumed: z.boolean().optional(),
  }),
  /**
   * The supervisor moved the work from one native agent to the next (`minicode run --fallback`):
   * the `from` agent's task ended failed because its usage quota ran out, and `to` starts in the
   * same workspace with a handoff prompt. `carried` says what that prompt holds.
   */
  'agent.handoff': z.object({
    from: z.string(),
    to: z.string(),
    reason: z.literal('usage-quota'),
    /** The quota signal as the `from` agent reported it, with the fidelity of that signal. */
    cause: z.object({ message: z.string().optional(), resetAt: z.string().optional(), fidelity: Fidelity }),
    /** Task of the `from` agent that ended failed; the `to` agent's task follows. */
    fromTaskId: id,
    toTaskId: id,
    carried: z.object({
      /** Transcript entries in the prompt, and entries dropped to fit the cap (oldest first). */
      transcriptEntries: count,
      droppedEntries: count,
      /** Workspace state: `git` (status and diff) or `none` (not a git repository). */
      workspace: z.enum(['git', 'none']),
      diffChars: count,
      diffTruncated: z.boolean(),
      promptChars: count,
    }),
  }),
  'context.compacted': z.object({
    /** `pressure:<p>`, `pressure:<p>:no-op`, `recovery`, or `manual` (the person asked: chat's `/compact`). */
    reason: z.string().regex(/^(pressure:\d+(\.\d+)?(:no-op)?|recovery|manual)$/),
    strategy: z.enum(['mechanical', 'llm']),
    beforeTokens: count.optional(),
    afterTokens: count.optional(),
    removedMessages: count.optional(),
    /** Images of older messages replaced by their placeholders (the model is told so in their place); absent when none. */
    removedImages: count.optional(),
    /**
     * A mechanical fold that changed the conversation: the units it kept verbatim and the oldest
     * units it removed whole. Rebuilding the session (`--continue`, `--resume`, ACP
     * `session/load`) folds the conversation before this event the same way, so a resumed session
     * goes on from the compacted conversation. Absent for an LLM summary and a no-op.
     */
    keepRecentUnits: count.optional(),
    removedUnits: count.optional(),
  }),
  'tool.started': z.object({
    toolCallId: id,
    name: z.string(),
    /** The MCP server that ran the tool (MCP tools only). */
    server: z.string().optional(),
    kind: ToolKind.optional(),
    /** One-line human title (sanitised), e.g. the command or path. */
    title: z.string().optional(),
    input: z.unknown().optional(),
    inputRef: ContentRef.optional(),
    executor: ToolExecutor.optional(),
    parentToolCallId: z.string().optional(),
    locations: z.array(z.object({ path: z.string(), line: count.optional() })).optional(),
    /** The sandbox the call's command runs in (tools that start commands: `bash`). */
    sandbox: z.enum(SANDBOX_MODES).optional(),
    /** True for the rerun of a command the sandbox refused, run unsandboxed with the user's approval (`parentToolCallId` is the refused call). */
    escalated: z.boolean().optional(),
  }),
  'tool.progress': z.object({
    toolCallId: id,
    message: z.string().optional(),
    outputDelta: z.string().optional(),
  }),
  'tool.completed': z.object({
    toolCallId: id,
    name: z.string().optional(),
    /** The MCP server that ran the tool (MCP tools only). */
    server: z.string().optional(),
    summary: z.string(),
    durationMs: durationMs.optional(),
    /** Full output, kept in the content store. */
    expandRef: ContentRef.optional(),
    /** A bounded, scrubbed excerpt of the output. */
    output: z.string().optional(),
    receipt: Receipt.optional(),
    /** The images the tool returned (`read_image`, an MCP tool's image parts), shown to the model after the step's results; their bytes are in the content store. */
    images: z.array(StoredImage).optional(),
  }),
  'tool.failed': z.object({
    toolCallId: id,
    name: z.string().optional(),
    /** The MCP server that ran the tool (MCP tools only). */
    server: z.string().optional(),
    cause: ErrorCategory,
    message: z.string(),
    hint: z.string().optional(),
    durationMs: durationMs.optional(),
    expandRef: ContentRef.optional(),
    output: z.string().optional(),
    receipt: Receipt.optional(),
  }),
  'tool.denied': z.object({
    toolCallId: id,
    name: z.string().optional(),
    /** The MCP server that ran the tool (MCP tools only). */
    server: z.string().optional(),
    reason: z.string().min(1),
  }),
  'tool.cancelled': z.object({
    toolCallId: id,
    name: z.string().optional(),
    /** The MCP server that ran the tool (MCP tools only). */
    server: z.string().optional(),
    reason: z.string().min(1),
    durationMs: durationMs.optional(),
  }),
  'file.changed': z.object({
    changes: z.array(FileChange).min(1),
    toolCallId: z.string().optional(),
    diffRef: ContentRef.optional(),
  }),
  'test.completed': z.object({
    command: z.string().optional(),
    ok: z.boolean(),
    passed: count.optional(),
    failed: count.optional(),
    skipped: count.optional(),
  }),
  'finding.detected': z.object({
    category: z.string(),
    severity: z.string(),
    summary: z.string(),
    evidence: z.unknown().optional(),
  }),
  'result.produced': z.object({
    source: z.enum(['submit_result', 'final-text', 'native']),
    result: z.unknown(),
  }),
  'checkpoint.created': z.object({
    checkpointId: id,
    ref: z.string().optional(),
    paths: z.array(z.string()).optional(),
    /** Paths the checkpoint left out and why (bounded list; `skippedCount` has the total). */
    skipped: z
      .array(
        z.object({
          path: z.string(),
          reason: z.enum(['file-too-large', 'untracked-dir-too-large', 'build-or-dependency-dir']),
        }),
      )
      .optional(),
    skippedCount: count.optional(),
  }),
  'diagnostic.raised': z.object({
    /** Stable code, e.g. `MINICODE_E_DECODE_BAD_JSON`. */
    code: z.string().min(1),
    message: z.string(),
    category: ErrorCategory.optional(),
    /** Next action, when the user can do something. */
    action: z.string().optional(),
    /** A bounded, scrubbed excerpt of the offending bytes. */
    excerpt: z.string().max(1024).optional(),
    rawRef: ContentRef.optional(),
    /** Where the offending record was: line number or byte offset in the input. */
    line: count.optional(),
    offset: count.optional(),
  }),
  'error.raised': z.object({ error: ErrorInfo }),
  'recovery.started': z.object({
    strategy: z.enum(['retry', 'fallback', 'compaction']),
    reason: z.string(),
    attempt: count.optional(),
    delayMs: durationMs.optional(),
    /** The call this recovery supersedes (I-A07). */
    supersedes: z.string().optional(),
  }),
  'recovery.completed': z.object({
    strategy: z.enum(['retry', 'fallback', 'compaction']),
    result: z.string().optional(),
  }),
  'recovery.failed': z.object({
    strategy: z.enum(['retry', 'fallback', 'compaction']),
    cause: ErrorInfo,
  }),
  'usage.reported': z.object({
    usage: Usage,
    /** Whether the numbers are totals so far (replace) or an increment (add). */
    cumulative: z.boolean(),
    scope: z.enum(['request', 'turn', 'session', 'compaction']),
    model: z.string().optional(),
    /** Estimated cost in USD; absent when the price is unknown. */
    costUsd: z.number().nonnegative().optional(),
  }),
  'hook.completed': HookRun,
  'hook.failed': HookRun,
  'limit.reached': z.object({
    kind: z.enum(['usage-quota', 'rate-limit', 'context-length', 'max-tokens', 'budget', 'max-turns', 'overloaded']),
    message: z.string().optional(),
    retryAfterMs: durationMs.optional(),
    resetAt: z.string().optional(),
    /** Rate-limit header values (remaining/limit/reset), keyed by header name. */
    headers: z.record(z.string(), z.string()).optional(),
  }),
} as const;

/** Every event type name. */
export type EventType = keyof typeof payloadSchemas;
/** The payload type of one event type. */
export type PayloadOf<T extends EventType> = z.infer<(typeof payloadSchemas)[T]>;
/** All event type names, in taxonomy order. */
export const EVENT_TYPES = Object.keys(payloadSchemas) as EventType[];
