// Hand-made minicode.output.v1 event sequences for the renderer tests (not recordings).
// Regenerate with: npx tsc -p . && node test/streams/events/generate.mjs
// Each script is a list of [millisecondsSinceStart, draft]; the enveloper assigns seq, ids and
// timestamps from a fixed clock, and every envelope is validated against the zod contract.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEnveloper, OutputEventSchema } from '../../../dist/lib/events/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

function write(name, sessionId, script) {
  let now = T0;
  const enveloper = createEnveloper({ sessionId, clock: () => now });
  const lines = script.map(([at, d]) => {
    now = T0 + at;
    const event = OutputEventSchema.parse(enveloper.wrap(d));
    return JSON.stringify(event);
  });
  fs.writeFileSync(path.join(here, `${name}.jsonl`), lines.join('\n') + '\n');
}

const d = (type, payload, fields = {}) => ({ type, payload, ...fields });
const turn = { turnId: 1 };
const tool = (id, extra = {}) => ({ ...turn, correlationId: id, ...extra });

// A run with completed, failed and denied tools, a denied approval, reasoning and text.
write('tool-run', 'ses_tools', [
  [0, d('session.started', { origin: 'exec', cwd: '/work/app', provider: 'anthropic', model: 'claude-sonnet-4-5' })],
  [1, d('user.message.received', { messageId: 'u1', text: 'fix the lint errors and commit' }, turn)],
  [2, d('task.started', { taskId: 't1', prompt: 'fix the lint errors and commit' }, turn)],
  [10, d('model.response.started', { responseId: 'msg_01', model: 'claude-sonnet-4-5', provider: 'anthropic' }, turn)],
  [40, d('assistant.reasoning.delta', { reasoningId: 'r1', delta: 'The linter output ' }, turn)],
  [60, d('assistant.reasoning.delta', { reasoningId: 'r1', delta: 'will tell me what to fix.' }, turn)],
  [70, d('assistant.reasoning.completed', { reasoningId: 'r1', text: 'The linter output will tell me what to fix.' }, turn)],
  [90, d('assistant.message.delta', { messageId: 'm1', delta: 'Running the ' }, turn)],
  [110, d('assistant.message.delta', { messageId: 'm1', delta: 'linter first.' }, turn)],
  [120, d('assistant.message.completed', { messageId: 'm1', text: 'Running the linter first.' }, turn)],
  [130, d('tool.started', { toolCallId: 'call_1', name: 'bash', kind: 'execute', title: 'npm run lint' }, tool('call_1'))],
  [400, d('tool.progress', { toolCallId: 'call_1', outputDelta: 'src/a.ts:1:1 error no-unused-vars' }, tool('call_1'))],
  [970, d('tool.completed', { toolCallId: 'call_1', name: 'bash', summary: 'exit 0, 12 lines', durationMs: 840, receipt: { exitCode: 0, lines: 12 } }, tool('call_1'))],
  [980, d('tool.started', { toolCallId: 'call_2', name: 'read_file', kind: 'read', title: 'src/missing.ts' }, tool('call_2'))],
  // No durationMs in the payload: renderers derive it from the timestamps (1,100 ms).
  [2080, d('tool.failed', { toolCallId: 'call_2', name: 'read_file', cause: 'FILESYSTEM_ERROR', message: 'ENOENT: no such file' }, tool('call_2'))],
  [2100, d('tool.started', { toolCallId: 'call_3', name: 'edit_file', kind: 'edit', title: 'src/a.ts' }, tool('call_3'))],
  [2350, d('file.changed', { changes: [{ path: 'src/a.ts', kind: 'modify' }], toolCallId: 'call_3' }, tool('call_3'))],
  [2360, d('tool.completed', { toolCallId: 'call_3', name: 'edit_file', summary: '1 file changed', durationMs: 260 }, tool('call_3'))],
  [2400, d('tool.started', { toolCallId: 'call_4', name: 'git_commit', kind: 'execute', title: 'git commit -m "fix lint"' }, tool('call_4'))],
  [2410, d('user.approval.requested', { approvalId: 'ap1', toolCallId: 'call_4', toolName: 'git_commit', action: 'commit 1 file', options: ['allow', 'allow-always', 'deny'] }, tool('ap1'))],
  [2420, d('user.approval.settled', { approvalId: 'ap1', outcome: 'deny', reason: 'no-tty' }, tool('ap1'))],
  [2430, d('tool.denied', { toolCallId: 'call_4', name: 'git_commit', reason: 'gated tool denied without a TTY' }, tool('call_4'))],
  [2500, d('diagnostic.raised', { code: 'MINICODE_E_GATED_TOOL', message: 'git_commit is gated and there is no TTY', action: 'commit from your CI workflow instead' }, turn)],
  [2600, d('assistant.message.delta', { messageId: 'm2', delta: 'Fixed the unused variable in src/a.ts.\n' }, turn)],
  [2650, d('assistant.message.delta', { messageId: 'm2', delta: 'I could not commit: git_commit was denied.' }, turn)],
  [2700, d('assistant.message.completed', { messageId: 'm2', text: 'Fixed the unused variable in src/a.ts.\nI could not commit: git_commit was denied.' }, turn)],
  [2710, d('usage.reported', { usage: { inputTokens: 1200, outputTokens: 85 }, cumulative: false, scope: 'request', costUsd: 0.0049 }, turn)],
  [2720, d('model.response.completed', { responseId: 'msg_01', outcome: 'completed', stopReason: 'end_turn', usage: { inputTokens: 1200, outputTokens: 85 } }, turn)],
  [2730, d('result.produced', { source: 'submit_result', result: { fixed: 1, committed: false } }, turn)],
  [2740, d('task.completed', { taskId: 't1', reason: 'completed', durationMs: 2738, steps: 4 }, turn)],
  [2750, d('session.ended', { outcome: 'completed', reason: 'completed', durationMs: 2750 })],
]);

