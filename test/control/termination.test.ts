/**
 * The termination contract (seed control-plane-map §5): every reason, one settle point, first
 * request wins. Each reason is reached by the agent loop itself (`runAgent`), through the seams
 * it takes: a scripted provider on a loopback HTTP server (its real request, retry and decoding
 * path), manual timers, the backoff's random source; compaction goes through the worker pool
 * when the fold is large enough.
 */
import { PLAIN_RECIPE, promptSettings } from '../../lib/agent/prompt-settings.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../lib/agent/conversation.js';
import { toTranscript } from '../../lib/agent/context.js';
import { NO_PERSON } from '../../lib/agent/interaction.js';
import { runAgent, type AgentOptions } from '../../lib/agent/loop.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createContextEstimator } from '../../lib/control/estimate.js';
import { closePool } from '../../lib/control/pool.js';
import {
  createRunGuard,
  createTermination,
  joinSignals,
  kindOfAbort,
  settleRun,
  withAbort,
} from '../../lib/control/termination.js';
import { createManualTimers } from '../helpers/manual-timers.js';
import { capSystemPrompt } from '../../lib/control/truncation.js';
import type { TranscriptMessage } from '../../lib/control/transcript.js';
import type { EventDraft } from '../../lib/events/index.js';
import { TerminationReason } from '../../lib/events/enums.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { toolShapeFor } from '../../lib/tools/shapes.js';
import {
  startScriptedProvider,
  type Answer,
  type Reply,
  type ScriptedProvider,
  type SeenRequest,
} from '../helpers/scripted-provider.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';
import { transcript } from './helpers/transcripts.js';
import { waitFor } from '../helpers/wait.js';

const servers: ScriptedProvider[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await closePool();
});
const scratch = scratchDirs('minicode-termination-');

/** A scripted provider answering each request with `answer`. */
async function serve(answer: (request: SeenRequest) => Answer | Promise<Answer>): Promise<ScriptedProvider> {
  const server = await startScriptedProvider(answer);
  servers.push(server);
  return server;
}

/** One run of the agent loop against `server`, in a scratch workspace; its events are collected (and shown to `onEvent` as they come). */
async function run(
  server: ScriptedProvider,
  options: Partial<Pick<AgentOptions, 'history' | 'prompting' | 'signal' | 'timers' | 'random'>> & {
    limits?: Parameters<typeof runLimits>[0];
    onEvent?: (draft: EventDraft) => void;
  } = {},
) {
  const cwd = scratch();
  fs.writeFileSync(path.join(cwd, 'README.md'), 'a sample project\n');
  const events: EventDraft[] = [];
  const result = await runAgent({
    prompt: 'go',
    provider: server.settings,
    limits: runLimits(options.limits),
    environment: toolEnvironment(cwd, { env: {} }),
    interaction: NO_PERSON,
    tools: createToolRegistry(),
    history: options.history,
    prompting: options.prompting,
    signal: options.signal,
    timers: options.timers,
    random: options.random,
    emit: (d) => {
      events.push(d);
      options.onEvent?.(d);
    },
  });
  return { result, events };
}

/** The control plane's hand-made transcripts as the loop's conversation (tool results named after their call). */
function conversation(messages: readonly TranscriptMessage[]): ConversationMessage[] {
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch covers every role (tsc checks it is exhaustive).
  return messages.map((m): ConversationMessage => {
    switch (m.role) {
      case 'user':
      case 'system':
        return { role: 'user', text: m.text };
      case 'assistant':
        return { role: 'assistant', text: m.text, ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}) };
      case 'tool':
        return { role: 'tool', toolCallId: m.toolCallId, name: 'bash', content: m.content };
    }
  });
}

/** Wait until the run reached a point (its requests are real HTTP), failing if it never does. */
async function until(cond: () => boolean): Promise<void> {
  await waitFor(cond, { what: 'the run to reach the awaited point' });
}

