/**
 * A fast-check arbitrary of plausible (and some implausible) event sequences for one session:
 * parallel tools with approvals, second terminals and terminals without a start, messages with
 * deltas, usage reports, task terminals (sometimes two), and an optional session end. Every
 * sequence is enveloped with a deterministic clock, so a failing seed reproduces byte for byte.
 */
import fc from 'fast-check';
import { createEnveloper, draft, type EventDraft, type OutputEvent } from '../../lib/events/index.js';

type ToolTerminal = 'completed' | 'failed' | 'denied' | 'cancelled';

export interface ToolPlan {
  withStart: boolean;
  terminals: ToolTerminal[];
  approval: 'none' | 'allow' | 'deny' | 'open';
}

export interface RunPlan {
  tools: ToolPlan[];
  messages: { deltas: number; final: 'completed' | 'truncated' | 'none' }[];
  usage: { cumulative: boolean; input?: number; output?: number; cost?: number }[];
  taskTerminals: ('completed' | 'failed' | 'cancelled')[];
  sessionEnd: 'completed' | 'failed' | 'cancelled' | 'none';
  /** Picks which pending queue emits next (interleaving of parallel work). */
  picks: number[];
}

const toolPlan: fc.Arbitrary<ToolPlan> = fc.record({
  withStart: fc.constantFrom(true, true, true, false), // mostly started; sometimes a terminal without a start
  terminals: fc.array(fc.constantFrom<ToolTerminal>('completed', 'failed', 'denied', 'cancelled'), { maxLength: 2 }),
  approval: fc.constantFrom<ToolPlan['approval']>('none', 'none', 'allow', 'deny', 'open'),
});

/** A run plan. */
export const runPlan: fc.Arbitrary<RunPlan> = fc.record({
  tools: fc.array(toolPlan, { maxLength: 6 }),
  messages: fc.array(
    fc.record({
      deltas: fc.nat(4),
      final: fc.constantFrom<'completed' | 'truncated' | 'none'>('completed', 'completed', 'truncated', 'none'),
    }),
    { maxLength: 3 },
  ),
  usage: fc.array(
    fc.record(
      {
        cumulative: fc.boolean(),
        input: fc.nat(5000),
        output: fc.nat(5000),
        cost: fc.double({ min: 0, max: 1, noNaN: true }),
      },
      { requiredKeys: ['cumulative'] },
    ),
    {
      maxLength: 3,
    },
  ),
  taskTerminals: fc.array(fc.constantFrom<'completed' | 'failed' | 'cancelled'>('completed', 'failed', 'cancelled'), {
    maxLength: 2,
  }),
  sessionEnd: fc.constantFrom<RunPlan['sessionEnd']>('completed', 'failed', 'cancelled', 'none'),
  picks: fc.array(fc.nat(100), { minLength: 64, maxLength: 64 }),
});

const ERROR = {
  category: 'PROVIDER_ERROR',
  code: 'overloaded_error',
  message: 'Overloaded',
  recoverability: 'RETRYABLE',
} as const;

function toolDrafts(i: number, t: ToolPlan): EventDraft[] {
  const id = `call_${i}`;
  const out: EventDraft[] = [];
  if (t.withStart)
    out.push(draft('tool.started', { toolCallId: id, name: 'bash', kind: 'execute', title: `cmd ${i}` }));
  if (t.approval !== 'none') {
    out.push(draft('user.approval.requested', { approvalId: `ap_${i}`, toolCallId: id, action: `run cmd ${i}` }));
    if (t.approval !== 'open')
      out.push(draft('user.approval.settled', { approvalId: `ap_${i}`, outcome: t.approval, reason: 'user' }));
  }
  out.push(draft('tool.progress', { toolCallId: id, message: 'working' }));
  for (const term of t.terminals) {
    if (term === 'completed')
      out.push(draft('tool.completed', { toolCallId: id, summary: 'exit 0', receipt: { exitCode: 0 } }));
    if (term === 'failed') out.push(draft('tool.failed', { toolCallId: id, cause: 'TOOL_ERROR', message: 'exit 1' }));
    if (term === 'denied') out.push(draft('tool.denied', { toolCallId: id, reason: 'policy' }));
    if (term === 'cancelled') out.push(draft('tool.cancelled', { toolCallId: id, reason: 'aborted' }));
  }
  return out;
}

function messageDrafts(i: number, m: RunPlan['messages'][number]): EventDraft[] {
  const id = `msg_${i}`;
  const out: EventDraft[] = [];
  for (let d = 0; d < m.deltas; d++) out.push(draft('assistant.message.delta', { messageId: id, delta: `part${d} ` }));
  if (m.final === 'completed') out.push(draft('assistant.message.completed', { messageId: id, text: `message ${i}` }));
  if (m.final === 'truncated')
    out.push(draft('assistant.message.truncated', { messageId: id, text: `mess`, reason: 'stream-ended' }));
  return out;
}

/** Turn a plan into enveloped events; `complete` appends the terminals, else the run stops early. */
export function eventsOf(plan: RunPlan, sessionId = 'sess-prop'): OutputEvent[] {
  let tick = 0;
  const env = createEnveloper({ sessionId, clock: () => Date.UTC(2025, 0, 1) + (tick += 37) });
  const queues: EventDraft[][] = [
    ...plan.tools.map((t, i) => toolDrafts(i, t)),
    ...plan.messages.map((m, i) => messageDrafts(i, m)),
    plan.usage.map((u) => {
      const usage: { inputTokens?: number; outputTokens?: number } = {};
      if (u.input !== undefined) usage.inputTokens = u.input;
      if (u.output !== undefined) usage.outputTokens = u.output;
      return u.cost === undefined
        ? draft('usage.reported', { usage, cumulative: u.cumulative, scope: 'request' })
        : draft('usage.reported', { usage, cumulative: u.cumulative, scope: 'request', costUsd: u.cost });
    }),
  ].filter((q) => q.length > 0);
  const drafts: EventDraft[] = [
    draft('session.started', { origin: 'exec', provider: 'anthropic', model: 'claude' }),
    draft('task.started', { taskId: 't1', prompt: 'do it' }),
  ];
  let p = 0;
  while (queues.length > 0) {
    const q = (plan.picks[p++ % plan.picks.length] as number) % queues.length;
    const queue = queues[q] as EventDraft[];
    drafts.push(queue.shift() as EventDraft);
    if (queue.length === 0) queues.splice(q, 1);
  }
  for (const term of plan.taskTerminals) {
    if (term === 'completed') drafts.push(draft('task.completed', { taskId: 't1', reason: 'completed' }));
    if (term === 'failed') drafts.push(draft('task.failed', { taskId: 't1', reason: 'provider', error: ERROR }));
    if (term === 'cancelled') drafts.push(draft('task.cancelled', { taskId: 't1', reason: 'aborted' }));
  }
  if (plan.sessionEnd !== 'none') drafts.push(draft('session.ended', { outcome: plan.sessionEnd }));
  return drafts.map((d) => env.wrap(d));
}

/** JSON of a state without its transient `live` field. */
export function durableJson(state: object): string {
  return JSON.stringify({ ...state, live: undefined });
}

/** Freeze an object graph so that any mutation throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
