import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import {
  initialState,
  KEEP_RECENT,
  KEEP_SETTLED,
  rebuild,
  reduce,
  reduceOwned,
  summarize,
  type ReducerState,
} from '../../lib/reducer/index.js';
import { viewOf } from '../../lib/render/index.js';

/**
 * A long session of `steps` steps: each a message, a tool call with one of five endings (one
 * a terminal without a start, every seventh followed by a second terminal), every tenth an
 * approval, every twentieth a test run, a finding and a file change (from five paths), a
 * submit_result early and final-text results later, and a task per 100 steps.
 */
function longSession(steps: number): OutputEvent[] {
  let t = 0;
  const env = createEnveloper({ sessionId: 's-long', clock: () => Date.UTC(2025, 0, 1) + (t += 10) });
  const d: EventDraft[] = [draft('session.started', { origin: 'exec' })];
  for (let i = 0; i < steps; i++) {
    if (i % 100 === 0) d.push(draft('task.started', { taskId: `task_${i / 100}` }));
    d.push(draft('assistant.message.completed', { messageId: `m${i}`, text: `step ${i}` }));
    const id = `call_${i}`;
    const ending = i % 5;
    if (ending !== 4) d.push(draft('tool.started', { toolCallId: id, name: 'bash' }));
    if (i % 10 === 0) {
      d.push(draft('user.approval.requested', { approvalId: `ap_${i}`, toolCallId: id, action: 'run' }));
      d.push(draft('user.approval.settled', { approvalId: `ap_${i}`, outcome: i % 20 === 0 ? 'allow' : 'deny' }));
    }
    if (ending === 0 || ending === 4)
      d.push(draft('tool.completed', { toolCallId: id, summary: 'ok', output: 'x'.repeat(200) }));
    else if (ending === 1) d.push(draft('tool.failed', { toolCallId: id, cause: 'TOOL_ERROR', message: 'exit 1' }));
    else if (ending === 2) d.push(draft('tool.denied', { toolCallId: id, reason: 'policy' }));
    else d.push(draft('tool.cancelled', { toolCallId: id, reason: 'aborted' }));
    if (i % 7 === 0) d.push(draft('tool.completed', { toolCallId: id, summary: 'again' }));
    if (i % 20 === 0) {
      d.push(
        draft('test.completed', { command: 'npm test', ok: i % 40 === 0, passed: 3, failed: i % 40 === 0 ? 0 : 1 }),
      );
      d.push(
        draft('finding.detected', {
          category: 'bug',
          severity: i % 60 === 0 ? 'high' : 'low',
          summary: `finding ${i}`,
        }),
      );
      d.push(draft('file.changed', { changes: [{ path: `src/f${i % 5}.ts`, kind: 'modify' }] }));
    }
    if (i === 3) d.push(draft('result.produced', { source: 'submit_result', result: { ok: true } }));
    if (i % 50 === 49) d.push(draft('result.produced', { source: 'final-text', result: `text ${i}` }));
    if (i % 100 === 99 || i === steps - 1)
      d.push(draft('task.completed', { taskId: `task_${Math.floor(i / 100)}`, reason: 'completed' }));
  }
  d.push(draft('session.ended', { outcome: 'completed', reason: 'completed' }));
  return d.map((x) => env.wrap(x));
}

function foldOwned(events: OutputEvent[]): ReducerState {
  const s = initialState('s-long');
  for (const e of events) reduceOwned(s, e);
  return s;
}

describe('reducer memory over a long session', () => {
  const steps = 2000;
  const events = longSession(steps);
  const state = foldOwned(events);

  it('keeps only open and recent items, whatever the length of the session', () => {
    expect(state.toolOrder.length).toBeLessThanOrEqual(2 * KEEP_SETTLED);
    expect(Object.keys(state.tools).length).toBe(state.toolOrder.length);
    expect(state.approvalOrder.length).toBeLessThanOrEqual(2 * KEEP_SETTLED);
    expect(state.messages.length).toBe(KEEP_RECENT);
    expect(state.results.length).toBeLessThanOrEqual(KEEP_RECENT);
    const longer = foldOwned(longSession(4 * steps));
    expect(JSON.stringify(longer).length).toBeLessThan(1.2 * JSON.stringify(state).length);
  });

  it('summarises every item of the session, including those that left memory', () => {
    const summary = summarize(state);
    expect(summary.tools.total).toBe(steps);
    expect(summary.tools.byStatus).toEqual({
      completed: steps / 5,
      failed: steps / 5,
      denied: steps / 5,
      cancelled: steps / 5,
      incomplete: steps / 5,
    });
    expect(summary.approvals).toEqual({ total: steps / 10, byOutcome: { allow: steps / 20, deny: steps / 20 } });
    expect(summary.messages).toBe(steps);
    expect(summary.results).toBe(1 + steps / 50);
    expect(summary.tests).toEqual({ runs: steps / 20, ok: false, passed: 3 * (steps / 20), failed: steps / 40 });
    expect(summary.findings).toEqual({
      total: steps / 20,
      bySeverity: { high: Math.ceil(steps / 60), low: steps / 20 - Math.ceil(steps / 60) },
    });
    expect(summary.filesChanged.map((f) => f.path)).toEqual(['src/f0.ts']);
    const run = viewOf(state).run();
    // Terminals without a start show what they reported: completed.
    expect(run.tools).toEqual({
      completed: (2 * steps) / 5,
      failed: steps / 5,
      denied: steps / 5,
      cancelled: steps / 5,
      interrupted: 0,
    });
    expect(run.hasResult).toBe(true);
    expect(run.result).toEqual({ ok: true });
    const seconds = events.filter(
      (e) => e.type === 'tool.completed' && (e.payload as { summary: string }).summary === 'again',
    ).length;
    const recorded = state.anomalies.filter((a) => a.kind === 'second-terminal').length;
    // Each second terminal follows its first at once, while the call is still in memory.
    expect(recorded).toBe(seconds);
  });

  it('gives the same state through the pure reducer, the owned fast path and a rebuild', () => {
    const pure = events.reduce(reduce, initialState('s-long'));
    expect(JSON.stringify(pure)).toBe(JSON.stringify(state));
    expect(summarize(rebuild(events))).toEqual(summarize(state));
  });
});
