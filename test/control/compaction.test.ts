/**
 * The compaction contract (seed control-plane-map §3), one describe per contract question,
 * driven through the real worker pool (compiled `dist/workers/compact.js`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createCompactionController, type SummaryHook } from '../../lib/control/compaction.js';
import { estimateFixedTokens, estimateMessagesTokens } from '../../lib/control/estimate.js';
import { closePool } from '../../lib/control/pool.js';
import { createManualTimers } from '../helpers/manual-timers.js';
import { capSystemPrompt } from '../../lib/control/truncation.js';
import { groupUnits, type FixedContext, type TranscriptMessage } from '../../lib/control/transcript.js';
import { createUsageCollector } from '../../lib/control/usage.js';
import type { EventDraft } from '../../lib/events/index.js';
import { payloadSchemas } from '../../lib/events/payloads.js';
import { transcript } from './helpers/transcripts.js';

afterAll(closePool);

const fixed: FixedContext = {
  system: 'You are a coding agent.',
  toolSchemas: ['{"name":"bash","parameters":{"type":"object"}}'],
};
const tokens = (f: FixedContext, m: readonly TranscriptMessage[]): number =>
  estimateFixedTokens(f) + estimateMessagesTokens(m);
/** A window that puts `messages` at the given pressure. */
const windowAt = (pressure: number, m: readonly TranscriptMessage[], f = fixed): number =>
  Math.ceil(tokens(f, m) / pressure);

function setup(pressure: number, extra: Partial<Parameters<typeof createCompactionController>[0]> = {}) {
  const messages = transcript(10);
  const events: EventDraft[] = [];
  const controller = createCompactionController({
    contextWindow: windowAt(pressure, messages),
    onEvent: (e) => events.push(e),
    ...extra,
  });
  controller.beginTurn(1);
  return { messages, events, controller };
}

const compactedEvents = (events: EventDraft[]) => events.filter((e) => e.type === 'context.compacted');

describe('who requests a compaction', () => {
  it('the budget path compacts when pressure reaches 0.75', async () => {
    const { messages, events, controller } = setup(0.8);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.action).toBe('continue');
    expect(compactedEvents(events)).toHaveLength(1);
    expect(controller.flags).toEqual({ compactedForBudget: true, compactedForRecovery: false });
  });

  it('the budget path leaves a transcript below 0.75 alone', async () => {
    const { messages, events, controller } = setup(0.7);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.messages).toBe(messages);
    expect(events).toHaveLength(0);
    expect(controller.flags.compactedForBudget).toBe(false);
  });

  it('says a compaction begins before it runs, and says nothing when none is needed', async () => {
    const said: string[] = [];
    const onCompacting = (): void => void said.push(`compacting with ${events.length} events out`);
    const { messages, events, controller } = setup(0.8, { onCompacting });
    await controller.beforeStep({ turn: 1, fixed, messages });
    expect(said).toEqual(['compacting with 0 events out']);
    const calm = setup(0.7, { onCompacting: () => void said.push('again') });
    await calm.controller.beforeStep({ turn: 1, fixed, messages: calm.messages });
    expect(said).toHaveLength(1);
  });

  it('the recovery path compacts after a context-length error whatever the pressure', async () => {
    const { messages, events, controller } = setup(0.3);
    const d = await controller.onContextLengthError({ turn: 1, fixed, messages });
    expect(d.action).toBe('continue');
    expect(compactedEvents(events).map((e) => (e.payload as { reason: string }).reason)).toEqual(['recovery']);
    expect(controller.flags).toEqual({ compactedForBudget: false, compactedForRecovery: true });
  });
});

