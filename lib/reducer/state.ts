/**
 * The reducer's state: plain, JSON-serialisable presentation state of one session (I-A04: no
 * terminal geometry, timers, widgets or large payloads). Every field is derived from durable
 * events except `live`, which holds transient streaming text fed by live events (deltas,
 * progress) and is the only part a rebuild may lack.
 *
 * Its size does not grow with the length of the session: open items (tasks, tools, approvals
 * not yet settled, streaming text) stay, settled ones are kept only while they are among the
 * latest {@link KEEP_SETTLED} and then leave memory, counted in `retired`; lists of finished
 * content keep the latest {@link KEEP_RECENT} entries, and `counts` and the aggregates beside
 * them (tests, findings, files, the submitted result) hold what a summary needs. The detail
 * of every item stays in the events (the store), where `replay` reads it.
 */
import type {
  ApprovalOutcome,
  ContentRef,
  ErrorCategory,
  ErrorInfo,
  RunOutcome,
  StopReason,
  TerminationReason,
  Usage,
} from '../events/index.js';

/** Version of this state shape; bump on a breaking change so stored snapshots can be refused. */
export const STATE_VERSION = 2 as const;

/** The run's outcome while it goes (`running`) and once settled. */
export type RunOutcomeState = 'running' | RunOutcome;

/** Which evidence decided the run outcome (see `run.ts` for the rule). */
export type OutcomeSource = 'none' | 'response' | 'task' | 'session' | 'rebuild';

/** Task lifecycle (docs/event-model.md): started -> active -> completed | failed | cancelled; active <-> partial. */
export type TaskStatus = 'started' | 'active' | 'partial' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

/** Tool lifecycle: started -> running -> terminal; `incomplete` when a start or a terminal is missing. */
export type ToolStatus = 'started' | 'running' | 'completed' | 'failed' | 'denied' | 'cancelled' | 'incomplete';

/** Approval lifecycle: requested -> settled. */
export type ApprovalStatus = 'requested' | 'settled';

/**
 * Copy the named fields of `source` that are defined onto `target`, in the order of `keys`
 * (with exactOptionalPropertyTypes an optional field is left out, never set to undefined; the
 * order is the order the fields appear in printed JSON).
 */
export function copyDefined<S extends object, K extends keyof S>(
  target: { [P in K]?: S[P] },
  source: S,
  keys: readonly K[],
): void {
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) target[key] = value;
  }
}

/** Session identity, from `session.started`, `agent.session.identified` and `session.ended`. */
export interface SessionInfo {
  origin?: string;
  cwd?: string;
  provider?: string;
  model?: string;
  /** The current agent: the first one, then each handoff's `to`. */
  agent?: string;
  /** Native agents that ran, in order (one entry per handoff step). */
  agents?: string[];
  format?: string;
  promptDigest?: string;
  version?: string;
  nativeSessionId?: string;
  startedAt?: string;
  endedAt?: string;
  /** From `session.ended`, else absent (summarize derives one from timestamps). */
  durationMs?: number;
  /** A child session (the `task` tool): the session and tool call that started it. */
  parentSessionId?: string;
  parentToolCallId?: string;
}

/** The run's outcome, the one termination reason and the error that decided it. */
export interface RunState {
  outcome: RunOutcomeState;
  source: OutcomeSource;
  reason?: TerminationReason | 'parent-ended';
  error?: ErrorInfo;
  /** Last response's stop reason, for ingested provider streams. */
  stopReason?: StopReason;
}

export interface TaskState {
  taskId: string;
  status: TaskStatus;
  /** False for child tasks (envelope `parentId` set): they do not decide the run outcome. */
  root: boolean;
  parentId?: string;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  reason?: TerminationReason | 'parent-ended';
  error?: ErrorInfo;
  message?: string;
  steps?: number;
  /** True when a terminal arrived without `task.started`. */
  reconstructed?: boolean;
}

export interface ReceiptState {
  exitCode?: number;
  bytes?: number;
  lines?: number;
  paths?: string[];
  truncated?: boolean;
}

export interface ToolState {
  toolCallId: string;
  name?: string;
  kind?: string;
  title?: string;
  executor?: string;
  parentToolCallId?: string;
  status: ToolStatus;
  /** What the terminal event said, kept when the status had to become `incomplete`. */
  reportedStatus?: 'completed' | 'failed' | 'denied' | 'cancelled';
  startedAt?: string;
  endedAt?: string;
  /** The payload's duration, else derived from the start and end timestamps. */
  durationMs?: number;
  summary?: string;
  /** Bounded excerpt of the output, as the producer capped it. */
  output?: string;
  cause?: ErrorCategory;
  message?: string;
  hint?: string;
  reason?: string;
  receipt?: ReceiptState;
  expandRef?: ContentRef;
  /** Anomaly kinds recorded for this call (details are in `state.anomalies`). */
  anomalies?: string[];
}

