/**
 * The termination contract (seed control-plane-map §5): every reason, one settle point, first
 * request wins. Each run goes through the scripted kernel, whose compaction runs in the real
 * worker pool.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCompactionController } from '../../lib/control/compaction.js';
import { estimateFixedTokens, estimateMessagesTokens } from '../../lib/control/estimate.js';
import { closePool } from '../../lib/control/pool.js';
import { createRunGuard, createTermination, joinSignals, kindOfAbort, settleRun, withAbort } from '../../lib/control/termination.js';
import { createManualTimers } from '../../lib/control/timers.js';
import type { TranscriptMessage } from '../../lib/control/transcript.js';
import { createUsageCollector } from '../../lib/control/usage.js';
import type { EventDraft } from '../../lib/events/index.js';
import { TerminationReason } from '../../lib/events/enums.js';
import { runTurn, ScriptedProviderError, type Reply } from './helpers/kernel.js';
import { transcript } from './helpers/transcripts.js';
import { waitFor } from '../helpers/wait.js';

afterAll(closePool);

function parts(window = 1_000_000, events: EventDraft[] = []) {
  return {
    controller: createCompactionController({ contextWindow: window, onEvent: (e) => events.push(e) }),
    termination: createTermination(),
    usage: createUsageCollector(),
  };
}

/** Wait until the kernel reached a point (pool work is real), failing if it never does. */
async function until(cond: () => boolean): Promise<void> {
  await waitFor(cond, { what: 'the kernel to reach the awaited point' });
}

const done: Reply = { text: 'all done', usage: { inputTokens: 100, outputTokens: 10 } };
const toolStep = (n: number): Reply => ({ text: `step ${n}`, toolCalls: [{ id: `c${n}`, name: 'bash', argumentsText: '{}' }], usage: { inputTokens: 100, outputTokens: 10 } });

