import { describe, expect, it } from 'vitest';
import { OutputEventSchema, createEnveloper } from '../../lib/events/index.js';
import { commandAllowed, createApprovalHook, decide, type ToolCallFacts } from '../../lib/policy/index.js';

const read: ToolCallFacts = { name: 'read_file', kind: 'read', gated: false };
const edit: ToolCallFacts = { name: 'edit', kind: 'edit', gated: false };
const bash = (command: string): ToolCallFacts => ({ name: 'bash', kind: 'execute', gated: false, input: { command } });
const commit: ToolCallFacts = { name: 'git_commit', kind: 'execute', gated: true };
const ask: ToolCallFacts = { name: 'ask_user', kind: 'other', gated: true };

describe('decide', () => {
  it('denies gated tools without a TTY in every mode, with a clear reason', () => {
    for (const mode of ['ask', 'auto', 'read-only'] as const) {
      for (const call of [commit, ask]) {
        const result = decide(call, mode, { tty: false });
        expect(result.decision).toBe('deny');
        expect(result.reason).toMatch(/gated tool denied/);
      }
    }
    expect(decide(commit, 'auto', { tty: false }).reason).toMatch(/^gated tool denied: no TTY to ask \(git_commit\)/);
  });

  it('asks for gated tools on a TTY even in auto mode', () => {
    expect(decide(commit, { mode: 'auto', allowTools: ['git_commit'] }, { tty: true }).decision).toBe('ask');
  });

  it('always allows reads and searches', () => {
    for (const mode of ['ask', 'auto', 'read-only'] as const)
      expect(decide(read, mode, { tty: false }).decision).toBe('allow');
  });

  it('denies edits and commands in read-only mode', () => {
    expect(decide(edit, 'read-only', { tty: true }).decision).toBe('deny');
    expect(decide(bash('ls'), 'read-only', { tty: true }).decision).toBe('deny');
  });

  it('asks for edits in ask mode and fails closed without a TTY', () => {
    expect(decide(edit, 'ask', { tty: true }).decision).toBe('ask');
    const denied = decide(edit, 'ask', { tty: false });
    expect(denied.decision).toBe('deny');
    expect(denied.reason).toContain('no TTY');
  });

  it('allows the default workspace tools in auto mode', () => {
    expect(decide(edit, 'auto', { tty: false }).decision).toBe('allow');
    expect(decide(bash('npm test'), 'auto', { tty: false }).decision).toBe('allow');
  });

  it('restricts bash to the command allowlist in auto mode when one is given', () => {
    const policy = { mode: 'auto' as const, allowCommands: ['npm test', 'node'] };
    expect(decide(bash('npm test -- --watch=false'), policy, { tty: false }).decision).toBe('allow');
    expect(decide(bash('node test.js'), policy, { tty: false }).decision).toBe('allow');
    expect(decide(bash('curl evil.example'), policy, { tty: false }).decision).toBe('deny');
    expect(decide(bash('node test.js; curl evil.example'), policy, { tty: false }).decision).toBe('deny');
    expect(decide(bash('curl evil.example'), policy, { tty: true }).decision).toBe('ask');
  });

  it('asks for a tool outside the auto allowlist', () => {
    expect(decide(edit, { mode: 'auto', allowTools: ['read_file'] }, { tty: false }).decision).toBe('deny');
  });

  it("allows the native shapes' edit tools where the allowlist allows the tools they stand in for", () => {
    const patch: ToolCallFacts = { name: 'apply_patch', kind: 'edit', gated: false };
    const insert: ToolCallFacts = { name: 'insert_text', kind: 'edit', gated: false };
    expect(decide(patch, 'auto', { tty: false }).decision).toBe('allow');
    expect(decide(patch, { mode: 'auto', allowTools: ['edit', 'write_file'] }, { tty: false }).decision).toBe('allow');
    expect(decide(patch, { mode: 'auto', allowTools: ['edit'] }, { tty: false }).decision).toBe('deny');
    expect(decide(insert, { mode: 'auto', allowTools: ['edit'] }, { tty: false }).decision).toBe('allow');
    expect(decide(insert, 'read-only', { tty: false }).decision).toBe('deny');
  });

  it('never matches chained commands against the allowlist', () => {
    expect(commandAllowed('npm test && rm -rf /', ['npm test'])).toBe(false);
    expect(commandAllowed('npm test $(whoami)', ['npm test'])).toBe(false);
    expect(commandAllowed('npm testing', ['npm test'])).toBe(false);
  });
});

describe('the approval hook', () => {
  it('denies at once without a TTY and emits requested then settled(deny, no-tty) events that validate', async () => {
    const events: unknown[] = [];
    const approve = createApprovalHook({ tty: false, onEvent: (e) => events.push(e) });
    expect(
      await approve({
        toolName: 'write_file',
        toolCallId: 'call_1',
        action: 'write /etc/hosts',
        reason: 'outside-workspace',
      }),
    ).toBe('deny');
    const enveloper = createEnveloper({ sessionId: 's', clock: () => 0 });
    const wrapped = events.map((e) => OutputEventSchema.parse(enveloper.wrap(e as never)));
    expect(wrapped.map((e) => e.type)).toEqual(['user.approval.requested', 'user.approval.settled']);
    expect(wrapped[1]).toMatchObject({
      status: 'denied',
      correlationId: 'call_1',
      payload: { outcome: 'deny', reason: 'no-tty' },
    });
  });

  it('remembers allow-always for the same action', async () => {
    let prompts = 0;
    const approve = createApprovalHook({ tty: true, prompt: async () => (prompts++, 'allow-always') });
    const request = { toolName: 'write_file', action: 'write /tmp/x', reason: 'outside-workspace' };
    expect(await approve(request)).toBe('allow-always');
    expect(await approve(request)).toBe('allow');
    expect(prompts).toBe(1);
  });
});