export interface ApprovalState {
  approvalId: string;
  status: ApprovalStatus;
  toolCallId?: string;
  toolName?: string;
  action?: string;
  /** The task open when the approval was requested: settling it force-closes the approval. */
  taskId?: string;
  requestedAt?: string;
  settledAt?: string;
  outcome?: ApprovalOutcome;
  reason?: string;
}

export interface MessageState {
  messageId: string;
  status: 'completed' | 'truncated';
  text: string;
  refusal?: string;
  reason?: string;
  textRef?: ContentRef;
  at: string;
}

export interface ReasoningState {
  reasoningId: string;
  text?: string;
  redacted?: boolean;
  /** An opaque signature or data blob exists (kept in the events, never in state). */
  opaque?: boolean;
}

/** A tool call as the model asked for it (`assistant.tool_call.completed`). */
export interface ProviderToolCallState {
  toolCallId: string;
  name: string;
  executor?: string;
  /** The argument text, cut at {@link MAX_ARGUMENTS_CHARS}. */
  argumentsText: string;
  argumentsTruncated?: boolean;
  argumentsError?: string;
}

export interface PlanState {
  planId: string;
  steps: { id: string; title: string; status: 'pending' | 'in_progress' | 'completed' }[];
}

export interface FileChangeState {
  path: string;
  kind: 'create' | 'modify' | 'delete' | 'move';
  toolCallId?: string;
}

export interface TestState {
  command?: string;
  ok: boolean;
  passed?: number;
  failed?: number;
  skipped?: number;
}

export interface FindingState {
  category: string;
  severity: string;
  summary: string;
}

export interface ResultState {
  source: 'submit_result' | 'final-text' | 'native';
  result: unknown;
}

export interface LimitState {
  kind: string;
  message?: string;
  retryAfterMs?: number;
  resetAt?: string;
}

/**
 * Token usage. `reported` folds `usage.reported` (cumulative replaces, incremental adds);
 * `responses` sums `model.response.completed` usage. The effective usage is `reported` when any
 * `usage.reported` arrived (a pipeline that reports usage reports it for every request), else
 * `responses`, so the same tokens are never counted twice. A field never reported stays absent.
 */
export interface UsageState {
  reported?: Usage;
  responses?: Usage;
  /** Estimated USD; absent while no report carried a price. */
  costUsd?: number;
  /** Reports with token counts but no price: the cost is a lower bound when > 0. */
  unpricedReports: number;
}

/** Something the reducer saw that breaks a state machine; kept, never thrown. */
export interface Anomaly {
  kind:
    | 'second-terminal'
    | 'terminal-without-start'
    | 'duplicate-start'
    | 'start-after-terminal'
    | 'settle-without-request'
    | 'outcome-conflict'
    | 'open-at-session-end'
    | 'foreign-session';
  seq: number;
  type: string;
  id?: string;
  detail?: string;
}

/** Transient streaming state fed by live events; rebuild leaves it empty. */
export interface LiveState {
  /** Streaming text by messageId, until its completed/truncated event arrives. */
  messages: Record<string, string>;
  reasoning: Record<string, string>;
  /** Last progress line per open tool. */
  toolProgress: Record<string, string>;
  taskProgress?: string;
  /** True when a streaming text hit {@link MAX_LIVE_CHARS} and stopped growing. */
  capped?: boolean;
}

/** Settled tools, approvals and tasks that left memory (see {@link KEEP_SETTLED}), counted. */
export interface RetiredState {
  tools: {
    total: number;
    byStatus: Partial<Record<ToolStatus, number>>;
    /** Of the `incomplete` ones, those whose terminal arrived without a start, by what it reported. */
    reported: Partial<Record<NonNullable<ToolState['reportedStatus']>, number>>;
  };
  approvals: { total: number; byOutcome: Record<string, number> };
  tasks: number;
}

/** Lists that keep only their latest {@link KEEP_RECENT} entries, and whose total is counted. */
export type RecentListKey =
  | 'userMessages'
  | 'messages'
  | 'reasoning'
  | 'providerToolCalls'
  | 'tests'
  | 'findings'
  | 'results'
  | 'checkpoints'
  | 'compactions'
  | 'limits'
  | 'errors';

/** Test runs over the whole session: how many, whether all passed, and the summed counts. */
export interface TestTotals {
  runs: number;
  ok?: boolean;
  passed?: number;
  failed?: number;
  skipped?: number;
}

