/**
 * Settled tools, approvals and tasks leave memory once they are no longer among the latest
 * {@link KEEP_SETTLED}: their final status is counted in `state.retired` and their detail stays
 * in the events. A settled item never changes status again (first terminal wins, I-A03), so
 * counting it when it leaves gives the same totals as counting it at the end. Open items always
 * stay. Eviction runs when twice the limit is held, in one pass, so its cost is amortised to a
 * constant per event; being a function of the events alone, it keeps the reducer pure and live
 * reduction equal to rebuild.
 */
import { isTaskSettled, isToolSettled, KEEP_SETTLED, type ReducerState, type RetiredState } from './state.js';
import { deleteKey, getKey, putKey, type StateWriter } from './writer.js';

/** Retire the oldest settled tools, approvals and tasks when too many are held. */
export function retireSettled(w: StateWriter): void {
  if (w.s.toolOrder.length > 2 * KEEP_SETTLED) retireTools(w);
  if (w.s.approvalOrder.length > 2 * KEEP_SETTLED) retireApprovals(w);
  if (w.s.taskOrder.length > 2 * KEEP_SETTLED) retireTasks(w);
}

function bump<K extends string>(record: Partial<Record<K, number>>, key: K): void {
  putKey(record as Record<string, number>, key, (getKey(record as Record<string, number>, key) ?? 0) + 1);
}

function retiredCopy(s: ReducerState): RetiredState {
  const r = s.retired;
  return {
    tools: { total: r.tools.total, byStatus: { ...r.tools.byStatus }, reported: { ...r.tools.reported } },
    approvals: { total: r.approvals.total, byOutcome: { ...r.approvals.byOutcome } },
    tasks: r.tasks,
  };
}

/** Split an order into the ids that stay and the oldest settled ones that go, down to KEEP_SETTLED. */
function split(order: readonly string[], settled: (id: string) => boolean): { kept: string[]; gone: string[] } {
  let excess = order.length - KEEP_SETTLED;
  const kept: string[] = [];
  const gone: string[] = [];
  for (const id of order) {
    if (excess > 0 && settled(id)) {
      gone.push(id);
      excess--;
    } else kept.push(id);
  }
  return { kept, gone };
}

function retireTools(w: StateWriter): void {
  const { kept, gone } = split(w.s.toolOrder, (id) => isToolSettled(getKey(w.s.tools, id)?.status ?? 'completed'));
  if (gone.length === 0) return;
  const retired = retiredCopy(w.s);
  const tools = w.record('tools');
  for (const id of gone) {
    const t = getKey(tools, id);
    if (t) {
      retired.tools.total += 1;
      bump(retired.tools.byStatus, t.status);
      if (t.status === 'incomplete' && t.reportedStatus !== undefined) bump(retired.tools.reported, t.reportedStatus);
    }
    deleteKey(tools, id);
  }
  w.s.retired = retired;
  w.s.toolOrder = kept;
}

function retireApprovals(w: StateWriter): void {
  const { kept, gone } = split(w.s.approvalOrder, (id) => getKey(w.s.approvals, id)?.status !== 'requested');
  if (gone.length === 0) return;
  const retired = retiredCopy(w.s);
  const approvals = w.record('approvals');
  for (const id of gone) {
    const a = getKey(approvals, id);
    if (a) {
      retired.approvals.total += 1;
      bump(retired.approvals.byOutcome, a.outcome ?? a.status);
    }
    deleteKey(approvals, id);
  }
  w.s.retired = retired;
  w.s.approvalOrder = kept;
}

function retireTasks(w: StateWriter): void {
  const { kept, gone } = split(w.s.taskOrder, (id) => isTaskSettled(getKey(w.s.tasks, id)?.status ?? 'completed'));
  if (gone.length === 0) return;
  const retired = retiredCopy(w.s);
  const tasks = w.record('tasks');
  for (const id of gone) {
    if (getKey(tasks, id)) retired.tasks += 1;
    deleteKey(tasks, id);
  }
  w.s.retired = retired;
  w.s.taskOrder = kept;
}
