import { describe, expect, it } from 'vitest';
import { createEnveloper, draft, type EventDraft } from '../../lib/events/index.js';
import { createProjector, editDiffs } from '../../lib/acp/projection.js';
import { createWireValidator } from './wire-schema.js';

const wrapAll = (drafts: EventDraft[]) => {
  const enveloper = createEnveloper({ sessionId: 'ses_p', clock: () => 0 });
  return drafts.map((d) => enveloper.wrap(d));
};

describe('the ACP projection of minicode.output.v1 events', () => {
  it('sends deltas live and skips the completion they already spelled out', () => {
    const projector = createProjector({ cwd: '/w' });
    const updates = wrapAll([
      draft('assistant.message.delta', { messageId: 'm1', delta: 'Hi ' }),
      draft('assistant.message.delta', { messageId: 'm1', delta: 'there' }),
      draft('assistant.message.completed', { messageId: 'm1', text: 'Hi there' }),
      draft('assistant.message.completed', { messageId: 'm2', text: 'Unstreamed' }),
    ]).flatMap((e) => projector.project(e));
    expect(updates.map((u) => (u as { content: { text: string } }).content.text)).toEqual([
      'Hi ',
      'there',
      'Unstreamed',
    ]);
  });

  it('replays final texts and user messages, never deltas', () => {
    const projector = createProjector({ cwd: '/w', replay: true });
    const updates = wrapAll([
      draft('user.message.received', { messageId: 'u1', text: 'question' }),
      draft('assistant.reasoning.completed', { reasoningId: 'r1', text: 'thinking' }),
      draft('assistant.reasoning.completed', { reasoningId: 'r2', redacted: true, data: 'opaque' }),
      draft('assistant.message.completed', { messageId: 'm1', text: 'answer' }),
    ]).flatMap((e) => projector.project(e));
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
    ]);
  });

  it('maps a tool lifecycle to tool_call then updates, with absolute locations and the diff kept at the end', () => {
    const projector = createProjector({ cwd: '/w' });
    const updates = wrapAll([
      draft('tool.started', {
        toolCallId: 't1',
        name: 'edit',
        kind: 'edit',
        input: { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' },
      }),
      draft('user.approval.settled', { approvalId: 'a1', outcome: 'allow' }, { correlationId: 't1' }),
      draft('tool.completed', { toolCallId: 't1', summary: 'edited' }),
    ]).flatMap((e) => projector.project(e));
    const diff = { type: 'diff', path: '/w/src/a.ts', oldText: 'a', newText: 'b' };
    expect(updates).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'edit',
        kind: 'edit',
        status: 'pending',
        content: [diff],
        locations: [{ path: '/w/src/a.ts' }],
        rawInput: { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'in_progress' },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        status: 'completed',
        content: [diff, { type: 'content', content: { type: 'text', text: 'edited' } }],
        rawOutput: { summary: 'edited' },
      },
    ]);
  });

  it('reports denied and cancelled tools as failed with the reason shown', () => {
    const projector = createProjector({ cwd: '/w' });
    const updates = wrapAll([
      draft('tool.started', { toolCallId: 't1', name: 'bash' }),
      draft('tool.denied', { toolCallId: 't1', reason: 'policy' }),
      draft('tool.started', { toolCallId: 't2', name: 'bash' }),
      draft('tool.cancelled', { toolCallId: 't2', reason: 'aborted' }),
    ]).flatMap((e) => projector.project(e));
    expect(
      updates
        .filter((u) => u.sessionUpdate === 'tool_call_update')
        .map((u) => [u.status, (u as { content: Array<{ content: { text: string } }> }).content[0]?.content.text]),
    ).toEqual([
      ['failed', 'Denied: policy'],
      ['failed', 'Cancelled: aborted'],
    ]);
  });

  it('sends nothing for a tool call after its first terminal, and opens a call whose terminal came without a start', () => {
    const validator = createWireValidator();
    const projector = createProjector({ cwd: '/w', maxClosedTools: 2 });
    const updates = wrapAll([
      draft('tool.started', { toolCallId: 't1', name: 'bash' }),
      draft('tool.completed', { toolCallId: 't1', summary: 'ok' }),
      draft('tool.progress', { toolCallId: 't1', outputDelta: 'late' }),
      draft('tool.failed', { toolCallId: 't1', cause: 'TOOL_ERROR', message: 'late' }),
      draft('tool.cancelled', { toolCallId: 't1', reason: 'aborted' }),
      draft('tool.denied', { toolCallId: 't2', name: 'write_file', reason: 'policy' }),
      draft('tool.denied', { toolCallId: 't2', name: 'write_file', reason: 'again' }),
    ]).flatMap((e) => projector.project(e));
    expect(
      updates.map((u) => [
        u.sessionUpdate,
        (u as { toolCallId: string }).toolCallId,
        (u as { status?: string }).status,
      ]),
    ).toEqual([
      ['tool_call', 't1', 'pending'],
      ['tool_call_update', 't1', 'completed'],
      ['tool_call', 't2', 'failed'],
    ]);
    expect(updates[2]).toMatchObject({ title: 'write_file', rawOutput: { denied: true, reason: 'policy' } });
    for (const update of updates) {
      expect(
        validator.check('agent', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } }),
      ).toEqual([]);
    }
  });

  it('builds diffs from the usual edit input shapes and none from others', () => {
    expect(editDiffs({ path: 'a', content: 'x' }, '/w')).toEqual([{ type: 'diff', path: '/w/a', newText: 'x' }]);
    expect(editDiffs({ path: '/abs/a', edits: [{ oldText: '1', newText: '2' }, { nope: true }] }, '/w')).toEqual([
      { type: 'diff', path: '/abs/a', oldText: '1', newText: '2' },
    ]);
    expect(editDiffs({ command: 'ls' }, '/w')).toEqual([]);
    expect(editDiffs('text', '/w')).toEqual([]);
  });

  it('keeps the whole plan and updates step statuses in it', () => {
    const projector = createProjector({ cwd: '/w' });
    const steps = [
      { id: 'a', title: 'A', status: 'pending' as const },
      { id: 'b', title: 'B', status: 'pending' as const },
    ];
    const updates = wrapAll([
      draft('plan.created', { planId: 'p', steps }),
      draft('plan.step.started', { planId: 'p', stepId: 'b' }),
    ]).flatMap((e) => projector.project(e));
    expect(updates.at(-1)).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'A', priority: 'medium', status: 'pending' },
        { content: 'B', priority: 'medium', status: 'in_progress' },
      ],
    });
  });

  it('produces only updates the v1 schema accepts', () => {
    const validator = createWireValidator();
    const projector = createProjector({ cwd: '/w' });
    const updates = wrapAll([
      draft('assistant.message.delta', { messageId: 'm', delta: 'x' }),
      draft('tool.started', {
        toolCallId: 't',
        name: 'write',
        input: { path: 'f', content: 'c' },
        locations: [{ path: 'f', line: 3 }],
      }),
      draft('tool.progress', { toolCallId: 't', message: 'half' }),
      draft('file.changed', { changes: [{ path: 'f', kind: 'create' }], toolCallId: 't' }),
      draft('tool.failed', { toolCallId: 't', cause: 'TOOL_ERROR', message: 'boom', output: 'trace' }),
      draft('plan.updated', { planId: 'p', steps: [{ id: 's', title: 'S', status: 'completed' }] }),
    ]).flatMap((e) => projector.project(e));
    expect(updates).toHaveLength(6);
    for (const update of updates) {
      expect(
        validator.check('agent', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } }),
      ).toEqual([]);
    }
  });
});

describe('the wire validator', () => {
  it('rejects an update the v1 schema does not define', () => {
    const validator = createWireValidator();
    const bad = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 't', status: 'running' } },
    };
    expect(validator.check('agent', bad).length).toBeGreaterThan(0);
  });

  it('checks a response against the response schema of the request it answers', () => {
    const validator = createWireValidator();
    expect(
      validator.check('client', {
        jsonrpc: '2.0',
        id: 1,
        method: 'session/prompt',
        params: { sessionId: 's', prompt: [] },
      }),
    ).toEqual([]);
    expect(
      validator.check('agent', { jsonrpc: '2.0', id: 1, result: { stopReason: 'finished' } }).length,
    ).toBeGreaterThan(0);
  });
});
