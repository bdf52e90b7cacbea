import type {
  ErrorInfo,
  EventDraft,
  EventDraftOf as DraftOf,
  EventType,
  Fidelity,
  PayloadOf,
} from '../events/index.js';
import type { EventSink } from '../decode/types.js';
import type { ErrorCode } from '../errors.js';
import { count, DIAGNOSTIC_EXCERPT_CHARS, excerpt, matchLimitWording, oneLine } from './text.js';
import { definedOnly } from '../defined-only.js';

/**
 * The run bookkeeping every native decoder shares: one task per run, the open tool calls and
 * approvals, and the one settle point. Format decoders translate records into calls on this
 * core; the core guarantees the state-machine invariants the reducer relies on:
 * - `task.started` is the first event (synthesised, fidelity `synthetic`, when the format has
 *   no init record before the first event);
 * - every `tool.started` gets exactly one terminal; a second terminal is dropped with a
 *   diagnostic, a terminal without a start gets a synthetic start first;
 * - when the task settles, tools still open get `tool.cancelled {reason:'parent-ended'}` and
 *   approvals still open get `user.approval.settled {outcome:'cancelled'}`, both synthetic;
 * - the task settles at most once (first terminal wins).
 *
 * Exit policy (see {@link RunCore.exit}): a non-zero exit or a signal without a terminal record
 * fails the task; a clean exit without one leaves the task unsettled (rebuild shows it as
 * `interrupted`) unless the format has no terminal record at all (opencode), where a clean exit
 * completes it; `end()` without exit information never settles.
 */
export interface RunCore {
  readonly agent: string;
  readonly taskId: string;
  readonly settled: boolean;
  readonly taskStarted: boolean;
  /** Emit any draft; starts the task (synthetic) first when it has not started. */
  emit<T extends EventType>(type: T, payload: PayloadOf<T>, fidelity: Fidelity, fields?: EmitFields): void;
  /**
   * Start the task; `native` when the format has an init record. Idempotent while the task
   * runs; after the task settled it starts the stream's next task (`task-1.2`, ...).
   */
  startTask(fidelity: Fidelity, prompt?: string): void;
  /** Report the native session id once per distinct id and task. */
  identify(payload: Omit<PayloadOf<'agent.session.identified'>, 'agent'>, fidelity?: Fidelity): void;
  /**
   * Open a tool call; duplicates and starts after the settle point become diagnostics. The
   * payload becomes the event's payload (`executor` is set on it): pass a fresh object.
   */
  startTool(payload: Omit<PayloadOf<'tool.started'>, 'executor'>, fidelity: Fidelity): void;
  /** True while the tool call is open. */
  isToolOpen(toolCallId: string): boolean;
  /** Name the tool was started with. */
  toolName(toolCallId: string): string | undefined;
  /** End a tool call with its one terminal. */
  finishTool(terminal: ToolTerminal, fidelity: Fidelity): void;
  requestApproval(payload: PayloadOf<'user.approval.requested'>, fidelity: Fidelity): void;
  /** Settle an open approval; unknown or already settled ids are ignored. */
  settleApproval(
    approvalId: string,
    outcome: PayloadOf<'user.approval.settled'>['outcome'],
    reason: string,
    fidelity: Fidelity,
  ): void;
  /** Open approval for a tool call, if any. */
  approvalForTool(toolCallId: string): string | undefined;
  completeTask(fidelity: Fidelity, extra?: { durationMs?: number; steps?: number }): void;
  failTask(reason: PayloadOf<'task.failed'>['reason'], error: ErrorInfo, fidelity: Fidelity, durationMs?: number): void;
  cancelTask(reason: PayloadOf<'task.cancelled'>['reason'], message: string | undefined, fidelity: Fidelity): void;
  /** A diagnostic with a bounded excerpt; repeated codes past `maxDiagnostics` are counted, not emitted. */
  diagnostic(code: ErrorCode, message: string, where?: { line?: number; raw?: string }): void;
  /** Remember stderr text (bounded tail) for failure messages. */
  stderr(text: string): void;
  /** Apply the exit policy; `cleanExitCompletes` for formats without a terminal record. */
  exit(code: number | null, signal: string | null, cleanExitCompletes: boolean): void;
}

/** Envelope fields a decoder may set besides fidelity. */
export interface EmitFields {
  correlationId?: string;
  parentId?: string;
  severity?: 'info' | 'warning' | 'error' | 'critical';
  status?:
    | 'started'
    | 'active'
    | 'completed'
    | 'failed'
    | 'denied'
    | 'cancelled'
    | 'interrupted'
    | 'partial'
    | 'recovered';
}

