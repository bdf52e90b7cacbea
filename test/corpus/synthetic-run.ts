/**
 * A synthetic, hand-made long agent run in the real `minicode.output.v1` envelope: one task of
 * repeated steps (response start, message deltas, final message, a tool call with a receipt,
 * usage, response end). Deterministic: the clock is a counter. Shared by bench/store.ts and the
 * store crash test's child process.
 */
import { createEnveloper, draft, type EventDraft, type OutputEvent } from '../../lib/events/index.js';

/** Options of {@link syntheticRun}. */
export interface SyntheticRunOptions {
  sessionId: string;
  /** Number of steps; each step is 10 events (4 of them live deltas). */
  steps: number;
  /** Append task.completed and session.ended; default true. */
  complete?: boolean;
}

function stepDrafts(i: number): EventDraft[] {
  const messageId = `msg_${i}`;
  const toolCallId = `call_${i}`;
  return [
    draft('model.response.started', { responseId: `resp_${i}`, model: 'claude-sonnet-4-5', provider: 'anthropic' }),
    draft('assistant.message.delta', { messageId, delta: 'Let me run ' }),
    draft('assistant.message.delta', { messageId, delta: `the tests for module ${i} ` }),
    draft('assistant.message.delta', { messageId, delta: 'and check the output.' }),
    draft('assistant.message.completed', {
      messageId,
      text: `Let me run the tests for module ${i} and check the output.`,
    }),
    draft(
      'tool.started',
      { toolCallId, name: 'bash', kind: 'execute', title: `npm test -- module-${i}` },
      { correlationId: toolCallId },
    ),
    draft('tool.progress', { toolCallId, message: 'running' }, { correlationId: toolCallId }),
    draft(
      'tool.completed',
      { toolCallId, name: 'bash', summary: 'exit 0, 12 lines', durationMs: 840, receipt: { exitCode: 0, lines: 12 } },
      { correlationId: toolCallId },
    ),
    draft('usage.reported', {
      usage: { inputTokens: 1200 + i, outputTokens: 85, cacheReadTokens: 1000 },
      cumulative: false,
      scope: 'request',
      costUsd: 0.0049,
    }),
    draft('model.response.completed', { responseId: `resp_${i}`, outcome: 'completed', stopReason: 'tool_use' }),
  ];
}

/** The events of a synthetic run, enveloped. */
export function* syntheticRun(options: SyntheticRunOptions): Generator<OutputEvent> {
  let tick = 0;
  const env = createEnveloper({ sessionId: options.sessionId, clock: () => Date.UTC(2025, 0, 1) + (tick += 3) });
  yield env.wrap(
    draft('session.started', { origin: 'exec', provider: 'anthropic', model: 'claude-sonnet-4-5', cwd: '/work/app' }),
  );
  yield env.wrap(draft('task.started', { taskId: 'task_1', prompt: 'make the test suite pass' }));
  for (let i = 0; i < options.steps; i++) for (const d of stepDrafts(i)) yield env.wrap(d);
  if (options.complete ?? true) {
    yield env.wrap(draft('task.completed', { taskId: 'task_1', reason: 'completed', steps: options.steps }));
    yield env.wrap(draft('session.ended', { outcome: 'completed', reason: 'completed' }));
  }
}
