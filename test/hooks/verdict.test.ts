/**
 * The pure halves of the hooks: how a matcher reads (Claude Code's rules, with Claude's tool
 * names as aliases) and what a hook's exit code and output mean for each event.
 */
import { describe, expect, it } from 'vitest';
import { compileMatcher } from '../../lib/hooks/matcher.js';
import { verdictOf } from '../../lib/hooks/verdict.js';
import type { HookProcessResult } from '../../lib/hooks/run-command.js';

const ran = (
  exitCode: number | null,
  stdout = '',
  stderr = '',
  extra: Partial<HookProcessResult> = {},
): HookProcessResult => ({
  exitCode,
  stdout,
  stderr,
  timedOut: false,
  aborted: false,
  durationMs: 3,
  ...extra,
});

describe('a hook matcher', () => {
  it('matches everything when absent, empty or *', () => {
    for (const m of [undefined, '', '*']) expect(compileMatcher(m)('anything')).toBe(true);
  });

  it('matches a name or a | list exactly, with Claude Code tool names as aliases', () => {
    const m = compileMatcher('Edit|Write');
    expect(m('edit')).toBe(true);
    expect(m('write_file')).toBe(true);
    expect(m('bash')).toBe(false);
    expect(compileMatcher('bash')('bash')).toBe(true);
    expect(compileMatcher('bash')('bash_extra')).toBe(false);
  });

  it('reads anything else as a regular expression over the whole name', () => {
    expect(compileMatcher('mcp__github__.*')('mcp__github__create_issue')).toBe(true);
    expect(compileMatcher('mcp__github__.*')('mcp__gitlab__x')).toBe(false);
    expect(() => compileMatcher('(')).toThrow(SyntaxError);
  });
});

describe('a hook verdict', () => {
  it('blocks on exit 2 with stderr as the reason', () => {
    expect(verdictOf('PreToolUse', ran(2, '', 'no rm -rf\n'))).toEqual({
      outcome: 'blocked',
      blockReason: 'no rm -rf',
    });
  });

  it('treats other exit codes and timeouts as non-blocking failures', () => {
    expect(verdictOf('PreToolUse', ran(1, '', 'boom')).outcome).toBe('error');
    expect(verdictOf('PreToolUse', ran(null, '', '', { timedOut: true })).outcome).toBe('timeout');
  });

  it('reads plain stdout as context only for SessionStart and UserPromptSubmit', () => {
    expect(verdictOf('UserPromptSubmit', ran(0, 'ctx\n')).context).toBe('ctx');
    expect(verdictOf('SessionStart', ran(0, 'ctx')).context).toBe('ctx');
    expect(verdictOf('PreToolUse', ran(0, 'ctx')).context).toBeUndefined();
  });

  it('reads JSON output: permissionDecision, the older decision spelling, block, continue and additionalContext', () => {
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'prod config',
      },
    });
    expect(verdictOf('PreToolUse', ran(0, deny))).toMatchObject({
      outcome: 'blocked',
      permission: 'deny',
      permissionReason: 'prod config',
    });
    expect(verdictOf('PreToolUse', ran(0, JSON.stringify({ decision: 'approve' }))).permission).toBe('allow');
    expect(verdictOf('Stop', ran(0, JSON.stringify({ decision: 'block', reason: 'run the tests' })))).toMatchObject({
      outcome: 'blocked',
      blockReason: 'run the tests',
    });
    expect(verdictOf('PostToolUse', ran(0, JSON.stringify({ continue: false, stopReason: 'enough' }))).stop).toBe(
      'enough',
    );
    expect(
      verdictOf('PostToolUse', ran(0, JSON.stringify({ hookSpecificOutput: { additionalContext: 'formatted' } })))
        .context,
    ).toBe('formatted');
  });

  it('reads output that only looks like JSON as plain text', () => {
    expect(verdictOf('UserPromptSubmit', ran(0, '{"decision": "blo'))).toEqual({
      outcome: 'success',
      context: '{"decision": "blo',
    });
    expect(verdictOf('PreToolUse', ran(0, '{"decision": "blo'))).toEqual({ outcome: 'success' });
  });
});
