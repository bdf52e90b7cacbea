import type { EventType, PayloadOf } from './payloads.js';

/**
 * One valid payload per event type (used by the contract tests and docs/event-model.md), and
 * one invalid payload with the field its error must name.
 */
export const PAYLOAD_EXAMPLES: { [K in EventType]: PayloadOf<K> } = {
  'session.started': {
    origin: 'exec',
    cwd: '/work/app',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    systemPromptDigest: 'sha256:3b4c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4',
    instructions: [
      {
        path: 'AGENTS.md',
        scope: 'project',
        bytes: 1834,
        sha256: 'sha256:8f14e45fceea167a5a36dedd4bea2543b2c5b5e1c1f2d3e4f5a6b7c8d9e0f1a2',
      },
    ],
  },
  'session.ended': { outcome: 'completed', reason: 'completed', durationMs: 5120 },
  'user.message.received': { messageId: 'u1', text: 'fix the lint errors' },
  'user.approval.requested': {
    approvalId: 'ap1',
    toolCallId: 'call_1',
    toolName: 'bash',
    action: 'run `rm -rf build`',
    options: ['allow', 'allow-always', 'deny'],
  },
  'user.approval.settled': { approvalId: 'ap1', outcome: 'deny', reason: 'no-tty' },
  'task.started': { taskId: 't1', prompt: 'fix the lint errors' },
  'task.progress': { taskId: 't1', message: 'step 2 of 40' },
  'task.completed': { taskId: 't1', reason: 'completed', durationMs: 5100, steps: 2 },
  'task.failed': {
    taskId: 't1',
    reason: 'provider',
    error: { category: 'PROVIDER_ERROR', code: 'overloaded_error', message: 'Overloaded', recoverability: 'RETRYABLE' },
  },
  'task.cancelled': { taskId: 't1', reason: 'aborted', message: 'Esc pressed' },
  'plan.created': {
    planId: 'p1',
    steps: [{ id: 's1', title: 'Run the linter', status: 'pending' }],
    explanation: 'Lint before the fix',
  },
  'plan.updated': { planId: 'p1', steps: [{ id: 's1', title: 'Run the linter', status: 'completed' }] },
  'plan.step.started': { planId: 'p1', stepId: 's1', title: 'Run the linter' },
  'plan.step.completed': { planId: 'p1', stepId: 's1' },
  'assistant.message.delta': { messageId: 'm1', delta: 'Hel' },
  'assistant.message.completed': { messageId: 'm1', text: 'Hello! The lint errors are fixed.' },
  'assistant.message.truncated': { messageId: 'm1', text: 'Hello! The li', reason: 'stream-ended' },
  'assistant.reasoning.delta': { reasoningId: 'r1', delta: 'Let me look' },
  'assistant.reasoning.completed': {
    reasoningId: 'r1',
    text: 'Let me look at the linter output.',
    signature: 'EqQBCgIYAh...',
  },
  'assistant.tool_call.started': { toolCallId: 'call_1', name: 'bash', index: 0 },
  'assistant.tool_call.delta': { toolCallId: 'call_1', delta: '{"command":"npm' },
  'assistant.tool_call.completed': {
    toolCallId: 'call_1',
    name: 'bash',
    argumentsText: '{"command":"npm run lint"}',
    arguments: { command: 'npm run lint' },
  },
  'model.response.started': { responseId: 'msg_01', model: 'claude-sonnet-4-5', provider: 'anthropic' },
  'model.response.completed': {
    responseId: 'msg_01',
    outcome: 'completed',
    stopReason: 'tool_use',
    rawStopReason: 'tool_use',
    usage: { inputTokens: 1200, outputTokens: 85 },
  },
  'agent.session.identified': {
    agent: 'codex',
    nativeSessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
    model: 'gpt-5-codex',
  },
  'agent.handoff': {
    from: 'claude-code',
    to: 'codex',
    reason: 'usage-quota',
    cause: { message: 'five_hour limit reached', resetAt: '2026-11-30T14:00:00.000Z', fidelity: 'native' },
    fromTaskId: 'task-1',
    toTaskId: 'task-2',
    carried: {
      transcriptEntries: 5,
      droppedEntries: 0,
      workspace: 'git',
      diffChars: 412,
      diffTruncated: false,
      promptChars: 2310,
    },
  },
  'context.compacted': {
    reason: 'pressure:0.82',
    strategy: 'mechanical',
    beforeTokens: 152000,
    afterTokens: 60000,
    removedMessages: 14,
  },
  'tool.started': {
    toolCallId: 'call_1',
    name: 'bash',
    kind: 'execute',
    title: 'npm run lint',
    input: { command: 'npm run lint' },
  },
  'tool.progress': { toolCallId: 'call_1', outputDelta: 'src/a.ts:1:1 error' },
  'tool.completed': {
    toolCallId: 'call_1',
    name: 'bash',
    summary: 'exit 0, 12 lines',
    durationMs: 840,
    receipt: { exitCode: 0, lines: 12 },
  },
  'tool.failed': {
    toolCallId: 'call_1',
    name: 'bash',
    cause: 'TOOL_ERROR',
    message: 'exit 1',
    durationMs: 120,
    receipt: { exitCode: 1 },
  },
  'tool.denied': { toolCallId: 'call_2', name: 'git_commit', reason: 'gated tool denied without a TTY' },
  'tool.cancelled': { toolCallId: 'call_3', name: 'bash', reason: 'aborted', durationMs: 2000 },
  'file.changed': { changes: [{ path: 'src/a.ts', kind: 'modify' }], toolCallId: 'call_4' },
  'test.completed': { command: 'npm test', ok: true, passed: 42, failed: 0, skipped: 1 },
  'finding.detected': {
    category: 'bug',
    severity: 'high',
    summary: 'Off-by-one in pager',
    evidence: { path: 'src/pager.ts', line: 12 },
  },
  'result.produced': { source: 'submit_result', result: { fixed: 3, findings: [] } },
  'checkpoint.created': {
    checkpointId: '3f9a1c0d2b7e4a51c6d8e9f0a1b2c3d4e5f60718',
    ref: 'refs/minicode/turns/1764579600000-a1b2c3/before',
    skipped: [{ path: 'node_modules', reason: 'build-or-dependency-dir' }],
    skippedCount: 1,
  },
  'diagnostic.raised': {
    code: 'MINICODE_E_DECODE_BAD_JSON',
    message: 'data field is not valid JSON; skipped this frame',
    excerpt: '{"type":"content_block_delta",',
    line: 14,
  },
  'error.raised': {
    error: {
      category: 'PROVIDER_ERROR',
      code: 'rate_limit_error',
      message: 'Rate limited',
      recoverability: 'RETRYABLE',
      httpStatus: 429,
      retryAfterMs: 2000,
    },
  },
  'recovery.started': {
    strategy: 'retry',
    reason: 'HTTP 529 overloaded',
    attempt: 1,
    delayMs: 1000,
    supersedes: 'req-1',
  },
  'recovery.completed': { strategy: 'retry', result: 'request succeeded' },
  'recovery.failed': {
    strategy: 'retry',
    cause: {
      category: 'PROVIDER_ERROR',
      code: 'MINICODE_E_PROVIDER',
      message: '3 retries exhausted',
      recoverability: 'FATAL',
    },
  },
  'usage.reported': {
    usage: { inputTokens: 1200, outputTokens: 85, cacheReadTokens: 1000 },
    cumulative: false,
    scope: 'request',
    costUsd: 0.0049,
  },
  'limit.reached': {
    kind: 'rate-limit',
    message: 'Rate limit reached',
    retryAfterMs: 2000,
    headers: { 'anthropic-ratelimit-requests-remaining': '0' },
  },
  'hook.completed': {
    hookEvent: 'PreToolUse',
    command: '$MINICODE_PROJECT_DIR/.minicode/hooks/block-rm.sh',
    source: '/work/app/.minicode/settings.json',
    matcher: 'bash',
    toolName: 'bash',
    toolCallId: 'call_1',
    outcome: 'blocked',
    exitCode: 2,
    durationMs: 14,
    decision: 'block',
    reason: 'rm -rf is not allowed here',
    stderr: 'rm -rf is not allowed here',
  },
  'hook.failed': {
    hookEvent: 'PostToolUse',
    command: 'npx prettier --write',
    source: '/home/me/.config/minicode/config.json',
    outcome: 'timeout',
    durationMs: 60000,
  },
};