/** The whole reducer state of one session. */
export interface ReducerState {
  version: typeof STATE_VERSION;
  sessionId: string;
  session: SessionInfo;
  run: RunState;
  /** Open tasks and the latest settled ones (see {@link KEEP_SETTLED}). */
  tasks: Record<string, TaskState>;
  /** Ids in `tasks`, in start order. */
  taskOrder: string[];
  /** Ids of tasks not yet settled, in start order. */
  openTasks: string[];
  /** Open tools and the latest settled ones. */
  tools: Record<string, ToolState>;
  /** Ids in `tools`, in start order. */
  toolOrder: string[];
  /** Open approvals and the latest settled ones. */
  approvals: Record<string, ApprovalState>;
  approvalOrder: string[];
  /** What left `tasks`, `tools` and `approvals`, counted. */
  retired: RetiredState;
  /** Items ever added to each recent list (the lists keep the latest {@link KEEP_RECENT}). */
  counts: Record<RecentListKey, number>;
  userMessages: { messageId: string; text: string }[];
  messages: MessageState[];
  reasoning: ReasoningState[];
  providerToolCalls: ProviderToolCallState[];
  responses: { started: number; completed: number; truncated: number; errored: number };
  plan?: PlanState;
  /** Distinct changed paths in order of first change, each with its latest change. */
  files: FileChangeState[];
  /** Index of each path in `files`. */
  fileIndex: Record<string, number>;
  tests: TestState[];
  testTotals: TestTotals;
  findings: FindingState[];
  findingsBySeverity: Record<string, number>;
  results: ResultState[];
  /** The latest `submit_result` result, kept whatever number of results followed it. */
  submitted?: ResultState;
  checkpoints: string[];
  compactions: { reason: string; strategy: string; beforeTokens?: number; afterTokens?: number }[];
  recoveries: { started: number; completed: number; failed: number };
  usage: UsageState;
  limits: LimitState[];
  errors: ErrorInfo[];
  diagnostics: { count: number; byCode: Record<string, number> };
  anomalies: Anomaly[];
  /** Anomalies not kept once {@link MAX_ANOMALIES} was reached. */
  anomaliesDropped: number;
  /** Durable events folded so far and the last one's sequence and time. */
  durableEvents: number;
  lastSeq?: number;
  lastTimestamp?: string;
  live: LiveState;
}

/**
 * Settled tools, approvals and tasks kept in memory (the latest ones): a late duplicate or
 * second terminal for one of them is recognised as such, and renderers read the one that just
 * settled. When twice as many are held, the oldest settled go down to this number (amortised:
 * one pass per KEEP_SETTLED settles) and are counted in `retired`. A second terminal arriving
 * after its call left memory reads as a terminal without a start.
 */
export const KEEP_SETTLED = 256;
/** Entries kept in each recent list (messages, reasoning, results, ...); totals are in `counts`. */
export const KEEP_RECENT = 32;
/** Anomalies kept in state; further ones are only counted (a hostile stream cannot grow state without bound). */
export const MAX_ANOMALIES = 1000;
/** Longest provider tool-call argument text kept in state. */
export const MAX_ARGUMENTS_CHARS = 2000;
/** Longest transient streaming text kept per message (default 256 KiB of UTF-16 units). */
export const MAX_LIVE_CHARS = 262_144;

/** The empty state of a session before any event. */
export function initialState(sessionId: string): ReducerState {
  return {
    version: STATE_VERSION,
    sessionId,
    session: {},
    run: { outcome: 'running', source: 'none' },
    tasks: {},
    taskOrder: [],
    openTasks: [],
    tools: {},
    toolOrder: [],
    approvals: {},
    approvalOrder: [],
    retired: { tools: { total: 0, byStatus: {}, reported: {} }, approvals: { total: 0, byOutcome: {} }, tasks: 0 },
    counts: {
      userMessages: 0,
      messages: 0,
      reasoning: 0,
      providerToolCalls: 0,
      tests: 0,
      findings: 0,
      results: 0,
      checkpoints: 0,
      compactions: 0,
      limits: 0,
      errors: 0,
    },
    userMessages: [],
    messages: [],
    reasoning: [],
    providerToolCalls: [],
    responses: { started: 0, completed: 0, truncated: 0, errored: 0 },
    files: [],
    fileIndex: {},
    tests: [],
    testTotals: { runs: 0 },
    findings: [],
    findingsBySeverity: {},
    results: [],
    checkpoints: [],
    compactions: [],
    recoveries: { started: 0, completed: 0, failed: 0 },
    usage: { unpricedReports: 0 },
    limits: [],
    errors: [],
    diagnostics: { count: 0, byCode: {} },
    anomalies: [],
    anomaliesDropped: 0,
    durableEvents: 0,
    live: { messages: {}, reasoning: {}, toolProgress: {} },
  };
}

/** True for task statuses that end the task. */
export function isTaskSettled(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'interrupted';
}

/** True for tool statuses that end the call. */
export function isToolSettled(status: ToolStatus): boolean {
  return status !== 'started' && status !== 'running';
}