describe('why it happened: the context.compacted reason', () => {
  it('names the pressure when the policy path reduced the messages', async () => {
    const { messages, events, controller } = setup(0.8);
    await controller.beforeStep({ turn: 1, fixed, messages });
    const e = compactedEvents(events)[0] as EventDraft & { type: 'context.compacted' };
    expect(e.payload.reason).toBe('pressure:0.80');
    expect(payloadSchemas['context.compacted'].safeParse(e.payload).success).toBe(true);
    expect(e.payload.afterTokens).toBeLessThan(e.payload.beforeTokens as number);
  });

  it('says no-op when nothing in the messages could go (fixed overhead dominates)', async () => {
    const messages: TranscriptMessage[] = [{ role: 'user', text: 'hi' }];
    const heavy: FixedContext = {
      system: 'x'.repeat(8_000),
      toolSchemas: Array.from({ length: 40 }, (_, i) =>
        JSON.stringify({ name: `tool_${i}`, description: 'd'.repeat(400) }),
      ),
    };
    const events: EventDraft[] = [];
    const controller = createCompactionController({
      contextWindow: windowAt(0.9, messages, heavy),
      onEvent: (e) => events.push(e),
    });
    controller.beginTurn(1);
    const d = await controller.beforeStep({ turn: 1, fixed: heavy, messages });
    expect((compactedEvents(events)[0]!.payload as { reason: string }).reason).toBe('pressure:0.90:no-op');
    expect(d.messages).toEqual(messages);
  });

  it('says recovery for the context-length path', async () => {
    const { messages, events, controller } = setup(0.5);
    await controller.onContextLengthError({ turn: 1, fixed, messages });
    const e = compactedEvents(events)[0];
    expect(e?.payload).toMatchObject({ reason: 'recovery', strategy: 'mechanical' });
    expect(payloadSchemas['context.compacted'].safeParse(e?.payload).success).toBe(true);
  });
});

describe('what is eligible', () => {
  it('only messages: the system prompt and tool schemas are fixed overhead and stay as they are', async () => {
    const { messages, controller } = setup(0.8);
    const f = structuredClone(fixed);
    await controller.beforeStep({ turn: 1, fixed: f, messages });
    expect(f).toEqual(fixed);
  });

  it('a system message inside the transcript is never folded', async () => {
    const sys: TranscriptMessage = { role: 'system', text: 'policy: '.repeat(200) };
    const messages = [sys, ...transcript(10)];
    const controller = createCompactionController({ contextWindow: windowAt(0.8, messages) });
    controller.beginTurn(1);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.messages[0]).toEqual(sys);
  });

  it('the system prompt is capped upstream at 8,000 chars with a marker', () => {
    const capped = capSystemPrompt('s'.repeat(9_000));
    expect(capped.removedChars).toBe(1_000);
    expect(capped.text.startsWith('s'.repeat(8_000))).toBe(true);
    expect(capped.text).toContain('system prompt truncated; 1,000 chars cut');
  });
});

describe('what is preserved', () => {
  it('an assistant tool-call message and its tool results are never split', async () => {
    const messages = transcript(12, { calls: 3 });
    const controller = createCompactionController({ contextWindow: windowAt(0.9, messages), targetPressure: 0.2 });
    controller.beginTurn(1);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.compacted).toBeDefined();
    for (const u of groupUnits(d.messages)) {
      const first = d.messages[u.start] as TranscriptMessage;
      // every tool result sits in the unit of the assistant message that called it
      for (let i = u.start + 1; i < u.end; i++) expect(first.role).toBe('assistant');
      if (first.role === 'tool') throw new Error(`orphan tool result ${first.toolCallId}`);
      if (first.role === 'assistant' && first.toolCalls) expect(u.end - u.start).toBe(first.toolCalls.length + 1);
    }
  });

  it('the most recent units stay verbatim', async () => {
    const { messages, controller } = setup(0.8);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    const units = groupUnits(messages);
    const tailStart = (units[units.length - 4] as { start: number }).start;
    expect(d.messages.slice(-(messages.length - tailStart))).toEqual(messages.slice(tailStart));
  });

  it('an LLM summary is pinned and kept verbatim by a later compaction', async () => {
    const summarize: SummaryHook = async ({ messages }) => ({
      text: `summary of ${messages.length}`,
      provider: 'openai',
      model: 'gpt-4.1-mini',
    });
    const { messages, controller } = setup(0.8, { summarize });
    const first = await controller.beforeStep({ turn: 1, fixed, messages });
    const pinned = first.messages.find((m) => m.role === 'user' && m.pinned);
    expect(pinned).toBeDefined();
    const grown = [...first.messages, ...transcript(10)];
    const again = createCompactionController({ contextWindow: windowAt(0.8, grown), targetPressure: 0.05 });
    again.beginTurn(2);
    const second = await again.beforeStep({ turn: 2, fixed, messages: grown });
    expect(second.messages).toContainEqual(pinned);
  });
});