const contextTooLong: Answer = {
  status: 400,
  code: 'context_length_exceeded',
  message: "This model's maximum context length is 8192 tokens.",
};
const done: Reply = { text: 'all done', usage: { inputTokens: 100, outputTokens: 10 } };
const toolStep = (n: number): Reply => ({
  text: `step ${n}`,
  toolCalls: [{ id: `c${n}`, name: 'glob', argumentsText: '{"pattern":"*.md"}' }],
  usage: { inputTokens: 100, outputTokens: 10 },
});
const compactions = (events: EventDraft[]): unknown[] =>
  events.filter((e) => e.type === 'context.compacted').map((e) => e.type === 'context.compacted' && e.payload.reason);

describe('termination reasons of the agent loop', () => {
  it('completed: the model answered without tool calls', async () => {
    const server = await serve(({ n }) => (n <= 2 ? toolStep(n) : done));
    const { result, events } = await run(server);
    expect(result).toMatchObject({ reason: 'completed', finalText: 'all done', steps: 3 });
    expect(server.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'task.completed', payload: { reason: 'completed', steps: 3 } });
  });

  it('max_steps_exceeded: the step index reached maxSteps', async () => {
    const server = await serve(({ n }) => toolStep(n));
    const { result, events } = await run(server, { limits: { maxSteps: 3 } });
    expect(result.reason).toBe('max_steps_exceeded');
    expect(result.error?.code).toBe('MINICODE_E_MAX_STEPS');
    expect(server.requests).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'task.failed', payload: { reason: 'max_steps_exceeded' } });
  });

  it('timeout: the run deadline aborts a provider stream that hangs, and the same signal reaches it', async () => {
    const timers = createManualTimers();
    const server = await serve(() => 'hang');
    const pending = run(server, { timers, limits: { timeoutMs: 60_000 } });
    await until(() => server.requests.length === 1);
    await timers.advance(60_000);
    const { result, events } = await pending;
    expect(result.reason).toBe('timeout');
    expect(result.error?.code).toBe('MINICODE_E_TIMEOUT');
    // The request's own connection was closed by the run's signal.
    await until(() => server.abandoned === 1);
    expect(events.filter((e) => e.type === 'task.cancelled').map((e) => e.payload)).toMatchObject([
      { reason: 'timeout' },
    ]);
  });

  it('timeout: a retry wait is cancelled by the run deadline', async () => {
    const timers = createManualTimers();
    const server = await serve(() => ({
      status: 529,
      code: 'overloaded_error',
      message: 'Overloaded',
      retryAfterMs: 20_000,
    }));
    const pending = run(server, { timers, limits: { timeoutMs: 1_500 } });
    await until(() => timers.requested.includes(20_000));
    await timers.advance(1_500);
    const { result } = await pending;
    expect(result.reason).toBe('timeout');
    expect(server.requests).toHaveLength(1);
  });

  it('budget_exceeded: the in-flight watcher aborts once when live cost goes over the budget', async () => {
    const expensive = (n: number): Reply => ({ ...toolStep(n), usage: { inputTokens: 400_000, outputTokens: 1_000 } });
    const server = await serve(({ n }) => expensive(n));
    const { result, events } = await run(server, { limits: { budget: { limitUsd: 1 } } });
    expect(result.reason).toBe('budget_exceeded');
    expect(result.error?.code).toBe('MINICODE_E_BUDGET_EXCEEDED');
    expect(server.requests).toHaveLength(2); // $0.808 after one request, $1.616 after two
    expect(result.usage.costUsd).toBeCloseTo(1.616, 6);
    expect(events.filter((e) => e.type === 'task.cancelled')).toHaveLength(1);
  });

  it('budget_exceeded: still critical after the pressure compaction', async () => {
    const server = await serve(() => done);
    const system = 'x'.repeat(8_000);
    // The window the run's own fixed context (system prompt, the tools in the shape the scripted model gets) and prompt fill to 97%.
    const fixed = {
      system: capSystemPrompt(system).text,
      toolSchemas: toolShapeFor(server.settings.format, server.settings.model)
        .offer(createToolRegistry())
        .map((d) => JSON.stringify(d)),
    };
    const estimate = createContextEstimator().estimate(
      fixed,
      toTranscript([{ role: 'user', text: 'go' }], 'openai-chat'),
    );
    const { result, events } = await run(server, {
      prompting: promptSettings({ recipe: { ...PLAIN_RECIPE, base: system } }),
      limits: { contextWindow: Math.ceil(estimate / 0.97) },
    });
    expect(result.reason).toBe('budget_exceeded');
    expect(compactions(events)).toEqual(['pressure:0.97:no-op']);
    expect(server.requests).toHaveLength(0);
  });

  it('budget_exceeded: a second context-length error in the turn, after one recovery compaction', async () => {
    const server = await serve(() => contextTooLong);
    const { result, events } = await run(server, { history: conversation(transcript(8)) });
    expect(result.reason).toBe('budget_exceeded');
    expect(server.requests).toHaveLength(2); // the recovery retry is not a provider retry (no backoff retries)
    expect(compactions(events)).toEqual(['recovery']);
  });

  it('a recovery compaction (folded in the worker pool) lets the request succeed on its retry', async () => {
    // Over a MiB of tool output: the fold runs in the pool, and leaves a request a fraction of the size.
    const history = conversation(transcript(8, { resultChars: 140_000 }));
    const server = await serve(({ chars }) => (chars > 500_000 ? contextTooLong : done));
    const { result, events } = await run(server, { history });
    expect(result.reason).toBe('completed');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.chars).toBeGreaterThan(1024 * 1024);
    expect(server.requests[1]!.chars).toBeLessThan(500_000);
    expect(compactions(events)).toEqual(['recovery']);
  });

  it('aborted: a user abort (no kind) settles as aborted, distinct from a budget abort', async () => {
    const user = new AbortController();
    const server = await serve(() => 'hang');
    const pending = run(server, { signal: user.signal });
    await until(() => server.requests.length === 1);
    user.abort();
    const { result, events } = await pending;
    expect(result.reason).toBe('aborted');
    expect(result.error?.code).toBe('MINICODE_E_ABORTED');
    await until(() => server.abandoned === 1);
    expect(events.filter((e) => e.type === 'task.cancelled').map((e) => e.payload)).toMatchObject([
      { reason: 'aborted' },
    ]);
  });

  it("a run cancelled mid-stream ends with its terminal event: the response's own end comes before task.cancelled", async () => {
    const user = new AbortController();
    const server = await serve(() => ({ hangAfter: 'half an ans' }));
    let streaming = false;
    const pending = run(server, {
      signal: user.signal,
      onEvent: (e) => (streaming ||= e.type === 'assistant.message.delta'),
    });
    await until(() => streaming);
    user.abort();
    const { result, events } = await pending;
    expect(result.reason).toBe('aborted');
    const types = events.map((e) => e.type);
    expect(types).toContain('model.response.completed');
    expect(types.at(-1)).toBe('task.cancelled');
    expect(types.filter((t) => t.startsWith('task.') && t !== 'task.started')).toEqual(['task.cancelled']);
  });

  it('provider: a provider error after the retries are exhausted (3 retries, waits up to 1/2/4 s)', async () => {
    const timers = createManualTimers();
    const server = await serve(() => ({
      status: 500,
      code: 'server_error',
      message: 'The server had an error while processing your request.',
    }));
    // The top of each jitter window, so the waits are the table's bounds.
    const pending = run(server, { timers, random: () => 0.999_999 });
    for (const [calls, wait] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
    ] as const) {
      await until(() => server.requests.length === calls && timers.requested.includes(wait));
      await timers.advance(wait);
    }
    const { result, events } = await pending;
    expect(result.reason).toBe('provider');
    expect(result.error).toMatchObject({ category: 'PROVIDER_ERROR' });
    expect(server.requests).toHaveLength(4);
    expect(timers.requested.filter((ms) => ms !== 300_000)).toEqual([1000, 2000, 4000]);
    expect(events.filter((e) => e.type === 'recovery.started')).toHaveLength(3);
  });

  it('provider: a non-retryable error stops at once', async () => {
    const server = await serve(() => ({
      status: 401,
      code: 'invalid_api_key',
      message: 'Incorrect API key provided.',
    }));
    const { result } = await run(server);
    expect(result.reason).toBe('provider');
    expect(server.requests).toHaveLength(1);
  });

  it('busy: a run started while another runs settles busy and leaves the first alone', async () => {
    const guard = createRunGuard();
    let release!: () => void;
    const server = await serve(() => new Promise<Answer>((resolve) => (release = () => resolve(done))));
    const first = guard.run(createTermination(), () => run(server));
    await until(() => server.requests.length === 1);
    expect(guard.running).toBe(true);
    const second = await guard.run(createTermination(), async () => 'second');
    expect(second.reason).toBe('busy');
    expect(second.error?.code).toBe('MINICODE_E_BUSY');
    release();
    const r = await first;
    expect(r.reason).toBe('completed');
    expect(r.value?.result).toMatchObject({ reason: 'completed', finalText: 'all done' });
  });

  it('the tests above cover every reason of the event contract (result_invalid: test/exec/typed-result.test.ts, hook_stopped: test/hooks/hooks-exec.test.ts, through the real loop)', () => {
    expect(TerminationReason.options).toEqual([
      'completed',
      'max_steps_exceeded',
      'timeout',
      'budget_exceeded',
      'aborted',
      'provider',
      'busy',
      'result_invalid',
      'hook_stopped',
    ]);
  });
});