/** One invalid payload per type and the field the validation error must name. */
export const INVALID_PAYLOAD_EXAMPLES: { [K in EventType]: { payload: unknown; field: string } } = Object.fromEntries(
  (Object.keys(PAYLOAD_EXAMPLES) as EventType[]).map((type) => {
    const valid = PAYLOAD_EXAMPLES[type] as Record<string, unknown>;
    // Break the first required string-or-object field by giving it a number-typed wrong value.
    const field = firstRequiredField(type);
    return [type, { payload: { ...valid, [field]: wrongValueFor(valid[field]) }, field }];
  }),
) as { [K in EventType]: { payload: unknown; field: string } };

function wrongValueFor(value: unknown): unknown {
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return 'not-a-boolean';
  if (Array.isArray(value)) return 'not-an-array';
  if (typeof value === 'string') return 42;
  return 42;
}

/** The required field each invalid example breaks. */
function firstRequiredField(type: EventType): string {
  const overrides: Partial<Record<EventType, string>> = {
    'session.ended': 'outcome',
    'task.failed': 'error',
    'file.changed': 'changes',
    'test.completed': 'ok',
    'usage.reported': 'cumulative',
    'limit.reached': 'kind',
    'hook.completed': 'outcome',
    'hook.failed': 'outcome',
    'agent.handoff': 'from',
    'model.response.completed': 'outcome',
    'context.compacted': 'reason',
    'error.raised': 'error',
    'recovery.failed': 'cause',
    'result.produced': 'source',
    'finding.detected': 'summary',
    'tool.failed': 'cause',
    'user.approval.settled': 'outcome',
  };
  const override = overrides[type];
  if (override) return override;
  return Object.keys(PAYLOAD_EXAMPLES[type])[0] as string;
}
