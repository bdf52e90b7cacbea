import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputEventSchema, createEnveloper, type EventDraft } from '../../lib/events/index.js';
import { createApprovalHook } from '../../lib/policy/index.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { executeToolCall } from '../../lib/tools/execute.js';
import { context, scratch } from './helpers.js';

/** Run one call and return the enveloped, schema-validated events. */
async function run(
  dir: string,
  name: string,
  args: unknown,
  options: {
    tty?: boolean;
    policy?: 'ask' | 'auto' | 'read-only';
    registry?: ReturnType<typeof createToolRegistry>;
  } = {},
) {
  const drafts: EventDraft[] = [];
  const approve = createApprovalHook({ tty: options.tty ?? false, onEvent: (e) => drafts.push(e) });
  const { ctx } = context(dir, { tty: options.tty ?? false, approve });
  let t = 0;
  const result = await executeToolCall({
    registry: options.registry ?? createToolRegistry(),
    call: { id: 'call_1', name, argumentsText: JSON.stringify(args) },
    policy: options.policy ?? 'auto',
    ctx,
    onEvent: (e) => drafts.push(e),
    clock: () => (t += 10),
  });
  const enveloper = createEnveloper({ sessionId: 's', clock: () => 0 });
  const events = drafts.map((d) => OutputEventSchema.parse(enveloper.wrap(d)));
  return { result, events, types: events.map((e) => e.type) };
}

describe('executeToolCall', () => {
  it('emits started, completed and file.changed for an edit, all valid envelopes', async () => {
    const dir = scratch({ 'a.txt': 'old' });
    const { types, events, result } = await run(dir, 'edit', { path: 'a.txt', old_string: 'old', new_string: 'new' });
    expect(types).toEqual(['tool.started', 'tool.completed', 'file.changed']);
    expect(events[0]).toMatchObject({
      correlationId: 'call_1',
      payload: { name: 'edit', kind: 'edit', title: 'a.txt', executor: 'minicode' },
    });
    expect(events[1]).toMatchObject({ payload: { durationMs: 10 } });
    expect(result.isError).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('new');
  });

  it('denies a gated tool without a TTY and never runs it', async () => {
    const { types, events, result } = await run(scratch(), 'git_commit', { message: 'x' });
    expect(types).toEqual(['tool.started', 'tool.denied']);
    expect(events[1]).toMatchObject({
      status: 'denied',
      payload: { reason: expect.stringMatching(/^gated tool denied: no TTY to ask \(git_commit\)/) },
    });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('no TTY') });
  });

  it('denies ask_user without a TTY with a clear reason', async () => {
    const { types, events } = await run(scratch(), 'ask_user', { question: 'which?' });
    expect(types).toEqual(['tool.started', 'tool.denied']);
    expect(events[1]!.payload).toMatchObject({ reason: expect.stringContaining('no TTY') });
  });

  it('denies edits in read-only mode', async () => {
    const dir = scratch({ 'a.txt': 'old' });
    const { types } = await run(dir, 'write_file', { path: 'a.txt', content: 'x' }, { policy: 'read-only' });
    expect(types).toEqual(['tool.started', 'tool.denied']);
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('old');
  });

  it('denies a command in ask mode without a TTY, without requesting approval', async () => {
    const { types } = await run(scratch(), 'bash', { command: 'true' }, { policy: 'ask' });
    expect(types).toEqual(['tool.started', 'tool.denied']);
  });

  it('goes through the approval hook for a write outside the workspace and fails closed', async () => {
    const { types, events } = await run(scratch(), 'write_file', {
      path: '/tmp/minicode-outside-test.txt',
      content: 'x',
    });
    expect(types).toEqual(['tool.started', 'user.approval.requested', 'user.approval.settled', 'tool.denied']);
    expect(events[2]).toMatchObject({ payload: { outcome: 'deny', reason: 'no-tty' } });
  });

  it('emits tool.failed with cause and output for a failing command', async () => {
    const { types, events, result } = await run(scratch(), 'bash', { command: 'echo nope; exit 2' });
    expect(types).toEqual(['tool.started', 'tool.failed']);
    expect(events[1]).toMatchObject({ payload: { cause: 'TOOL_ERROR', output: 'nope\n', receipt: { exitCode: 2 } } });
    expect(result.content).toContain('exited with code 2');
  });

  it('projects submit_result as result.produced and one finding.detected per finding', async () => {
    const registry = createToolRegistry();
    const args = {
      verdict: 'ok',
      findings: [
        { category: 'bug', severity: 'high', summary: 'a' },
        { category: 'lint', severity: 'low', summary: 'b' },
      ],
    };
    const { types, events } = await run(scratch(), 'submit_result', args, { registry });
    expect(types).toEqual([
      'tool.started',
      'tool.completed',
      'result.produced',
      'finding.detected',
      'finding.detected',
    ]);
    expect(events[2]!.payload).toEqual({ source: 'submit_result', result: args });
    const again = await run(scratch(), 'submit_result', args, { registry });
    expect(again.types).toEqual(['tool.started', 'tool.failed']);
  });

  it('fails an unknown tool without throwing', async () => {
    const { types } = await run(scratch(), 'teleport', {});
    expect(types).toEqual(['tool.started', 'tool.failed']);
  });
});
