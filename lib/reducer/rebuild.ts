/**
 * Rebuild: the state of a session from its durable events alone, told truthfully after a
 * crash. For a session that ended (`session.ended`) or whose tasks all settled, the result
 * equals live reduction (modulo the transient `live` field). For a run that stopped before its
 * terminal event, `settleInterrupted` reports `interrupted` (never failed or completed), marks
 * open tools `incomplete` and force-closes open approvals as cancelled(parent-ended). Deltas are
 * not durable, so a stream that stopped after deltas rebuilds without an invented final message.
 */
import type { OutputEvent } from '../events/index.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import { reduceOwned } from './reduce.js';
import { initialState, isToolSettled, type ReducerState } from './state.js';
import { closeOpenTools, forceCloseApprovals } from './tools.js';
import { getKey, putKey, StateWriter } from './writer.js';

/** Options of {@link rebuild} and {@link createRebuilder}. */
export interface RebuildOptions {
  /** Session to rebuild; default: the first event's sessionId. Events of other sessions are anomalies. */
  sessionId?: string;
}

/** An incremental rebuild: feed durable events in order (e.g. from a store cursor), then finish. */
export interface Rebuilder {
  push(event: OutputEvent): void;
  /** The settled state; the rebuilder must not be used afterwards. */
  finish(): ReducerState;
  /**
   * The state without settling, for a session whose writer is still running (it is not
   * interrupted, only unfinished); the rebuilder must not be used afterwards.
   */
  unsettled(): ReducerState;
}

/** Create an incremental rebuilder. Live events pushed to it are skipped. */
export function createRebuilder(options: RebuildOptions = {}): Rebuilder {
  let state: ReducerState | undefined = options.sessionId === undefined ? undefined : initialState(options.sessionId);
  return {
    push(event) {
      if (!EVENT_REGISTRY[event.type]?.durable) return;
      state ??= initialState(event.sessionId);
      reduceOwned(state, event);
    },
    finish() {
      const s = state ?? initialState('unknown');
      settleWith(new StateWriter(s, true));
      return s;
    },
    unsettled() {
      return state ?? initialState(options.sessionId ?? 'unknown');
    },
  };
}

/** Rebuild a session's state from its durable events (live events in the input are ignored). */
export function rebuild(events: Iterable<OutputEvent>, options: RebuildOptions = {}): ReducerState {
  const r = createRebuilder(options);
  for (const e of events) r.push(e);
  return r.finish();
}

/**
 * Settle a run that has no terminal evidence as `interrupted` (pure; the input is untouched).
 * A run already decided (failed, cancelled, completed, partial) keeps its outcome: interrupted,
 * failed and cancelled never replace each other (I-A12). Open tasks become interrupted, open
 * tools incomplete, open approvals cancelled(parent-ended) (I-A08), and the live field empties.
 */
export function settleInterrupted(state: ReducerState): ReducerState {
  const w = new StateWriter(state, false);
  settleWith(w);
  return w.s;
}

function settleWith(w: StateWriter): void {
  const s = w.s;
  if (s.openTasks.length > 0) {
    for (const id of s.openTasks) {
      const task = getKey(s.tasks, id);
      if (task) putKey(w.record('tasks'), id, { ...task, status: 'interrupted' });
    }
    w.s.openTasks = [];
  }
  if (s.run.outcome === 'running') w.s.run = { outcome: 'interrupted', source: 'rebuild' };
  if (s.approvalOrder.some((id) => getKey(s.approvals, id)?.status === 'requested')) forceCloseApprovals(w, undefined);
  if (s.toolOrder.some((id) => !isToolSettled(getKey(s.tools, id)?.status ?? 'completed')))
    closeOpenTools(w, undefined);
  w.s.live = { messages: {}, reasoning: {}, toolProgress: {} };
}
