import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { OutputEvent } from '../../lib/events/index.js';
import {
  initialState,
  rebuild,
  reduce,
  reduceOwned,
  settleInterrupted,
  type ReducerState,
} from '../../lib/reducer/index.js';
import { deepFreeze, durableJson, eventsOf, runPlan } from './arbitrary.js';

// Seeded so a failure reproduces; fast-check prints the counterexample plan.
const RUNS = { seed: 20250101, numRuns: 300 };

function fold(events: OutputEvent[], freeze = false): ReducerState {
  let s = initialState(events[0]?.sessionId ?? 'sess-prop');
  for (const e of events) s = reduce(freeze ? deepFreeze(s) : s, e);
  return s;
}

const TRIO = new Set(['failed', 'cancelled', 'interrupted']);

describe('reducer properties', () => {
  it('is pure: the same events give the same state, byte for byte, and inputs are never mutated', () => {
    fc.assert(
      fc.property(runPlan, (plan) => {
        const events = eventsOf(plan);
        const before = JSON.stringify(events);
        // Frozen states throw on any mutation (ESM is strict mode).
        const a = fold(events, true);
        const b = fold(events);
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
        expect(JSON.stringify(events)).toBe(before);
      }),
      RUNS,
    );
  });

  it('gives the same state through the owned fast path as through the pure reducer', () => {
    fc.assert(
      fc.property(runPlan, (plan) => {
        const events = eventsOf(plan);
        const owned = initialState('sess-prop');
        for (const e of events) reduceOwned(owned, e);
        expect(JSON.stringify(owned)).toBe(JSON.stringify(fold(events)));
      }),
      RUNS,
    );
  });

  it('keeps the first terminal of every tool and records later ones as anomalies', () => {
    fc.assert(
      fc.property(runPlan, (plan) => {
        const s = fold(eventsOf(plan));
        plan.tools.forEach((t, i) => {
          const tool = s.tools[`call_${i}`];
          const first = t.terminals[0];
          if (!first) {
            if (t.withStart) expect(['started', 'running', 'incomplete']).toContain(tool?.status);
            return;
          }
          if (t.withStart) expect(tool?.status === first || tool?.status === 'incomplete').toBe(true);
          else expect(tool?.status).toBe('incomplete');
          if (t.withStart && plan.sessionEnd === 'none') expect(tool?.status).toBe(first);
          const seconds = s.anomalies.filter((a) => a.kind === 'second-terminal' && a.id === `call_${i}`).length;
          expect(seconds).toBe(t.terminals.length - 1);
        });
      }),
      RUNS,
    );
  });

  it('leaves no approval requested after the task settles, the session ends, or a rebuild', () => {
    fc.assert(
      fc.property(runPlan, (plan) => {
        const events = eventsOf(plan);
        const live = fold(events);
        const settled = plan.taskTerminals.length > 0 || plan.sessionEnd !== 'none';
        const requested = (s: ReducerState) => Object.values(s.approvals).filter((a) => a.status === 'requested');
        if (settled) expect(requested(live)).toEqual([]);
        expect(requested(rebuild(events))).toEqual([]);
        for (const a of Object.values(rebuild(events).approvals)) {
          if (plan.tools[Number(a.approvalId.slice(3))]?.approval === 'open') {
            expect(a).toMatchObject({ outcome: 'cancelled', reason: 'parent-ended' });
          }
        }
      }),
      RUNS,
    );
  });

  it('never lets interrupted, failed and cancelled replace each other, in any prefix or rebuild', () => {
    fc.assert(
      fc.property(runPlan, (plan) => {
        const events = eventsOf(plan);
        let s = initialState('sess-prop');
        let taskDecided: string | undefined;
        let runDecided: string | undefined;
        for (const e of events) {
          s = reduce(s, e);
          const task = s.tasks['t1'];
          if (taskDecided) expect(task?.status).toBe(taskDecided);
          else if (task && TRIO.has(task.status)) taskDecided = task.status;
          // The run outcome too: once in the trio it stays (the generator starts no second root task).
          if (runDecided) expect(s.run.outcome).toBe(runDecided);
          else if (TRIO.has(s.run.outcome)) runDecided = s.run.outcome;
          if (TRIO.has(s.run.outcome)) expect(settleInterrupted(s).run.outcome).toBe(s.run.outcome);
        }
        const r = rebuild(events);
        if (runDecided) expect(r.run.outcome).toBe(runDecided);
        if (taskDecided) expect(r.tasks['t1']?.status).toBe(taskDecided);
      }),
      RUNS,
    );
  });

  it('rebuilds from durable events the same state as live reduction for every completed run', () => {
    fc.assert(
      fc.property(
        runPlan.filter((p) => p.sessionEnd !== 'none'),
        (plan) => {
          const events = eventsOf(plan);
          const durable = events.filter((e) => !['assistant.message.delta', 'tool.progress'].includes(e.type));
          expect(durableJson(rebuild(durable))).toBe(durableJson(fold(events)));
        },
      ),
      RUNS,
    );
  });

  it('reports interrupted for every prefix that stops before a terminal event, and never invents a message', () => {
    fc.assert(
      fc.property(runPlan, fc.nat(1000), (plan, cut) => {
        const events = eventsOf(plan);
        const firstTerminal = events.findIndex(
          (e) => (e.type.startsWith('task.') && e.type !== 'task.started') || e.type === 'session.ended',
        );
        const end = firstTerminal < 0 ? events.length : firstTerminal;
        const prefix = events.slice(0, 1 + (cut % end));
        const r = rebuild(prefix);
        expect(r.run.outcome).toBe('interrupted');
        for (const t of Object.values(r.tools))
          expect(['completed', 'failed', 'denied', 'cancelled', 'incomplete']).toContain(t.status);
        const finals = prefix.filter(
          (e) => e.type === 'assistant.message.completed' || e.type === 'assistant.message.truncated',
        );
        expect(r.messages.length).toBe(finals.length);
      }),
      RUNS,
    );
  });
});