describe('termination reasons', () => {
  it('completed: the model answered without tool calls', async () => {
    let n = 0;
    const r = await runTurn({ ...parts(), messages: [{ role: 'user', text: 'go' }], provider: async () => (n++ < 2 ? toolStep(n) : done) });
    expect(r).toMatchObject({ reason: 'completed', value: 'all done' });
    expect(r.poolEstimates).toHaveLength(3);
  });

  it('max_steps_exceeded: the step index reached maxSteps', async () => {
    let n = 0;
    const r = await runTurn({ ...parts(), maxSteps: 3, messages: [{ role: 'user', text: 'go' }], provider: async () => toolStep(n++) });
    expect(r.reason).toBe('max_steps_exceeded');
    expect(r.error?.code).toBe('MINICODE_E_MAX_STEPS');
    expect(n).toBe(3);
    expect(r.poolEstimates).toHaveLength(3);
  });

  it('timeout: the run deadline aborts a provider stream that hangs, and the same signal reaches it', async () => {
    const timers = createManualTimers();
    const p = parts();
    p.termination.deadline(60_000, timers);
    let streamSawAbort = false;
    let called = false;
    const pending = runTurn({
      ...p,
      timers,
      messages: [{ role: 'user', text: 'go' }],
      provider: ({ signal }) => {
        called = true;
        return new Promise((_res, rej) =>
          signal.addEventListener('abort', () => {
            streamSawAbort = true;
            rej(signal.reason);
          }),
        );
      },
    });
    await until(() => called);
    await timers.advance(60_000);
    const r = await pending;
    expect(r.reason).toBe('timeout');
    expect(r.error?.code).toBe('MINICODE_E_TIMEOUT');
    expect(streamSawAbort).toBe(true);
    expect(r.poolEstimates).toHaveLength(1);
  });

  it('timeout: a retry wait is cancelled by the run deadline', async () => {
    const timers = createManualTimers();
    const p = parts();
    p.termination.deadline(1_500, timers);
    let calls = 0;
    const pending = runTurn({
      ...p,
      timers,
      messages: [{ role: 'user', text: 'go' }],
      provider: async () => {
        calls++;
        throw new ScriptedProviderError('overloaded', 529, false, 20_000);
      },
    });
    await until(() => calls === 1);
    await timers.advance(1_500);
    const r = await pending;
    expect(r.reason).toBe('timeout');
    expect(calls).toBe(1);
  });

  it('budget_exceeded: the in-flight watcher aborts once when live cost goes over the budget', async () => {
    let n = 0;
    const expensive = (k: number): Reply => ({ ...toolStep(k), usage: { inputTokens: 400_000, outputTokens: 1_000 } });
    const r = await runTurn({ ...parts(), budget: { limitUsd: 1 }, messages: [{ role: 'user', text: 'go' }], provider: async () => expensive(n++) });
    expect(r.reason).toBe('budget_exceeded');
    expect(r.error?.code).toBe('MINICODE_E_BUDGET_EXCEEDED');
    expect(n).toBe(2); // $0.808 after one request, $1.616 after two
    expect(r.poolEstimates).toHaveLength(2);
  });

  it('budget_exceeded: still critical after the pressure compaction (through the pool)', async () => {
    const events: EventDraft[] = [];
    const heavy = { system: 'x'.repeat(8_000), toolSchemas: ['y'.repeat(30_000)] };
    const messages: TranscriptMessage[] = [{ role: 'user', text: 'go' }];
    const window = Math.ceil((estimateFixedTokens(heavy) + estimateMessagesTokens(messages)) / 0.97);
    const r = await runTurn({ ...parts(window, events), fixed: heavy, messages, provider: async () => done });
    expect(r.reason).toBe('budget_exceeded');
    expect(events.map((e) => e.type === 'context.compacted' && e.payload.reason)).toEqual(['pressure:0.97:no-op']);
  });

  it('budget_exceeded: a second context-length error in the turn, after one recovery compaction', async () => {
    const events: EventDraft[] = [];
    let calls = 0;
    const r = await runTurn({
      ...parts(1_000_000, events),
      messages: transcript(8),
      provider: async () => {
        calls++;
        throw new ScriptedProviderError('context_length_exceeded', 400, true);
      },
    });
    expect(r.reason).toBe('budget_exceeded');
    expect(calls).toBe(2); // the recovery retry is not a provider retry (no backoff retries)
    expect(events.filter((e) => e.type === 'context.compacted').map((e) => e.payload.reason)).toEqual(['recovery']);
  });

  it('a recovery compaction lets the request succeed on its retry', async () => {
    let calls = 0;
    const r = await runTurn({
      ...parts(),
      messages: transcript(8),
      provider: async ({ messages }) => {
        calls++;
        if (estimateMessagesTokens(messages) > 8_000) throw new ScriptedProviderError('context_length_exceeded', 400, true);
        return done;
      },
    });
    expect(r.reason).toBe('completed');
    expect(calls).toBe(2);
  });

  it('aborted: a user abort (no kind) settles as aborted, distinct from a budget abort', async () => {
    const user = new AbortController();
    const p = { ...parts(), termination: createTermination(user.signal) };
    let called = false;
    const pending = runTurn({
      ...p,
      messages: [{ role: 'user', text: 'go' }],
      provider: ({ signal }) => {
        called = true;
        return new Promise((_r, rej) => signal.addEventListener('abort', () => rej(signal.reason)));
      },
    });
    await until(() => called);
    user.abort();
    const r = await pending;
    expect(r.reason).toBe('aborted');
    expect(r.error?.code).toBe('MINICODE_E_ABORTED');
    expect(r.poolEstimates).toHaveLength(1);
  });

  it('provider: a provider error after the retries are exhausted (3 retries, waits up to 1/2/4 s)', async () => {
    const timers = createManualTimers();
    let calls = 0;
    const pending = runTurn({
      ...parts(),
      timers,
      // The top of each jitter window, so the waits are the table's bounds.
      random: () => 0.999_999,
      messages: [{ role: 'user', text: 'go' }],
      provider: async () => {
        calls++;
        throw new ScriptedProviderError('server_error', 500);
      },
    });
    await until(() => calls === 1);
    await timers.advance(7_000);
    const r = await pending;
    expect(r.reason).toBe('provider');
    expect(r.error?.code).toBe('server_error');
    expect(calls).toBe(4);
    expect(r.poolEstimates).toHaveLength(1);
    expect(timers.requested.filter((ms) => ms !== 300_000)).toEqual([1000, 2000, 4000]);
  });

  it('provider: a non-retryable error stops at once', async () => {
    let calls = 0;
    const r = await runTurn({
      ...parts(),
      messages: [{ role: 'user', text: 'go' }],
      provider: async () => {
        calls++;
        throw new ScriptedProviderError('invalid_api_key', 401);
      },
    });
    expect(r.reason).toBe('provider');
    expect(calls).toBe(1);
  });

  it('busy: a run started while another runs settles busy and leaves the first alone', async () => {
    const guard = createRunGuard();
    let release!: () => void;
    let called = false;
    const first = guard.run(createTermination(), () =>
      runTurn({
        ...parts(),
        messages: [{ role: 'user', text: 'go' }],
        provider: () => {
          called = true;
          return new Promise<Reply>((res) => (release = () => res(done)));
        },
      }),
    );
    await until(() => called);
    expect(guard.running).toBe(true);
    const second = await guard.run(createTermination(), async () => 'second');
    expect(second.reason).toBe('busy');
    expect(second.error?.code).toBe('MINICODE_E_BUSY');
    release();
    const r = await first;
    expect(r.reason).toBe('completed');
    expect(r.value).toMatchObject({ reason: 'completed', value: 'all done' });
    expect(r.value?.poolEstimates).toHaveLength(1);
  });

  it('the tests above cover every reason of the event contract', () => {
    expect(TerminationReason.options).toEqual(['completed', 'max_steps_exceeded', 'timeout', 'budget_exceeded', 'aborted', 'provider', 'busy']);
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
