import type { ErrorCategory } from '../events/enums.js';
import type { SandboxSettings } from '../sandbox/settings.js';
import type { FileChange, FileDiff } from '../events/payloads.js';
import type { ApprovalDecision, ApprovalRequest } from '../policy/approval-events.js';
import type { ToolKindName } from '../policy/decide.js';
import type { ImageAttachment } from '../images/load.js';
import type { ShellSession } from './shell-session.js';

export type { ApprovalDecision, ApprovalRequest, FileChange, ToolKindName };

/** Compact evidence of what a tool did (mirrors the event model's `Receipt`). */
export interface ToolReceipt {
  exitCode?: number;
  bytes?: number;
  lines?: number;
  paths?: string[];
  truncated?: boolean;
}

/** One finding of `submit_result`, projected by the loop as `finding.detected`. */
export interface Finding {
  category: string;
  severity: string;
  summary: string;
  evidence?: unknown;
}

/** A plan as `update_plan` leaves it: the loop emits `plan.created` (first) or `plan.updated`. */
export interface PlanUpdate {
  planId: string;
  /** True for the run's first plan. */
  created: boolean;
  steps: { id: string; title: string; status: 'pending' | 'in_progress' | 'completed' }[];
  explanation?: string;
}

/** The tool ran and did what it was asked. */
export interface ToolCompleted {
  status: 'completed';
  /** One line for humans and for `tool.completed.summary`. */
  summary: string;
  /** What the model sees; already bounded by the producer cap. */
  output: string;
  receipt?: ToolReceipt;
  fileChanges?: FileChange[];
  /** `submit_result` only: the submitted JSON, verbatim. */
  result?: unknown;
  /** `submit_result` only: explicit findings, for `finding.detected`. */
  findings?: Finding[];
  /** `update_plan` only: the plan, for `plan.created` / `plan.updated`. */
  plan?: PlanUpdate;
  /** `read_image` only: the image, sent to the model with the tool results (`output` is its placeholder). */
  images?: ImageAttachment[];
  /** A command the sandbox refused something (its one-line note, also at the end of `output`). */
  sandboxRefusal?: string;
}

/** The tool ran (or tried to) and failed; `output` carries what the model should still see. */
export interface ToolFailed {
  status: 'failed';
  cause: ErrorCategory;
  message: string;
  hint?: string;
  output?: string;
  receipt?: ToolReceipt;
  /** A command the sandbox refused something (its one-line note, also at the end of `output`). */
  sandboxRefusal?: string;
}

/** Policy or the user refused; never degrades into a generic failure. */
export interface ToolDenied {
  status: 'denied';
  reason: string;
}

/** What a tool call ends with: exactly one terminal outcome. */
export type ToolOutcome = ToolCompleted | ToolFailed | ToolDenied;

/** Producer caps and deadlines; every buffer a tool keeps has one of these as its bound. */
export interface ToolLimits {
  /** Output cap in characters, 70% head + 30% tail with a marker. Default 20,000. */
  maxOutputChars: number;
  /** Largest file `read_file` / `edit` will load. Default 5 MiB. */
  maxFileBytes: number;
  /** Default `read_file` page in lines. Default 2,000. */
  readPageLines: number;
  /** Longest line `read_file` shows before cutting it. Default 2,000 chars. */
  maxLineChars: number;
  /** `bash` deadline when the call gives none. Default 120,000 ms. */
  bashTimeoutMs: number;
  /** Grace between SIGTERM and SIGKILL of a timed-out process group. Default 2,000 ms. */
  killGraceMs: number;
  /** Most matches / paths `grep` and `glob` return. Default 200. */
  maxResults: number;
}

/** The defaults of {@link ToolLimits}. */
export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  maxOutputChars: 20_000,
  maxFileBytes: 5 * 1024 * 1024,
  readPageLines: 2_000,
  maxLineChars: 2_000,
  bashTimeoutMs: 120_000,
  killGraceMs: 2_000,
  maxResults: 200,
});

/**
 * Text file access a surface may give the tools instead of the local file system (ACP: the
 * IDE's `fs/read_text_file` / `fs/write_text_file`, so reads see unsaved buffers and writes land
 * in them). Paths are absolute. A failure rejects; the tools turn it into a failed outcome.
 */
export interface ToolFileSystem {
  readTextFile(absolutePath: string): Promise<string>;
  writeTextFile(absolutePath: string, content: string): Promise<void>;
}

/** The result of a command run by a {@link ToolTerminal}. */
export interface ToolTerminalResult {
  output: string;
  truncated: boolean;
  exitCode: number | null;
  signal: string | null;
}

/**
 * Commands run somewhere else than a local subprocess (ACP: the IDE's `terminal/*`). `signal`
 * aborts on timeout or cancel; the terminal must then kill the command and still resolve.
 */
export interface ToolTerminal {
  run(
    command: { command: string; args: string[]; cwd: string; outputByteLimit: number; toolCallId?: string },
    signal: AbortSignal,
  ): Promise<ToolTerminalResult>;
}

