/**
 * When a refused command may be rerun unsandboxed (lib/tools/escalation.ts): only in `ask` mode
 * with a person to answer, only for a command minicode's own sandbox refused. The ACP test
 * (acp.test.ts) drives the whole path; this one covers each condition that withholds the question.
 */
import { describe, expect, it } from 'vitest';
import { bashTool } from '../../lib/tools/bash.js';
import { escalationRequest } from '../../lib/tools/escalation.js';
import type { SandboxSettings } from '../../lib/sandbox/settings.js';
import type { ToolOutcome } from '../../lib/tools/types.js';

const sandbox: SandboxSettings = {
  mode: 'workspace-write',
  network: false,
  allowHosts: [],
  readDeny: [],
  writeAllow: [],
  env: { inherit: 'all', pass: [] },
};
const refused: ToolOutcome = {
  status: 'failed',
  cause: 'TOOL_ERROR',
  message: 'command exited with code 1',
  output: 'x',
  sandboxRefusal: '[the sandbox (workspace-write) refused a write outside the workspace: ...]',
};
const base = {
  tool: bashTool,
  outcome: refused,
  ctx: { sandbox, tty: true },
  policy: 'ask' as const,
  toolCallId: 'call_1',
  title: 'echo x > /etc/x',
};

describe('an escalation question', () => {
  it('is asked in ask mode with a person to answer, under its own tool name, naming the refusal', () => {
    expect(escalationRequest(base)).toEqual({
      toolName: 'bash (unsandboxed)',
      toolCallId: 'call_1',
      action: 'rerun outside the sandbox: echo x > /etc/x',
      reason: 'sandbox-refused',
      sandboxRefusal: refused.sandboxRefusal,
    });
    expect(escalationRequest({ ...base, policy: { mode: 'ask' } })).toBeDefined();
  });

  it('carries the refusal line with terminal sequences neutralised and secrets masked, on one line', () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const note = `[the sandbox (workspace-write) refused a connection to \u001b]0;owned\u0007${token}.example\nnext: only a.example can be reached]`;
    const line = escalationRequest({
      ...base,
      outcome: { ...refused, sandboxRefusal: note },
      ctx: { sandbox, tty: true, env: { DEPLOY_KEY: 'hunter2-value-of-a-deploy-key' } },
    })?.sandboxRefusal;
    expect(line).toBeDefined();
    expect(line).toContain('[the sandbox (workspace-write) refused a connection to');
    expect(line).not.toContain(token);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
    const withValue = escalationRequest({
      ...base,
      outcome: { ...refused, sandboxRefusal: '[refused hunter2-value-of-a-deploy-key.example]' },
      ctx: { sandbox, tty: true, env: { DEPLOY_KEY: 'hunter2-value-of-a-deploy-key' } },
    })?.sandboxRefusal;
    expect(withValue).not.toContain('hunter2-value-of-a-deploy-key');
    const long = escalationRequest({ ...base, outcome: { ...refused, sandboxRefusal: `[${'x'.repeat(2000)}]` } });
    expect(long?.sandboxRefusal?.length).toBeLessThanOrEqual(500);
  });

  it('is never asked under auto or read-only, headless, with the sandbox off, in a client terminal, or without a refusal', () => {
    expect(escalationRequest({ ...base, policy: 'auto' })).toBeUndefined();
    expect(escalationRequest({ ...base, policy: { mode: 'auto', allowTools: ['bash'] } })).toBeUndefined();
    expect(escalationRequest({ ...base, policy: 'read-only' })).toBeUndefined();
    expect(escalationRequest({ ...base, ctx: { sandbox, tty: false } })).toBeUndefined();
    expect(escalationRequest({ ...base, ctx: { sandbox: { ...sandbox, mode: 'off' }, tty: true } })).toBeUndefined();
    expect(
      escalationRequest({
        ...base,
        ctx: {
          sandbox,
          tty: true,
          terminal: { run: async () => ({ output: '', truncated: false, exitCode: 0, signal: null }) },
        },
      }),
    ).toBeUndefined();
    expect(
      escalationRequest({ ...base, outcome: { status: 'completed', summary: 'exit 0', output: '' } }),
    ).toBeUndefined();
    expect(escalationRequest({ ...base, outcome: { status: 'denied', reason: 'no' } })).toBeUndefined();
  });
});