// An approval that is allowed, then the tool runs; a tool title with hostile escape sequences.
write('approval', 'ses_approval', [
  [0, d('session.started', { origin: 'exec', provider: 'openai', model: 'gpt-4o' })],
  [1, d('task.started', { taskId: 't1', prompt: 'clean the build directory' }, turn)],
  [50, d('tool.started', { toolCallId: 'call_a', name: 'bash', kind: 'execute', title: 'rm -rf build \u001b[2J\u001b]0;pwned\u0007\u202eevil' }, tool('call_a'))],
  [60, d('user.approval.requested', { approvalId: 'ap1', toolCallId: 'call_a', toolName: 'bash', action: 'run `rm -rf build`', options: ['allow', 'allow-always', 'deny'] }, tool('ap1'))],
  [1560, d('user.approval.settled', { approvalId: 'ap1', outcome: 'allow', reason: 'user' }, tool('ap1'))],
  [1860, d('tool.completed', { toolCallId: 'call_a', name: 'bash', summary: 'exit 0', durationMs: 1810, receipt: { exitCode: 0 } }, tool('call_a'))],
  [1900, d('file.changed', { changes: [{ path: 'build/out.js', kind: 'delete' }, { path: 'build/map.js', kind: 'delete' }], toolCallId: 'call_a' }, turn)],
  [1950, d('assistant.message.completed', { messageId: 'm1', text: 'Removed build/.' }, turn)],
  [1960, d('usage.reported', { usage: { inputTokens: 300, outputTokens: 20 }, cumulative: false, scope: 'request' }, turn)],
  [2000, d('task.completed', { taskId: 't1', reason: 'completed', durationMs: 1999, steps: 1 }, turn)],
]);

// A stream that stops mid-run: deltas, a running tool, no terminal events (rebuilds as interrupted).
write('truncated', 'ses_truncated', [
  [0, d('session.started', { origin: 'ingest', format: 'anthropic' })],
  [1, d('task.started', { taskId: 't1' }, turn)],
  [20, d('assistant.message.delta', { messageId: 'm1', delta: 'Let me check the ' }, turn)],
  [40, d('assistant.message.delta', { messageId: 'm1', delta: 'tests' }, turn)],
  [60, d('tool.started', { toolCallId: 'call_t', name: 'bash', kind: 'execute', title: 'npm test' }, tool('call_t'))],
  [900, d('tool.progress', { toolCallId: 'call_t', message: 'running 42 tests' }, tool('call_t'))],
]);

// A failed run: provider errors, a retry that does not help, the task fails.
write('failed-run', 'ses_failed', [
  [0, d('session.started', { origin: 'exec', provider: 'anthropic', model: 'claude-sonnet-4-5' })],
  [1, d('task.started', { taskId: 't1', prompt: 'summarise the diff' }, turn)],
  [100, d('error.raised', { error: { category: 'PROVIDER_ERROR', code: 'overloaded_error', message: 'Overloaded', recoverability: 'RETRYABLE', httpStatus: 529 } }, turn)],
  [110, d('recovery.started', { strategy: 'retry', reason: 'HTTP 529 overloaded', attempt: 1, delayMs: 1000 }, turn)],
  [1200, d('tool.started', { toolCallId: 'call_x', name: 'bash', kind: 'execute', title: 'git diff' }, tool('call_x'))],
  [1500, d('tool.cancelled', { toolCallId: 'call_x', name: 'bash', reason: 'aborted', durationMs: 300 }, tool('call_x'))],
  [1600, d('recovery.failed', { strategy: 'retry', cause: { category: 'PROVIDER_ERROR', code: 'MINICODE_E_PROVIDER', message: '3 retries exhausted', recoverability: 'FATAL' } }, turn)],
  [1610, d('task.failed', { taskId: 't1', reason: 'provider', error: { category: 'PROVIDER_ERROR', code: 'MINICODE_E_PROVIDER', message: '3 retries exhausted', recoverability: 'FATAL', action: 'try again later or pick another provider' }, durationMs: 1609 }, turn)],
  [1620, d('session.ended', { outcome: 'failed', reason: 'provider', durationMs: 1620 })],
]);
