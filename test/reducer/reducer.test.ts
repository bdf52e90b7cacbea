import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { initialState, rebuild, reduce, summarize, type ReducerState } from '../../lib/reducer/index.js';

function envelope(drafts: EventDraft[], sessionId = 's1'): OutputEvent[] {
  let t = 0;
  const env = createEnveloper({ sessionId, clock: () => Date.UTC(2025, 0, 1) + (t += 100) });
  return drafts.map((d) => env.wrap(d));
}

function fold(events: OutputEvent[]): ReducerState {
  return events.reduce(reduce, initialState(events[0]?.sessionId ?? 's1'));
}

const ERROR = {
  category: 'PROVIDER_ERROR',
  code: 'overloaded_error',
  message: 'Overloaded',
  recoverability: 'RETRYABLE',
} as const;

describe('the reducer', () => {
  it('derives tool durations from timestamps when the payload has none, and prefers the payload', () => {
    const s = fold(
      envelope([
        draft('tool.started', { toolCallId: 'a', name: 'bash' }),
        draft('tool.started', { toolCallId: 'b', name: 'read' }),
        draft('tool.completed', { toolCallId: 'b', summary: 'ok', durationMs: 5 }),
        draft('tool.completed', { toolCallId: 'a', summary: 'ok' }),
      ]),
    );
    expect(s.tools['a']?.durationMs).toBe(300);
    expect(s.tools['b']?.durationMs).toBe(5);
  });

  it('keeps a denied tool denied with its reason, never a generic failure', () => {
    const s = fold(
      envelope([
        draft('tool.started', { toolCallId: 'a', name: 'git_commit' }),
        draft('tool.denied', { toolCallId: 'a', reason: 'no TTY' }),
      ]),
    );
    expect(s.tools['a']).toMatchObject({ status: 'denied', reason: 'no TTY' });
  });

  it('reconstructs a terminal without a start as incomplete and flags it', () => {
    const s = fold(envelope([draft('tool.completed', { toolCallId: 'x', summary: 'ok' })]));
    expect(s.tools['x']).toMatchObject({
      status: 'incomplete',
      reportedStatus: 'completed',
      anomalies: ['terminal-without-start'],
    });
    expect(s.anomalies[0]).toMatchObject({ kind: 'terminal-without-start', id: 'x' });
  });

  it('adds incremental usage, replaces cumulative usage, and keeps unknown fields absent', () => {
    const s = fold(
      envelope([
        draft('usage.reported', { usage: { inputTokens: 10 }, cumulative: false, scope: 'request' }),
        draft('usage.reported', {
          usage: { inputTokens: 5, outputTokens: 2 },
          cumulative: false,
          scope: 'request',
          costUsd: 0.5,
        }),
      ]),
    );
    expect(s.usage.reported).toEqual({ inputTokens: 15, outputTokens: 2 });
    expect(s.usage.costUsd).toBe(0.5);
    expect(s.usage.unpricedReports).toBe(1);
    const c = fold(
      envelope([
        draft('usage.reported', { usage: { inputTokens: 10, outputTokens: 1 }, cumulative: true, scope: 'session' }),
        draft('usage.reported', { usage: { inputTokens: 30 }, cumulative: true, scope: 'session' }),
      ]),
    );
    expect(c.usage.reported).toEqual({ inputTokens: 30, outputTokens: 1 });
    expect(summarize(fold([])).usage).toBeUndefined();
  });

  it('decides an ingested stream without task events from its responses', () => {
    const base = [
      draft('session.started', { origin: 'ingest', format: 'anthropic' }),
      draft('model.response.started', { model: 'claude' }),
    ];
    const completed = fold(
      envelope([
        ...base,
        draft('model.response.completed', { outcome: 'completed', stopReason: 'end_turn', usage: { outputTokens: 7 } }),
      ]),
    );
    expect(completed.run).toMatchObject({ outcome: 'completed', source: 'response' });
    expect(summarize(completed).usage).toEqual({ outputTokens: 7 });
    expect(fold(envelope([...base, draft('model.response.completed', { outcome: 'truncated' })])).run.outcome).toBe(
      'partial',
    );
    expect(fold(envelope([...base, draft('model.response.completed', { outcome: 'error' })])).run.outcome).toBe(
      'failed',
    );
    expect(rebuild(envelope(base)).run.outcome).toBe('interrupted');
  });

  it('lets a task decide over the session and records the conflict', () => {
    const s = fold(
      envelope([
        draft('task.started', { taskId: 't' }),
        draft('task.failed', { taskId: 't', reason: 'provider', error: ERROR }),
        draft('session.ended', { outcome: 'completed' }),
      ]),
    );
    expect(s.run).toMatchObject({ outcome: 'failed', reason: 'provider', error: ERROR });
    expect(s.anomalies.map((a) => a.kind)).toEqual(['outcome-conflict']);
  });

  it('force-closes the approvals of a settling task as cancelled(parent-ended)', () => {
    const s = fold(
      envelope([
        draft('task.started', { taskId: 't' }),
        draft('user.approval.requested', { approvalId: 'ap', action: 'run rm' }),
        draft('task.cancelled', { taskId: 't', reason: 'aborted' }),
      ]),
    );
    expect(s.approvals['ap']).toMatchObject({ status: 'settled', outcome: 'cancelled', reason: 'parent-ended' });
    expect(s.run.outcome).toBe('cancelled');
  });

  it('moves a task to partial on truncation and back to active on further work', () => {
    const events = envelope([
      draft('task.started', { taskId: 't' }),
      draft('assistant.message.truncated', { messageId: 'm', text: 'Hel', reason: 'max-tokens' }),
    ]);
    const s = fold(events);
    expect(s.tasks['t']?.status).toBe('partial');
    const more = envelope([draft('tool.started', { toolCallId: 'a', name: 'bash' })]);
    expect(reduce(s, { ...(more[0] as OutputEvent), seq: 2 }).tasks['t']?.status).toBe('active');
  });

  it('keeps streamed text only in the live field and never turns it into a message on rebuild', () => {
    const events = envelope([
      draft('task.started', { taskId: 't' }),
      draft('assistant.message.delta', { messageId: 'm', delta: 'Hel' }),
      draft('assistant.message.delta', { messageId: 'm', delta: 'lo' }),
    ]);
    expect(fold(events).live.messages['m']).toBe('Hello');
    const r = rebuild(events);
    expect(r.messages).toEqual([]);
    expect(r.live.messages).toEqual({});
    expect(r.run.outcome).toBe('interrupted');
  });

  it('ignores events of another session and records them', () => {
    const s = reduce(
      initialState('s1'),
      envelope([draft('tool.started', { toolCallId: 'a', name: 'x' })], 's2')[0] as OutputEvent,
    );
    expect(s.tools).toEqual({});
    expect(s.anomalies[0]?.kind).toBe('foreign-session');
  });

  it('treats a __proto__ id as data', () => {
    const s = fold(envelope([draft('tool.started', { toolCallId: '__proto__', name: 'x' })]));
    expect(Object.keys(s.tools)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(s)).tools['__proto__'].name).toBe('x');
  });

  it('summarises tools, files, tests and findings from evidence', () => {
    const s = fold(
      envelope([
        draft('tool.started', { toolCallId: 'a', name: 'edit' }),
        draft('tool.completed', { toolCallId: 'a', summary: 'ok' }),
        draft('tool.started', { toolCallId: 'b', name: 'bash' }),
        draft('tool.failed', { toolCallId: 'b', cause: 'TOOL_ERROR', message: 'exit 1' }),
        draft('file.changed', {
          changes: [
            { path: 'a.ts', kind: 'modify' },
            { path: 'b.ts', kind: 'create' },
          ],
        }),
        draft('file.changed', { changes: [{ path: 'a.ts', kind: 'modify' }] }),
        draft('test.completed', { ok: false, passed: 3, failed: 1 }),
        draft('finding.detected', { category: 'bug', severity: 'high', summary: 'x' }),
      ]),
    );
    const sum = summarize(s);
    expect(sum.tools).toEqual({ total: 2, byStatus: { completed: 1, failed: 1 } });
    expect(sum.filesChanged.map((f) => f.path)).toEqual(['a.ts', 'b.ts']);
    expect(sum.tests).toEqual({ runs: 1, ok: false, passed: 3, failed: 1 });
    expect(sum.findings).toEqual({ total: 1, bySeverity: { high: 1 } });
  });
});
