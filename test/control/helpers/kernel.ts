/**
 * A scripted kernel for the control-plane tests: the smallest agent loop that wires the real
 * pieces together (compaction controller over the real worker pool, retry policy, usage
 * collector, budget watcher, termination with its one settle point). The "provider" is a
 * script: a function from the request to a reply or a thrown error.
 */
import { watchBudgetLimit, type Budget } from '../../../lib/control/budget.js';
import type { CompactionController } from '../../../lib/control/compaction.js';
import { estimateContextInPool } from '../../../lib/control/offload.js';
import { withRetry, type FailureClass } from '../../../lib/control/retry.js';
import { settleRun, type Settled, type Termination } from '../../../lib/control/termination.js';
import type { Timers } from '../../../lib/control/timers.js';
import type { FixedContext, TranscriptMessage } from '../../../lib/control/transcript.js';
import type { UsageCollector } from '../../../lib/control/usage.js';
import type { Usage } from '../../../lib/events/payloads.js';

/** What the scripted provider returns. */
export interface Reply {
  text: string;
  toolCalls?: { id: string; name: string; argumentsText: string }[];
  usage?: Usage;
}

/** A provider error as the adapters would throw it. */
export class ScriptedProviderError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly contextLength = false,
    readonly retryAfterMs?: number,
  ) {
    super(`provider said ${status}`);
  }
}

export interface KernelInput {
  turn?: number;
  fixed?: FixedContext;
  messages: TranscriptMessage[];
  provider: (req: { messages: TranscriptMessage[]; signal: AbortSignal; attempt: number }) => Promise<Reply>;
  controller: CompactionController;
  termination: Termination;
  usage: UsageCollector;
  budget?: Budget;
  maxSteps?: number;
  timers?: Timers;
  /** Retry backoff jitter source; default `Math.random`. */
  random?: () => number;
  /** Called on the kernel's own loop with the running transcript, for assertions. */
  onStep?: (messages: TranscriptMessage[]) => void;
}

const classify = (e: unknown): FailureClass => {
  if (e instanceof ScriptedProviderError) {
    const c: FailureClass = { retryable: e.status === 429 || e.status >= 500 };
    if (e.retryAfterMs !== undefined) c.retryAfterMs = e.retryAfterMs;
    return c;
  }
  return { retryable: false };
};

/** Run one turn to its single settle point. */
export async function runTurn(input: KernelInput): Promise<Settled<string> & { messages: TranscriptMessage[]; poolEstimates: number[] }> {
  const poolEstimates: number[] = [];
  const turn = input.turn ?? 1;
  const fixed = input.fixed ?? { system: 'You are a coding agent.', toolSchemas: ['{"name":"bash","parameters":{"type":"object"}}'] };
  const maxSteps = input.maxSteps ?? 10;
  let messages = input.messages;
  const watchdog = new AbortController();
  watchdog.signal.addEventListener('abort', () => input.termination.request('budget_exceeded', (watchdog.signal.reason as { message: string }).message));
  const watcher = input.budget ? watchBudgetLimit(input.budget, watchdog) : undefined;
  input.controller.beginTurn(turn);
  let requests = 0;

  const settled = await settleRun(input.termination, async (signal) => {
    for (let step = 0; ; step++) {
      if (step >= maxSteps) {
        input.termination.request('max_steps_exceeded', `step ${step} reached maxSteps ${maxSteps}`);
        signal.throwIfAborted();
      }
      const decision = await input.controller.beforeStep({ turn, fixed, messages, signal });
      messages = decision.messages;
      if (decision.action === 'terminate') {
        input.termination.request('budget_exceeded', 'context still critical after compaction');
        signal.throwIfAborted();
      }
      input.onStep?.(messages);
      // The context figure for /status: an exact o200k count in the worker pool.
      const exact = await estimateContextInPool(fixed, messages, { mode: 'exact', signal });
      if (exact.ok) poolEstimates.push(exact.value.tokens);
      signal.throwIfAborted();
      let reply: Reply;
      for (;;) {
        try {
          const requestId = `r${++requests}`;
          input.usage.begin(requestId, { provider: 'openai', model: 'gpt-4.1', turn });
          reply = await withRetry({
            provider: 'openai',
            signal,
            ...(input.timers ? { timers: input.timers } : {}),
            ...(input.random ? { random: input.random } : {}),
            classify,
            call: ({ signal: s, attempt }) => input.provider({ messages, signal: s, attempt }),
          });
          if (reply.usage) input.usage.record({ requestId, usage: reply.usage, cumulative: false, scope: 'request', provider: 'openai', model: 'gpt-4.1', turn });
          watcher?.check(input.usage.session().costUsd);
          signal.throwIfAborted();
          break;
        } catch (error) {
          if (error instanceof ScriptedProviderError && error.contextLength) {
            const d = await input.controller.onContextLengthError({ turn, fixed, messages, signal });
            messages = d.messages;
            if (d.action === 'terminate') {
              input.termination.request('budget_exceeded', 'context-length error after recovery compaction');
              signal.throwIfAborted();
            }
            continue; // the recovery retry is not a provider retry
          }
          throw error;
        }
      }
      messages = [...messages, { role: 'assistant', text: reply.text, ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}) }];
      if (!reply.toolCalls || reply.toolCalls.length === 0) return reply.text;
      for (const c of reply.toolCalls) messages.push({ role: 'tool', toolCallId: c.id, content: `ran ${c.name}` });
    }
  });
  return { ...settled, messages, poolEstimates };
}