/** One terminal of a tool call. */
export type ToolTerminal =
  | { type: 'tool.completed'; payload: PayloadOf<'tool.completed'> }
  | { type: 'tool.failed'; payload: PayloadOf<'tool.failed'> }
  | { type: 'tool.denied'; payload: PayloadOf<'tool.denied'> }
  | { type: 'tool.cancelled'; payload: PayloadOf<'tool.cancelled'> };

/** Options of {@link createRunCore}. */
export interface RunCoreOptions {
  agent: string;
  onEvent: EventSink;
  /** Task id of the run's one task; default `task-1`. */
  taskId?: string;
  /** Diagnostics emitted per code before further ones are only counted; default 20. */
  maxDiagnosticsPerCode?: number;
  /** Longest stderr tail kept, in characters; default 4096. */
  maxStderrChars?: number;
}

/** Create the shared run core of a native decoder. */
export function createRunCore(options: RunCoreOptions): RunCore {
  const { agent, onEvent } = options;
  const firstTaskId = options.taskId ?? 'task-1';
  let taskId = firstTaskId;
  let taskCount = 1;
  const maxPerCode = options.maxDiagnosticsPerCode ?? 20;
  const maxStderr = options.maxStderrChars ?? 4096;
  let taskStarted = false;
  let settled = false;
  const identified = new Set<string>();
  const openTools = new Map<string, string>();
  // Ids of ended calls, to refuse a second start or terminal: the latest CLOSED_TOOLS_KEPT to
  // 2x that many (a Set iterates in insertion order, so the oldest go first), so a long run
  // does not keep every id it ever saw.
  const closedTools = new Set<string>();
  const closeTool = (id: string): void => {
    closedTools.add(id);
    if (closedTools.size <= 2 * CLOSED_TOOLS_KEPT) return;
    let excess = closedTools.size - CLOSED_TOOLS_KEPT;
    for (const old of closedTools) {
      if (excess-- <= 0) break;
      closedTools.delete(old);
    }
  };
  const openApprovals = new Map<string, string | undefined>();
  const diagnosticsByCode = new Map<string, number>();
  let stderrPieces: string[] = [];
  let stderrLength = 0;

  function push<T extends EventType>(type: T, payload: PayloadOf<T>, fidelity: Fidelity, fields?: EmitFields): void {
    // What draft(type, payload, { fidelity, ...fields }) builds, as one object (this runs per event).
    const d: DraftOf<T> = { type, payload, fidelity };
    onEvent((fields === undefined ? d : Object.assign(d, fields)) as EventDraft);
  }

  function startTask(fidelity: Fidelity, prompt?: string): void {
    if (taskStarted && !settled) return;
    if (settled) {
      // A new run in the same stream (a concatenated log, `codex exec resume` output appended):
      // the next task, with its own settle point.
      taskCount++;
      taskId = `${firstTaskId}.${taskCount}`;
      settled = false;
    }
    taskStarted = true;
    push('task.started', prompt === undefined ? { taskId } : { taskId, prompt }, fidelity);
  }

  function emit<T extends EventType>(type: T, payload: PayloadOf<T>, fidelity: Fidelity, fields?: EmitFields): void {
    if (!taskStarted && type !== 'diagnostic.raised') startTask('synthetic');
    push(type, payload, fidelity, fields);
  }

  /**
   * `emit(type, payload, fidelity, { correlationId })` without the fields object and the
   * Object.assign (the same draft, keys in the same order): every tool start and terminal goes
   * through here.
   */
  function emitCorrelated<T extends EventType>(
    type: T,
    payload: PayloadOf<T>,
    fidelity: Fidelity,
    correlationId: string,
  ): void {
    if (!taskStarted) startTask('synthetic');
    onEvent({ type, payload, fidelity, correlationId } as EventDraft);
  }

  function diagnostic(code: ErrorCode, message: string, where: { line?: number; raw?: string } = {}): void {
    const seen = (diagnosticsByCode.get(code) ?? 0) + 1;
    diagnosticsByCode.set(code, seen);
    if (seen > maxPerCode) return;
    const payload: PayloadOf<'diagnostic.raised'> = {
      code,
      message: seen === maxPerCode ? `${message} (further ${code} diagnostics are not reported)` : message,
    };
    if (where.line !== undefined) payload.line = where.line;
    if (where.raw !== undefined) payload.excerpt = excerpt(where.raw, DIAGNOSTIC_EXCERPT_CHARS);
    push('diagnostic.raised', payload, 'synthetic');
  }

  function closeOpenWork(): void {
    // Most settles find nothing open: no iterators then (this runs once per turn).
    if (openTools.size === 0 && openApprovals.size === 0) return;
    for (const [toolCallId, name] of openTools) {
      closeTool(toolCallId);
      push('tool.cancelled', { toolCallId, name, reason: 'parent-ended' }, 'synthetic', { correlationId: toolCallId });
    }
    openTools.clear();
    for (const [approvalId, toolCallId] of openApprovals) {
      push('user.approval.settled', { approvalId, outcome: 'cancelled', reason: 'parent-ended' }, 'synthetic', {
        correlationId: toolCallId ?? approvalId,
      });
    }
    openApprovals.clear();
  }

  function beginSettle(): boolean {
    if (settled) return false;
    if (!taskStarted) startTask('synthetic');
    closeOpenWork();
    settled = true;
    return true;
  }

  function stderrTail(): string {
    return stderrPieces.join('').trim();
  }

  const core: RunCore = {
    agent,
    get taskId() {
      return taskId;
    },
    get settled() {
      return settled;
    },
    get taskStarted() {
      return taskStarted;
    },
    emit,
    startTask,
    identify(payload, fidelity = 'native') {
      // Once per id and task: a resumed session is identified again for its new task.
      const key = `${taskId}\u0000${payload.nativeSessionId}`;
      if (identified.has(key)) return;
      identified.add(key);
      emit('agent.session.identified', { agent, ...payload }, fidelity);
    },
    startTool(payload, fidelity) {
      const id = payload.toolCallId;
      if (openTools.has(id) || closedTools.has(id)) {
        diagnostic(
          'MINICODE_E_NATIVE_DUPLICATE_TOOL',
          `tool call ${id} was started twice; the second start is ignored`,
        );
        return;
      }
      if (settled) {
        diagnostic('MINICODE_E_NATIVE_AFTER_SETTLE', `tool call ${id} started after the run settled; ignored`);
        return;
      }
      openTools.set(id, payload.name);
      // The caller's payload becomes the event's (see RunCore.startTool): `executor` is added in
      // place, last, as a copy with it would have it. Copying by spread was most of this call.
      const started = payload as PayloadOf<'tool.started'>;
      started.executor = 'native';
      if (started.input !== undefined) started.input = boundedInput(started.input);
      emitCorrelated('tool.started', started, fidelity, id);
    },
    isToolOpen: (id) => openTools.has(id),
    toolName: (id) => openTools.get(id),
    finishTool(terminal, fidelity) {
      const id = terminal.payload.toolCallId;
      if (closedTools.has(id)) {
        diagnostic('MINICODE_E_NATIVE_SECOND_TERMINAL', `tool call ${id} already ended; ${terminal.type} is ignored`);
        return;
      }
      if (!openTools.has(id)) {
        if (settled) {
          diagnostic('MINICODE_E_NATIVE_AFTER_SETTLE', `tool call ${id} ended after the run settled; ignored`);
          return;
        }
        // A terminal without a start: open it first so the reducer sees a whole call.
        const name = terminal.payload.name ?? 'unknown';
        openTools.set(id, name);
        emitCorrelated('tool.started', { toolCallId: id, name, executor: 'native' }, 'synthetic', id);
      }
      openTools.delete(id);
      closeTool(id);
      emitCorrelated(terminal.type, terminal.payload as never, fidelity, id);
    },
    requestApproval(payload, fidelity) {
      if (openApprovals.has(payload.approvalId) || settled) {
        diagnostic(
          'MINICODE_E_NATIVE_BAD_APPROVAL',
          `approval ${payload.approvalId} requested twice or after the run settled; ignored`,
        );
        return;
      }
      openApprovals.set(payload.approvalId, payload.toolCallId);
      emit('user.approval.requested', { ...payload, action: oneLine(payload.action, 200) }, fidelity, {
        correlationId: payload.toolCallId ?? payload.approvalId,
      });
    },
    settleApproval(approvalId, outcome, reason, fidelity) {
      if (!openApprovals.has(approvalId)) return;
      const toolCallId = openApprovals.get(approvalId);
      openApprovals.delete(approvalId);
      emit('user.approval.settled', { approvalId, outcome, reason }, fidelity, {
        correlationId: toolCallId ?? approvalId,
      });
    },
    approvalForTool(toolCallId) {
      for (const [approvalId, tool] of openApprovals) if (tool === toolCallId) return approvalId;
      return undefined;
    },
    completeTask(fidelity, extra = {}) {
      if (!beginSettle()) return;
      push('task.completed', { taskId, reason: 'completed', ...extra }, fidelity);
    },
    failTask(reason, error, fidelity, durationMs) {
      if (!beginSettle()) return;
      push(
        'task.failed',
        durationMs === undefined ? { taskId, reason, error } : { taskId, reason, error, durationMs },
        fidelity,
      );
    },
    cancelTask(reason, message, fidelity) {
      if (!beginSettle()) return;
      push('task.cancelled', message === undefined ? { taskId, reason } : { taskId, reason, message }, fidelity);
    },
    diagnostic,
    stderr(text) {
      stderrPieces.push(text);
      stderrLength += text.length;
      if (stderrLength > maxStderr * 2) {
        const joined = stderrPieces.join('').slice(-maxStderr);
        stderrPieces = [joined];
        stderrLength = joined.length;
      }
    },
    exit(code, signal, cleanExitCompletes) {
      if (settled) return;
      const tail = stderrTail().slice(-maxStderr);
      if (signal === null && code === 0) {
        if (cleanExitCompletes) {
          core.completeTask('synthetic');
          return;
        }
        diagnostic(
          'MINICODE_E_NATIVE_NO_TERMINAL',
          `${agent} exited 0 without its terminal record; the run is left unsettled (rebuild shows it interrupted)`,
        );
        return;
      }
      const what = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
      const limit = tail ? matchLimitWording(tail) : undefined;
      if (limit) {
        const payload: PayloadOf<'limit.reached'> = {
          kind: limit.kind,
          message: oneLine(tail.split('\n').find((l) => matchLimitWording(l)) ?? tail, 300),
        };
        if (limit.retryAfterMs !== undefined) payload.retryAfterMs = limit.retryAfterMs;
        emit('limit.reached', payload, 'inferred');
      }
      const error: ErrorInfo = {
        category: 'AGENT_ERROR',
        code: signal !== null ? 'MINICODE_E_NATIVE_KILLED' : 'MINICODE_E_NATIVE_EXIT',
        message: `${agent} ${what} before its terminal record${tail ? `: ${oneLine(tail.split('\n').slice(-3).join(' '), 300)}` : ''}`,
        recoverability: limit ? 'RETRYABLE' : 'UNKNOWN',
      };
      core.failTask('provider', error, 'synthetic');
    },
  };
  return core;
}

