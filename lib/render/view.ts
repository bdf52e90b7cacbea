import type { ApprovalOutcome, FileDiff, RunOutcome, Usage } from '../events/index.js';
import type { DisplayStatus } from './status.js';

/**
 * What the projection reads from reducer state, already sanitised for display. Built once per
 * call by `state-view.ts` from the reducer's state, so that every renderer sees the same
 * status, identity, duration, cause and receipt (I-A10) and none keeps truth of its own (I-A01).
 */
export interface ToolView {
  readonly toolCallId: string;
  /** One-line tool name; `tool` when no event named it. */
  readonly name: string;
  readonly title?: string;
  readonly status: DisplayStatus;
  /** Settled duration: the payload's, or derived from the start and terminal timestamps. */
  readonly durationMs?: number;
  /** Epoch ms of `tool.started`, for the live elapsed time. */
  readonly startedAt?: number;
  /** Error category of a failure. */
  readonly cause?: string;
  readonly message?: string;
  /** Why it was denied or cancelled. */
  readonly reason?: string;
  /** The completed tool's summary. */
  readonly summary?: string;
  readonly exitCode?: number;
  /** Latest live progress line, if any. */
  readonly progress?: string;
  /** The bounded output excerpt of a settled call, display-safe (lines kept). */
  readonly output?: string;
  /** A terminal arrived without a start (flagged in diagnostics). */
  readonly incomplete?: boolean;
}

/** An approval as displayed. */
export interface ApprovalView {
  readonly approvalId: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly action: string;
  readonly options: readonly string[];
  /** What an edit would change (from the request event). */
  readonly diff?: FileDiff;
  readonly outcome?: ApprovalOutcome;
  readonly reason?: string;
}

/** Tool counts by final status, as the summary reports them. */
export interface ToolCounts {
  completed: number;
  failed: number;
  denied: number;
  cancelled: number;
  /** Still running when the run ended (rebuild: interrupted). */
  interrupted: number;
}

/** The run's settled figures for the final summary. */
export interface RunView {
  readonly sessionId: string;
  readonly outcome: RunOutcome;
  readonly reason?: string;
  readonly durationMs?: number;
  readonly usage: Usage;
  readonly costUsd?: number;
  readonly tools: ToolCounts;
  /** Changed paths, sorted, each once. */
  readonly filesChanged: readonly string[];
  readonly hasResult: boolean;
  /** Native agents that ran, in order; the last one is the agent that finished. */
  readonly agents?: readonly string[];
  readonly result?: unknown;
  readonly error?: { category: string; code?: string; message: string; action?: string };
}

/** The projection's read access to reducer state. */
export interface StateView {
  tool(toolCallId: string): ToolView | undefined;
  /** Tools started and not yet settled, in start order. */
  runningTools(): readonly ToolView[];
  /** Approvals requested and not yet settled. */
  openApprovals(): readonly ApprovalView[];
  run(): RunView;
  /** Streaming text not yet completed, by message, sanitised (reducer `live`). */
  liveMessages(): readonly { messageId: string; text: string }[];
  /** Streaming reasoning not yet completed, sanitised. */
  liveReasoning(): readonly { reasoningId: string; text: string }[];
  /** The latest task progress line, if any. */
  taskProgress(): string | undefined;
  /** The newest open root task (a turn that is running), with its start in epoch ms; undefined when none is open. */
  activeTurn(): { readonly startedAt?: number } | undefined;
  /** Every tool, in start order, as the settled run shows it (open ones interrupted). */
  settledTools(): readonly ToolView[];
}
