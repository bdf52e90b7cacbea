import { settleInterrupted, summarize, type ReducerState, type ToolState } from '../reducer/index.js';
import { displayText, oneLine } from './display-text.js';
import type { DisplayStatus } from './status.js';
import type { ApprovalView, RunView, StateView, ToolCounts, ToolView } from './view.js';
import { definedOnly } from '../defined-only.js';

/**
 * The projection's read access to the reducer state (`lib/reducer/`). Everything a renderer
 * prints about a tool or the run comes through here, sanitised, so every renderer agrees.
 *
 * Two fields the reducer keeps differently from what people are shown:
 * - a tool `incomplete` with a `reportedStatus` (a terminal without a start) displays the
 *   status it reported, flagged `incomplete`; an `incomplete` without one (still open when the
 *   run stopped) displays `interrupted`;
 * - a run still `running` at the summary is settled with the reducer's `settleInterrupted`
 *   (pure) for display, so a summary never claims a run that has stopped is still going.
 */

function epoch(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The status a person sees for a reducer tool status. */
export function toolDisplayStatus(tool: ToolState): DisplayStatus {
  switch (tool.status) {
    case 'started':
    case 'running':
      return 'running';
    case 'incomplete':
      return tool.reportedStatus ?? 'interrupted';
    default:
      return tool.status;
  }
}

function toolView(state: ReducerState, tool: ToolState): ToolView {
  const view: { -readonly [K in keyof ToolView]: ToolView[K] } = {
    toolCallId: oneLine(tool.toolCallId),
    name: oneLine(tool.name ?? 'tool'),
    status: toolDisplayStatus(tool),
  };
  if (tool.title !== undefined) view.title = oneLine(tool.title);
  if (tool.durationMs !== undefined) view.durationMs = tool.durationMs;
  const started = epoch(tool.startedAt);
  if (started !== undefined) view.startedAt = started;
  if (tool.cause !== undefined) view.cause = tool.cause;
  if (tool.message !== undefined) view.message = oneLine(tool.message);
  if (tool.reason !== undefined) view.reason = oneLine(tool.reason);
  if (tool.summary !== undefined) view.summary = oneLine(tool.summary);
  if (tool.receipt?.exitCode !== undefined) view.exitCode = tool.receipt.exitCode;
  if (tool.output !== undefined) view.output = displayText(tool.output);
  const progress = Object.prototype.hasOwnProperty.call(state.live.toolProgress, tool.toolCallId)
    ? state.live.toolProgress[tool.toolCallId]
    : undefined;
  if (progress !== undefined)
    view.progress = oneLine(
      progress
        .split('\n')
        .filter((l) => l.trim() !== '')
        .pop() ?? '',
    );
  if (tool.status === 'incomplete' && tool.reportedStatus !== undefined) view.incomplete = true;
  return view;
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Error category and code of a cancelled run by its reason (the agent loop's table; codes as lib/control/termination.ts). */
const CANCELLED_ERROR: Readonly<Record<string, { category: string; code: string }>> = {
  aborted: { category: 'USER_ERROR', code: 'MINICODE_E_ABORTED' },
  budget_exceeded: { category: 'USER_ERROR', code: 'MINICODE_E_BUDGET_EXCEEDED' },
  timeout: { category: 'AGENT_ERROR', code: 'MINICODE_E_TIMEOUT' },
};

/** Display counts of the tools that left the state's memory, by the rule of {@link toolDisplayStatus}. */
function retiredToolCounts(state: ReducerState): ToolCounts {
  const { byStatus, reported } = state.retired.tools;
  const counts: ToolCounts = { completed: 0, failed: 0, denied: 0, cancelled: 0, interrupted: 0 };
  for (const status of ['completed', 'failed', 'denied', 'cancelled'] as const)
    counts[status] = (byStatus[status] ?? 0) + (reported[status] ?? 0);
  const reportedTotal = Object.values(reported).reduce((a, b) => a + b, 0);
  counts.interrupted = (byStatus.incomplete ?? 0) - reportedTotal;
  return counts;
}

function runView(state: ReducerState): RunView {
  const settled = state.run.outcome === 'running' ? settleInterrupted(state) : state;
  const summary = summarize(settled);
  const tools = retiredToolCounts(settled);
  for (const id of settled.toolOrder) {
    const tool = own(settled.tools, id);
    if (!tool) continue;
    const status = toolDisplayStatus(tool);
    if (status in tools) tools[status as keyof ToolCounts] += 1;
    else tools.interrupted += 1; // still running in a settled run: cannot happen after settleInterrupted
  }
  const outcome = settled.run.outcome === 'running' ? 'interrupted' : settled.run.outcome;
  const view: { -readonly [K in keyof RunView]: RunView[K] } = {
    sessionId: oneLine(state.sessionId),
    outcome,
    usage: { ...(summary.usage ?? {}) },
    tools,
    filesChanged: summary.filesChanged.map((f) => oneLine(f.path, 1000)),
    hasResult: false,
  };
  if (summary.reason !== undefined) view.reason = summary.reason;
  const agents = state.session.agents ?? (state.session.agent === undefined ? undefined : [state.session.agent]);
  if (agents !== undefined) view.agents = agents.map((agent) => oneLine(agent));
  if (summary.durationMs !== undefined) view.durationMs = summary.durationMs;
  if (summary.costUsd !== undefined) view.costUsd = summary.costUsd;
  const result = settled.submitted;
  if (result !== undefined) {
    view.hasResult = true;
    view.result = result.result;
  }
  const error = settled.run.error;
  if (error !== undefined) {
    view.error = definedOnly({
      category: error.category,
      code: error.code !== undefined ? oneLine(error.code) : undefined,
      message: oneLine(error.message, 2000),
      action: error.action !== undefined ? oneLine(error.action, 2000) : undefined,
    });
  } else if (outcome === 'cancelled') {
    // A cancelled run carries no error object; its root task says why (timeout, budget, abort).
    const root = [...settled.taskOrder]
      .reverse()
      .map((id) => own(settled.tasks, id))
      .find((t) => t?.root === true && t.status === 'cancelled');
    if (root?.message !== undefined)
      view.error = {
        ...(own(CANCELLED_ERROR, root.reason ?? '') ?? { category: 'AGENT_ERROR' }),
        message: oneLine(root.message, 2000),
      };
  }
  return view;
}

/** The {@link StateView} of a reducer state. Cheap: it reads lazily, per call. */
export function viewOf(state: ReducerState): StateView {
  return {
    tool(toolCallId) {
      const tool = own(state.tools, toolCallId);
      return tool === undefined ? undefined : toolView(state, tool);
    },
    runningTools() {
      const out: ToolView[] = [];
      for (const id of state.toolOrder) {
        const tool = own(state.tools, id);
        if (tool && (tool.status === 'started' || tool.status === 'running')) out.push(toolView(state, tool));
      }
      return out;
    },
    openApprovals() {
      const out: ApprovalView[] = [];
      for (const id of state.approvalOrder) {
        const a = own(state.approvals, id);
        if (!a || a.status !== 'requested') continue;
        out.push(
          definedOnly({
            approvalId: oneLine(a.approvalId),
            toolCallId: a.toolCallId !== undefined ? oneLine(a.toolCallId) : undefined,
            toolName: a.toolName !== undefined ? oneLine(a.toolName) : undefined,
            action: oneLine(a.action ?? ''),
            // The reducer keeps no options; the projection fills them from the request event.
            options: [],
          }),
        );
      }
      return out;
    },
    run() {
      return runView(state);
    },
    liveMessages() {
      return Object.entries(state.live.messages).map(([messageId, text]) => ({
        messageId: oneLine(messageId),
        text: displayText(text),
      }));
    },
    liveReasoning() {
      return Object.entries(state.live.reasoning).map(([reasoningId, text]) => ({
        reasoningId: oneLine(reasoningId),
        text: displayText(text),
      }));
    },
    taskProgress() {
      return state.live.taskProgress === undefined ? undefined : oneLine(state.live.taskProgress);
    },
    activeTurn() {
      for (let i = state.openTasks.length - 1; i >= 0; i--) {
        const task = own(state.tasks, state.openTasks[i] ?? '');
        if (!task?.root) continue;
        const startedAt = epoch(task.startedAt);
        return startedAt === undefined ? {} : { startedAt };
      }
      return undefined;
    },
    settledTools() {
      const settled = state.run.outcome === 'running' ? settleInterrupted(state) : state;
      return settled.toolOrder.flatMap((id) => {
        const tool = own(settled.tools, id);
        return tool ? [toolView(settled, tool)] : [];
      });
    },
  };
}
