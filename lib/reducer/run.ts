/**
 * Session, task and run-outcome rules.
 *
 * The run outcome is decided by the strongest evidence present, in this order:
 *  1. Tasks (`task.*`). A root task (no envelope `parentId`) starting sets the run `running`;
 *     when no root task is open any more, the run takes the outcome of the root task that
 *     settled last (completed | failed | cancelled), with its reason and error. A chat session
 *     with several prompts therefore reports its latest prompt. Child tasks never decide it.
 *     A root task starting after `session.ended` reopens the session (a resumed chat).
 *  2. `session.ended`, when no task decided: its outcome and reason. When a task did decide and
 *     the session says otherwise, the task's word stands and an `outcome-conflict` anomaly is
 *     recorded. Tasks, approvals and tools still open at `session.ended` are force-closed
 *     (tasks cancelled(parent-ended), approvals cancelled(parent-ended), tools incomplete).
 *  3. Responses (`model.response.*`), for an ingested provider stream with no task events:
 *     a response starting sets `running`; its completion decides from its outcome:
 *     completed -> completed, truncated -> partial, error -> failed. The last response wins
 *     (each response is one step of the same run).
 * `interrupted` is never decided here: only `settleInterrupted` (rebuild) sets it. Once a task
 * is failed, cancelled or interrupted no later terminal changes it (I-A12).
 */
import type { OutputEventOf, RunOutcome } from '../events/index.js';
import { copyDefined, isTaskSettled, type SessionInfo, type TaskState } from './state.js';
import { between, closeOpenTools, forceCloseApprovals } from './tools.js';
import { getKey, putKey, type StateWriter } from './writer.js';

export function onSessionStarted(w: StateWriter, e: OutputEventOf<'session.started'>): void {
  if (w.s.session.startedAt !== undefined) {
    w.anomaly({ kind: 'duplicate-start', seq: e.seq, type: e.type, id: e.sessionId });
    return;
  }
  const p = e.payload;
  const session = { ...w.s.session, origin: p.origin, startedAt: e.timestamp };
  copyDefined(session, p, [
    'cwd',
    'provider',
    'model',
    'agent',
    'format',
    'promptDigest',
    'version',
    'parentSessionId',
    'parentToolCallId',
  ]);
  w.s.session = session;
}

export function onAgentIdentified(w: StateWriter, e: OutputEventOf<'agent.session.identified'>): void {
  const p = e.payload;
  const session = { ...w.s.session, agent: w.s.session.agent ?? p.agent, nativeSessionId: p.nativeSessionId };
  if (p.model !== undefined) session.model ??= p.model;
  if (p.cwd !== undefined) session.cwd ??= p.cwd;
  w.s.session = session;
}

/**
 * A handoff makes `to` the session's current agent (the summary names the agent that finished),
 * appends it to the agents that ran, and sets the run running again until `to`'s task settles.
 */
export function onAgentHandoff(w: StateWriter, e: OutputEventOf<'agent.handoff'>): void {
  const before = withAgent(w.s.session, w.s.session.agent ?? e.payload.from);
  w.s.session = withAgent({ ...before, agent: e.payload.to }, e.payload.to);
  // The work goes on with `to`: a session that stops here was interrupted, not failed.
  w.s.run = { outcome: 'running', source: 'task' };
}

function withAgent(session: SessionInfo, agent: string | undefined): SessionInfo {
  if (agent === undefined) return session;
  const agents = session.agents ?? [];
  return agents[agents.length - 1] === agent ? session : { ...session, agents: [...agents, agent] };
}