/** Everything a tool may touch besides its input. */
export interface ToolContext {
  /** The workspace root; paths are confined to it (and `allowedPaths`) unless approved. */
  cwd: string;
  signal: AbortSignal;
  /** Asked before anything outside the allowlist; must never hang (fail closed without a TTY). */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  limits: ToolLimits;
  /** Extra roots outside `cwd` that tools may use without asking. */
  allowedPaths?: readonly string[];
  /** Environment the subprocess starts from (scrubbed before use); default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** The OS sandbox around `bash` (lib/sandbox); absent: none (the run's set-up always fills it). */
  sandbox?: SandboxSettings | undefined;
  /** True when a person can answer (`ask_user`, approvals). */
  tty?: boolean | undefined;
  /** Renders a question to the person and resolves with the answer (injected by the TTY surface). */
  promptAskText?: ((question: string, signal: AbortSignal) => Promise<string>) | undefined;
  toolCallId?: string;
  /** File access for read_file, write_file and edit; default the local file system (node fs). */
  fs?: ToolFileSystem | undefined;
  /** Where bash runs its command; default a local subprocess in its own process group. */
  terminal?: ToolTerminal | undefined;
  /** Child sessions the `task` tool starts; absent: the run cannot start any. */
  children?: ChildSessions | undefined;
  /**
   * The session's persistent shell (Claude's `bash` shape, shell-session.ts): `bash` starts where
   * the previous command ended, with what it exported; absent: every command starts afresh in `cwd`.
   */
  shell?: ShellSession | undefined;
  /** Live progress of this call (`tool.progress`, never stored); set by the loop for each call. */
  progress?: ((message: string) => void) | undefined;
}

/** One child session the `task` tool asks for. */
export interface ChildTaskRequest {
  /** The parent's short description of the task. */
  description: string;
  /** What the child is told: its whole prompt (it does not see the parent's conversation). */
  prompt: string;
  /** The agent definition's name (`subagent_type`). */
  agent: string;
  /** A model for the child; undefined: the definition's, else the parent's. */
  model: string | undefined;
  /** The parent's tool call, recorded as the child's `parentToolCallId`. */
  toolCallId: string;
  /** The parent's run signal: when the parent stops, the child stops (`parent-cancel`). */
  signal: AbortSignal;
  /** One line of the child's progress, shown under the parent's tool call. */
  onProgress(message: string): void;
  /** The child's estimated spend so far (undefined: unknown), counted in the parent's budget. */
  onCost(costUsd: number | undefined): void;
}

/** The child sessions a run may start (lib/agent/children.ts). */
export interface ChildSessions {
  /** The agent definitions the `task` tool offers, by name and description. */
  readonly agents: readonly { name: string; description: string }[];
  /** False at the depth limit: `task` is not offered to the model and refuses when called. */
  readonly canStart: boolean;
  /** Run one child session to its end; its answer (or submitted result) is the outcome's output. */
  run(request: ChildTaskRequest): Promise<ToolOutcome>;
}

/** One problem with a tool's input: where (keys and indexes) and what, in zod's words. */
export interface InputIssue {
  path: PropertyKey[];
  message: string;
}

/** A tool input's validator: the tool's zod schema (structurally, so that tests may pass another). `data` is the value to run with. */
export interface InputSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly InputIssue[] } };
}

/** A tool: its provider-facing definition and its implementation. */
export interface Tool<Input = unknown> {
  name: string;
  description: string;
  /** The input's validator. */
  inputSchema: InputSchema<Input>;
  kind: ToolKindName;
  /** Always asks (or is denied without a TTY), whatever the approval mode. */
  gated: boolean;
  /**
   * Never changes the workspace, though its kind does not say so (`submit_result`, `ask_user`,
   * `update_plan`): no checkpoint is taken for it. `read` and `search` tools never change it.
   */
  readOnly?: boolean;
  /** The provider-facing JSON Schema of the input (built-in tools: input-json-schemas.ts, generated from their zod schemas; MCP: the server's). */
  jsonSchema: Record<string, unknown>;
  /** The MCP server the tool belongs to (named in tool events and matched by `mcp__<server>__*`). */
  server?: string;
  /** An MCP tool of a server its config trusts (`trust: true`): runs without asking, except in `read-only` mode. Default false. */
  trusted?: boolean;
  /**
   * False: kept out of the definitions sent to the model, though a call to it still runs (and
   * may refuse): a tool reached only through a model-native shape (lib/tools/shapes.ts:
   * `apply_patch`, `insert_text`), `task` at the depth limit. Default offered.
   */
  offered?: boolean;
  /** Starts a command through the launcher (lib/sandbox), so its calls run in the run's sandbox. */
  startsCommands?: boolean;
  /** A one-line title for `tool.started` (the command or the path). */
  title?(input: Input): string;
  /**
   * What the call would change, computed without changing anything, for the approval question
   * of a call the policy asks about; undefined when it cannot tell. Never asks for approval itself.
   */
  preview?(input: Input, ctx: ToolContext): Promise<FileDiff | undefined>;
  run(input: Input, ctx: ToolContext): Promise<ToolOutcome>;
}

/** A tool whose input type has been erased, as the registry holds them. */
export type AnyTool = Tool<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Tools that come from outside the built-in set for one run (MCP servers): the current tools,
 * and a sink for the diagnostics the source raises while the run goes (server stderr, crashes).
 */
export interface ToolSource {
  tools(): readonly AnyTool[];
  /** Resolves once tool lists being refreshed (an MCP server's `tools/list_changed`) are current. */
  ready?(): Promise<void>;
  /** Route diagnostics to the run's pipeline (buffered ones first); returns the detach function. */
  attach(emit: (draft: import('../events/index.js').EventDraft) => void): () => void;
}