describe('what may be removed', () => {
  it('older messages keep per-role heads (tool ~800, user 250, assistant 180) and lose reasoning', async () => {
    const { messages, controller } = setup(0.8);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    const oldTool = d.messages.find((m) => m.role === 'tool') as Extract<TranscriptMessage, { role: 'tool' }>;
    const oldUser = d.messages[0] as Extract<TranscriptMessage, { role: 'user' }>;
    const oldAssistant = d.messages[1] as Extract<TranscriptMessage, { role: 'assistant' }>;
    const body = (s: string) => s.split('\n[… ')[0] as string;
    expect(body(oldTool.content).length).toBeLessThanOrEqual(800);
    expect(body(oldTool.content).length).toBeGreaterThan(400);
    expect(oldTool.content).toMatch(/\[… \d+ chars folded by compaction\]$/);
    expect(body(oldUser.text).length).toBeLessThanOrEqual(250);
    expect(body(oldAssistant.text).length).toBeLessThanOrEqual(180);
    expect(oldAssistant.reasoning).toBeUndefined();
    expect(oldAssistant.toolCalls).toEqual(
      (messages[1] as Extract<TranscriptMessage, { role: 'assistant' }>).toolCalls,
    );
  });

  it('oldest folded units are removed whole, with one marker, when folding is not enough', async () => {
    const messages = transcript(30);
    const controller = createCompactionController({ contextWindow: windowAt(0.9, messages), targetPressure: 0.1 });
    controller.beginTurn(1);
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect((d.compacted!.payload as { removedMessages: number }).removedMessages).toBeGreaterThan(0);
    expect(d.messages.filter((m) => m.role === 'user' && m.text.startsWith('[minicode:'))).toHaveLength(1);
  });
});

describe('what if compaction fails', () => {
  it('an LLM summary that throws falls back to the mechanical fold, with a diagnostic', async () => {
    const summarize: SummaryHook = async () => {
      throw new Error('model overloaded');
    };
    const { messages, events, controller } = setup(0.8, { summarize });
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.compacted?.payload).toMatchObject({ strategy: 'mechanical' });
    expect(
      events.some((e) => e.type === 'diagnostic.raised' && e.payload.code === 'MINICODE_E_COMPACTION_FALLBACK'),
    ).toBe(true);
  });

  it('an LLM summary slower than 10 s is abandoned (its signal aborted) for the mechanical fold', async () => {
    const timers = createManualTimers();
    let sawAbort = false;
    const summarize: SummaryHook = ({ signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          sawAbort = true;
          reject(signal.reason);
        });
      });
    const { messages, controller } = setup(0.8, { summarize, timers });
    const pending = controller.beforeStep({ turn: 1, fixed, messages });
    await timers.advance(9_999);
    expect(sawAbort).toBe(false);
    await timers.advance(1);
    const d = await pending;
    expect(sawAbort).toBe(true);
    expect(timers.requested).toContain(10_000);
    expect(d.compacted?.payload).toMatchObject({ strategy: 'mechanical' });
  });

  it('a failing pool fold falls back to folding in-process: compaction never crash-loops', async () => {
    const fold = async () => {
      throw { code: 'MINICODE_E_WORKER', message: 'worker crashed' };
    };
    const { messages, events, controller } = setup(0.8, { fold });
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.action).toBe('continue');
    expect(d.compacted?.payload).toMatchObject({ strategy: 'mechanical' });
    expect(events.some((e) => e.type === 'diagnostic.raised' && e.payload.code === 'MINICODE_E_WORKER')).toBe(true);
  });
});