export function onSessionEnded(w: StateWriter, e: OutputEventOf<'session.ended'>): void {
  if (w.s.session.endedAt !== undefined) {
    w.anomaly({ kind: 'second-terminal', seq: e.seq, type: e.type, id: e.sessionId });
    return;
  }
  const p = e.payload;
  const session = { ...w.s.session, endedAt: e.timestamp };
  const duration = p.durationMs ?? between(session.startedAt, e.timestamp);
  if (duration !== undefined) session.durationMs = duration;
  w.s.session = session;

  for (const id of w.s.openTasks) {
    const task = getKey(w.s.tasks, id);
    if (!task) continue;
    w.anomaly({ kind: 'open-at-session-end', seq: e.seq, type: e.type, id });
    putKey(w.record('tasks'), id, closeTask(w, task, 'cancelled', e.timestamp, { reason: 'parent-ended' }));
  }
  if (w.s.openTasks.length > 0) w.s.openTasks = [];
  forceCloseApprovals(w, e.timestamp);
  closeOpenTools(w, e.timestamp, e);

  const run = w.s.run;
  if (run.source === 'task' && run.outcome !== 'running') {
    if (run.outcome !== p.outcome) {
      w.anomaly({
        kind: 'outcome-conflict',
        seq: e.seq,
        type: e.type,
        detail: `task said ${run.outcome}, session said ${p.outcome}`,
      });
    }
    return;
  }
  w.s.run =
    p.reason === undefined
      ? { outcome: p.outcome, source: 'session' }
      : { outcome: p.outcome, source: 'session', reason: p.reason };
}

export function onTaskStarted(w: StateWriter, e: OutputEventOf<'task.started'>): void {
  const id = e.payload.taskId;
  const existing = getKey(w.s.tasks, id);
  if (existing) {
    const kind = isTaskSettled(existing.status) ? 'start-after-terminal' : 'duplicate-start';
    w.anomaly({ kind, seq: e.seq, type: e.type, id });
    if (existing.startedAt === undefined) putKey(w.record('tasks'), id, { ...existing, startedAt: e.timestamp });
    return;
  }
  const root = e.parentId === undefined;
  if (root && w.s.session.endedAt !== undefined) reopenSession(w);
  const task: TaskState = { taskId: id, status: 'started', root, startedAt: e.timestamp };
  if (!root) task.parentId = e.parentId as string;
  putKey(w.record('tasks'), id, task);
  w.list('taskOrder').push(id);
  w.list('openTasks').push(id);
  if (root) w.s.run = { outcome: 'running', source: 'task' };
}

/**
 * A root task after `session.ended` means the session was resumed (`minicode --resume`): it is
 * open again until its next `session.ended`, and its outcome follows the new task.
 */
function reopenSession(w: StateWriter): void {
  const { endedAt: _ended, durationMs: _duration, ...open } = w.s.session;
  w.s.session = open;
}

type TaskTerminal = OutputEventOf<'task.completed' | 'task.failed' | 'task.cancelled'>;

export function onTaskTerminal(w: StateWriter, e: TaskTerminal): void {
  const id = e.payload.taskId;
  const existing = getKey(w.s.tasks, id);
  if (existing && isTaskSettled(existing.status)) {
    w.anomaly({ kind: 'second-terminal', seq: e.seq, type: e.type, id, detail: `kept ${existing.status}` });
    return;
  }
  const status = e.type === 'task.completed' ? 'completed' : e.type === 'task.failed' ? 'failed' : 'cancelled';
  let base: TaskState;
  if (!existing) {
    w.anomaly({ kind: 'terminal-without-start', seq: e.seq, type: e.type, id });
    base = { taskId: id, status, root: e.parentId === undefined, reconstructed: true };
    if (e.parentId !== undefined) base.parentId = e.parentId;
    w.list('taskOrder').push(id);
  } else {
    base = existing;
    const open = w.list('openTasks');
    const at = open.indexOf(id);
    if (at >= 0) open.splice(at, 1);
  }
  const extra: Partial<TaskState> = { reason: e.payload.reason };
  if (e.payload.durationMs !== undefined) extra.durationMs = e.payload.durationMs;
  if (e.type === 'task.failed') extra.error = e.payload.error;
  if (e.type === 'task.cancelled' && e.payload.message !== undefined) extra.message = e.payload.message;
  if (e.type === 'task.completed' && e.payload.steps !== undefined) extra.steps = e.payload.steps;
  const task = closeTask(w, base, status, e.timestamp, extra);
  putKey(w.record('tasks'), id, task);
  forceCloseApprovals(w, e.timestamp, id);
  if (task.root) decideFromTasks(w, task);
}