/**
 * Ended tool call ids a run core remembers (the latest ones), well beyond the reducer's own
 * window of settled calls: a second terminal within it is reported here as a diagnostic.
 */
export const CLOSED_TOOLS_KEPT = 4096;

/** Longest tool input kept inline, as JSON characters; default 4096. */
export const MAX_INLINE_INPUT_CHARS = 4096;

/**
 * What is left of `budget` after an upper bound of the JSON length of `value`; negative when
 * the JSON may be longer. A walk that bounds each string by 6 characters per character
 * (`\u00XX`), and gives up (negative) past the budget,
 * on anything but plain strings, numbers, booleans, null, arrays and objects, or deep nesting.
 * Most tool inputs are a few short strings: this saves a JSON.stringify per tool call.
 */
function jsonBudgetLeft(value: unknown, budget: number, depth = 0): number {
  if (typeof value === 'string') return budget - 6 * value.length - 2;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return budget - 24;
  if (depth > 8 || typeof value !== 'object') return -1;
  if (Array.isArray(value)) {
    let left = budget - 2;
    for (let i = 0; i < value.length && left >= 0; i++) left = jsonBudgetLeft(value[i], left - 1, depth + 1);
    return left;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return -1;
  let left = budget - 2;
  const record = value as Record<string, unknown>;
  for (const k in record) {
    if (left < 0) break;
    left = jsonBudgetLeft(record[k], left - 6 * k.length - 4, depth + 1);
  }
  return left;
}

/** Tool input as given, or a bounded preview when its JSON is large (a Write of a whole file). */
function boundedInput(input: unknown): unknown {
  if (jsonBudgetLeft(input, MAX_INLINE_INPUT_CHARS) >= 0) return input;
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    // A cycle or a BigInt: JSON cannot carry it.
    return { unserializable: true };
  }
  if (json === undefined || json.length <= MAX_INLINE_INPUT_CHARS) return input;
  return { truncated: true, chars: json.length, preview: excerpt(json, 1000) };
}

/** Token counts of a `usage.reported` payload. */
export type TokenUsage = PayloadOf<'usage.reported'>['usage'];

/**
 * Token counts from `[field, raw value]` pairs, in the order given; a raw value that is not a
 * non-negative integer is left out (each format names its fields differently, the rule is one).
 */
export function tokenUsage(pairs: ReadonlyArray<readonly [keyof TokenUsage, unknown]>): TokenUsage {
  const usage: TokenUsage = {};
  for (const [key, raw] of pairs) {
    const n = count(raw);
    if (n !== undefined) usage[key] = n;
  }
  return usage;
}

/** Emit an inferred `limit.reached` when the message carries limit wording; nothing otherwise. */
export function reportLimitWording(core: RunCore, message: string): void {
  const limit = matchLimitWording(message);
  if (!limit) return;
  core.emit(
    'limit.reached',
    definedOnly({ kind: limit.kind, message: oneLine(message, 300), retryAfterMs: limit.retryAfterMs }),
    'inferred',
  );
}