describe('can it retry', () => {
  it('the budget path does not compact twice in a turn; critical again means budget_exceeded', async () => {
    const { messages, events, controller } = setup(0.8);
    const first = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(first.action).toBe('continue');
    // the transcript grew back to critical within the same turn
    const grown = [...first.messages, ...transcript(14)];
    const second = await controller.beforeStep({ turn: 1, fixed, messages: grown });
    expect(second).toMatchObject({ action: 'terminate', reason: 'budget_exceeded' });
    expect(compactedEvents(events)).toHaveLength(1);
  });

  it('still critical right after the pressure compaction means budget_exceeded, not a retry', async () => {
    const messages: TranscriptMessage[] = [{ role: 'user', text: 'hi' }];
    const heavy: FixedContext = { system: 'x'.repeat(8_000), toolSchemas: ['y'.repeat(20_000)] };
    const controller = createCompactionController({ contextWindow: windowAt(0.97, messages, heavy) });
    controller.beginTurn(1);
    expect(await controller.beforeStep({ turn: 1, fixed: heavy, messages })).toMatchObject({
      action: 'terminate',
      reason: 'budget_exceeded',
    });
  });

  it('the recovery path compacts once per turn; the second context-length error is budget_exceeded', async () => {
    const { messages, controller } = setup(0.5);
    const first = await controller.onContextLengthError({ turn: 1, fixed, messages });
    expect(first.action).toBe('continue');
    const second = await controller.onContextLengthError({ turn: 1, fixed, messages: first.messages });
    expect(second).toMatchObject({ action: 'terminate', reason: 'budget_exceeded' });
  });

  it('a new turn resets both flags', async () => {
    const { messages, controller } = setup(0.8);
    await controller.beforeStep({ turn: 1, fixed, messages });
    await controller.onContextLengthError({ turn: 1, fixed, messages });
    controller.beginTurn(2);
    expect(controller.flags).toEqual({ compactedForBudget: false, compactedForRecovery: false });
  });
});

describe('can another occur in the same turn', () => {
  it('a budget compaction and a recovery compaction may both happen (separate flags)', async () => {
    const { messages, events, controller } = setup(0.8);
    const a = await controller.beforeStep({ turn: 1, fixed, messages });
    const b = await controller.onContextLengthError({ turn: 1, fixed, messages: a.messages });
    expect(b.action).toBe('continue');
    expect(compactedEvents(events).map((e) => (e.payload as { reason: string }).reason)).toEqual([
      'pressure:0.80',
      'recovery',
    ]);
    expect(controller.flags).toEqual({ compactedForBudget: true, compactedForRecovery: true });
  });
});

describe('what compaction itself consumes', () => {
  it('the summary call usage is recorded with scope compaction and priced into the session', async () => {
    const usage = createUsageCollector();
    const summarize: SummaryHook = async () => ({
      text: 'short summary',
      usage: { inputTokens: 10_000, outputTokens: 500 },
      provider: 'openai',
      model: 'gpt-4.1-mini',
    });
    const { messages, events, controller } = setup(0.8, { summarize, usage });
    const d = await controller.beforeStep({ turn: 1, fixed, messages });
    expect(d.compacted?.payload).toMatchObject({ strategy: 'llm' });
    const reported = events.find((e) => e.type === 'usage.reported');
    expect(reported?.payload).toMatchObject({ scope: 'compaction', usage: { inputTokens: 10_000, outputTokens: 500 } });
    expect(payloadSchemas['usage.reported'].safeParse(reported?.payload).success).toBe(true);
    expect(usage.session().costUsd).toBeCloseTo((10_000 * 0.4 + 500 * 1.6) / 1e6, 10);
  });

  it('a summary call without usage leaves the session usage unknown, not zero', async () => {
    const usage = createUsageCollector();
    const summarize: SummaryHook = async () => ({ text: 'short summary', provider: 'openai', model: 'gpt-4.1-mini' });
    const { messages, controller } = setup(0.8, { summarize, usage });
    await controller.beforeStep({ turn: 1, fixed, messages });
    expect(usage.session()).toMatchObject({ complete: false, costUsd: undefined, requests: 1 });
  });
});