/** The task settled; an owned state's task is edited in place (same keys, same order as the copy). */
function closeTask(
  w: StateWriter,
  task: TaskState,
  status: TaskState['status'],
  at: string,
  extra: Partial<TaskState>,
): TaskState {
  const startedAt = task.startedAt;
  const closed: TaskState = w.owned ? Object.assign(task, extra) : { ...task, ...extra };
  closed.status = status;
  closed.endedAt = at;
  const duration = extra.durationMs ?? between(startedAt, at);
  if (duration !== undefined) closed.durationMs = duration;
  return closed;
}

function decideFromTasks(w: StateWriter, settled: TaskState): void {
  for (const id of w.s.openTasks) if (getKey(w.s.tasks, id)?.root) return;
  if (w.s.run.source === 'session') return; // the session already ended and closed every task
  const run: typeof w.s.run = { outcome: settled.status as RunOutcome, source: 'task' };
  if (settled.reason !== undefined) run.reason = settled.reason;
  if (settled.error !== undefined) run.error = settled.error;
  w.s.run = run;
}

/** Any durable activity moves a started or partial task to active (task state machine). */
export function activateTasks(w: StateWriter): void {
  for (const id of w.s.openTasks) {
    const task = getKey(w.s.tasks, id);
    if (task && (task.status === 'started' || task.status === 'partial')) {
      if (w.owned) task.status = 'active';
      else putKey(w.record('tasks'), id, { ...task, status: 'active' });
    }
  }
}

/** A truncation moves active tasks to partial (they may still go active again or settle). */
export function partialTasks(w: StateWriter): void {
  for (const id of w.s.openTasks) {
    const task = getKey(w.s.tasks, id);
    if (task && task.status === 'active') {
      if (w.owned) task.status = 'partial';
      else putKey(w.record('tasks'), id, { ...task, status: 'partial' });
    }
  }
}

export function onResponseStarted(w: StateWriter, e: OutputEventOf<'model.response.started'>): void {
  w.s.responses = { ...w.s.responses, started: w.s.responses.started + 1 };
  const p = e.payload;
  if (
    (p.provider !== undefined && w.s.session.provider === undefined) ||
    (p.model !== undefined && w.s.session.model === undefined)
  ) {
    const session = { ...w.s.session };
    if (p.provider !== undefined) session.provider ??= p.provider;
    if (p.model !== undefined) session.model ??= p.model;
    w.s.session = session;
  }
  if (w.s.run.source === 'none' || w.s.run.source === 'response') w.s.run = { outcome: 'running', source: 'response' };
}

export function onResponseCompleted(w: StateWriter, e: OutputEventOf<'model.response.completed'>): void {
  const p = e.payload;
  const r = w.s.responses;
  w.s.responses = {
    ...r,
    completed: r.completed + (p.outcome === 'completed' ? 1 : 0),
    truncated: r.truncated + (p.outcome === 'truncated' ? 1 : 0),
    errored: r.errored + (p.outcome === 'error' ? 1 : 0),
  };
  if (p.outcome === 'truncated') partialTasks(w);
  if (w.s.run.source !== 'none' && w.s.run.source !== 'response') return;
  const outcome: RunOutcome =
    p.outcome === 'completed' ? 'completed' : p.outcome === 'truncated' ? 'partial' : 'failed';
  const run: typeof w.s.run = { outcome, source: 'response' };
  if (p.outcome === 'completed') run.reason = 'completed';
  if (p.outcome === 'error') run.reason = 'provider';
  if (p.stopReason !== undefined) run.stopReason = p.stopReason;
  w.s.run = run;
}
