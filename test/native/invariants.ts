import { payloadSchemas, type EventDraft } from '../../lib/events/index.js';

const TOOL_TERMINALS = new Set(['tool.completed', 'tool.failed', 'tool.denied', 'tool.cancelled']);
const TASK_TERMINALS = new Set(['task.completed', 'task.failed', 'task.cancelled']);

/**
 * The state machines the reducer relies on, checked directly on decoded drafts. Returns a list
 * of violations (empty when the stream is well formed):
 * - every payload matches its zod schema and every draft carries a fidelity;
 * - the first non-diagnostic event is `task.started`; tasks run one after another, each settles
 *   at most once (a stream may hold several runs, e.g. a resumed Codex thread);
 * - each tool call starts once, has at most one terminal, and exactly one once its task settled;
 *   its events carry `correlationId` = toolCallId;
 * - approvals settle at most once, and none is left open when the task settled.
 */
export function violations(events: EventDraft[]): string[] {
  const problems: string[] = [];
  const started = new Set<string>();
  const ended = new Map<string, number>();
  const approvals = new Map<string, number>();
  let taskStarts = 0;
  let taskEnds = 0;
  let first = true;
  for (const [i, e] of events.entries()) {
    const parsed = payloadSchemas[e.type].safeParse(e.payload);
    if (!parsed.success) problems.push(`#${i} ${e.type}: payload invalid: ${parsed.error.message.slice(0, 200)}`);
    if (e.fidelity === undefined) problems.push(`#${i} ${e.type}: no fidelity`);
    if (e.type !== 'diagnostic.raised' && first) {
      if (e.type !== 'task.started') problems.push(`#${i}: first event is ${e.type}, not task.started`);
      first = false;
    }
    if (e.type === 'task.started') {
      if (taskStarts > taskEnds) problems.push(`#${i}: task.started while the previous task is still running`);
      taskStarts++;
    }
    if (TASK_TERMINALS.has(e.type)) {
      taskEnds++;
      for (const id of started)
        if ((ended.get(id) ?? 0) === 0) problems.push(`tool ${id} left open when its task settled`);
      for (const [id, n] of approvals) if (n === 0) problems.push(`approval ${id} left open when its task settled`);
    }
    if (e.type === 'tool.started') {
      const id = e.payload.toolCallId;
      if (started.has(id)) problems.push(`tool ${id} started twice`);
      started.add(id);
      if (e.correlationId !== id) problems.push(`tool ${id} start without correlationId`);
      if (taskEnds >= taskStarts) problems.push(`tool ${id} started while no task runs`);
    }
    if (TOOL_TERMINALS.has(e.type)) {
      const id = (e.payload as { toolCallId: string }).toolCallId;
      if (!started.has(id)) problems.push(`tool ${id} ended before it started`);
      ended.set(id, (ended.get(id) ?? 0) + 1);
      if (e.correlationId !== id) problems.push(`tool ${id} terminal without correlationId`);
    }
    if (e.type === 'user.approval.requested') approvals.set(e.payload.approvalId, 0);
    if (e.type === 'user.approval.settled') {
      const n = approvals.get(e.payload.approvalId);
      if (n === undefined) problems.push(`approval ${e.payload.approvalId} settled without a request`);
      else approvals.set(e.payload.approvalId, n + 1);
    }
  }
  if (taskStarts === 0 && events.some((e) => e.type !== 'diagnostic.raised')) problems.push('no task.started');
  if (taskEnds > taskStarts) problems.push(`${taskEnds} task terminals for ${taskStarts} tasks`);
  for (const id of started) {
    const n = ended.get(id) ?? 0;
    if (n > 1) problems.push(`tool ${id} has ${n} terminals`);
  }
  for (const [id, n] of approvals) if (n > 1) problems.push(`approval ${id} settled ${n} times`);
  return problems;
}