describe('one reason, one settle point', () => {
  it('the first request wins and later ones are ignored', async () => {
    const t = createTermination();
    expect(t.request('timeout')).toBe(true);
    expect(t.request('budget_exceeded')).toBe(false);
    expect(t.request('aborted')).toBe(false);
    expect(t.reason?.kind).toBe('timeout');
    expect(kindOfAbort(t.signal.reason)).toBe('timeout');
  });

  it('a body that finishes after a stop was requested still settles with the requested reason', async () => {
    const t = createTermination();
    const r = await settleRun(t, async () => {
      t.request('max_steps_exceeded');
      return 'late value';
    });
    expect(r.reason).toBe('max_steps_exceeded');
    expect(r.value).toBeUndefined();
  });

  it('a stopped body is waited for until it unwinds, and for drainMs at most when it ignores its signal', async () => {
    const timers = createManualTimers();
    const unwinding = createTermination();
    let unwound = false;
    const first = settleRun(
      unwinding,
      (signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            void Promise.resolve().then(() => {
              unwound = true;
              reject(signal.reason);
            });
          }),
        ),
      { timers },
    );
    unwinding.request('aborted');
    expect((await first).reason).toBe('aborted');
    expect(unwound).toBe(true);

    const deaf = createTermination();
    let settled = false;
    const second = settleRun(deaf, () => new Promise(() => {}), { timers, drainMs: 1_000 }).then((r) => {
      settled = true;
      return r;
    });
    deaf.request('timeout');
    await timers.advance(999);
    expect(settled).toBe(false);
    await timers.advance(1);
    expect((await second).reason).toBe('timeout');
  });

  it('joinSignals aborts with the first input reason and disposes its listeners', () => {
    const a = new AbortController();
    const b = new AbortController();
    const joined = joinSignals(a.signal, undefined, b.signal);
    b.abort({ kind: 'budget_exceeded' });
    a.abort({ kind: 'timeout' });
    expect(kindOfAbort(joined.signal.reason)).toBe('budget_exceeded');
    joined.dispose();
  });

  it('withAbort rejects with the signal reason when the signal wins', async () => {
    const c = new AbortController();
    const p = withAbort(new Promise(() => {}), c.signal);
    c.abort({ kind: 'aborted' });
    await expect(p).rejects.toEqual({ kind: 'aborted' });
  });

  it("a run whose signal is aborted before it begins settles with the abort's reason, and its body's own rejection is handled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const parent = new AbortController();
      parent.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'cancelled' });
      const t = createTermination(parent.signal);
      // The body sees the aborted signal and rejects with its reason, as the agent loop does.
      const r = await settleRun(t, async (signal) => {
        await Promise.resolve();
        throw signal.reason;
      });
      expect(r.reason).toBe('aborted');
      // Node reports an unhandled rejection once the microtasks drained: give it a macrotask.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
