/**
 * The session pipeline's two entry points: `emitAll` (a batch, stage by stage) must give the
 * same envelopes, the same reducer states, the same rendered output and the same stored events
 * as `emit` draft by draft, whatever the batching, including deltas whose held-back text is
 * flushed before a closing event.
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadSchemas, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { createSessionPipeline } from '../../lib/pipeline/session.js';
import type { ReducerState } from '../../lib/reducer/index.js';
import { createRenderer } from '../../lib/render/index.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';
import { openStore } from '../../lib/store/index.js';
import { buildPipelineCorpus } from '../../bench/support/pipeline-corpus.js';
import { ROOT } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const tmpDir = scratchDirs('minicode-session-');

const SECRET = { name: 'OPENAI_API_KEY', value: 'sk-test-0123456789abcdefghijklmnopqrstuv' };

/** A session's drafts: model text that carries the secret split across deltas, a tool call and a run. */
function drafts(): EventDraft[] {
  const m = 'm1';
  const half = SECRET.value.length >> 1;
  return [
    { type: 'session.started', payload: { origin: 'test' }, fidelity: 'synthetic' },
    { type: 'task.started', payload: { taskId: 't1', title: 'demo' }, fidelity: 'synthetic' },
    { type: 'model.response.started', payload: { provider: 'openai-chat', model: 'gpt-test' }, fidelity: 'native' },
    { type: 'assistant.message.delta', payload: { messageId: m, delta: `key ${SECRET.value.slice(0, half)}` }, fidelity: 'native' },
    { type: 'assistant.message.delta', payload: { messageId: m, delta: `${SECRET.value.slice(half)} and \u001b[31mred\u001b[0m` }, fidelity: 'native' },
    { type: 'assistant.message.completed', payload: { messageId: m, text: `key ${SECRET.value} and red` }, fidelity: 'native' },
    { type: 'model.response.completed', payload: { outcome: 'completed', stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 } }, fidelity: 'native' },
    { type: 'task.completed', payload: { taskId: 't1', reason: 'completed' }, fidelity: 'synthetic' },
  ] as EventDraft[];
}

interface Run {
  lines: string[];
  events: OutputEvent[];
  states: string[];
  stored: OutputEvent[];
}

async function run(input: EventDraft[], batches: number[] | undefined): Promise<Run> {
  const dir = tmpDir();
  const store = openStore({ dir });
  const lines: string[] = [];
  const events: OutputEvent[] = [];
  const states: string[] = [];
  const pipeline = createSessionPipeline({
    sessionId: 'ses_test',
    clock: () => 1_700_000_000_000,
    scrubber: createEventScrubber({ secrets: [SECRET] }),
    renderer: createRenderer('jsonl', { out: (s) => lines.push(s) }),
    store,
    onEvent: (e: OutputEvent, s: ReducerState) => {
      events.push(e);
      states.push(JSON.stringify(s));
    },
  });
  if (batches === undefined) for (const d of input) pipeline.emit(d);
  else {
    let at = 0;
    for (const n of batches) {
      pipeline.emitAll(input.slice(at, at + n));
      at += n;
    }
    pipeline.emitAll(input.slice(at));
  }
  await pipeline.finish();
  const stored = store.readSession('ses_test');
  await store.close();
  return { lines, events, states, stored };
}

describe('the session pipeline', () => {
  it('is fed valid drafts in these tests', () => {
    for (const d of drafts()) expect(payloadSchemas[d.type].safeParse(d.payload).success, d.type).toBe(true);
  });

  it('gives the same events, states, output and stored events for a batch as draft by draft', async () => {
    const one = await run(drafts(), undefined);
    const all = await run(drafts(), []);
    expect(all).toEqual(one);
    expect(one.lines.join('')).not.toContain(SECRET.value);
    expect(one.lines.join('')).not.toContain('\u001b');
    expect(one.stored.length).toBeGreaterThan(0);
  });

  it('gives the same result for any split into batches (property)', async () => {
    const one = await run(drafts(), undefined);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 8 }), async (batches) => {
        expect(await run(drafts(), batches)).toEqual(one);
      }),
      { numRuns: 25 },
    );
  });

  it('emits a whole recorded source in per-chunk batches the same as draft by draft', async () => {
    const corpus = buildPipelineCorpus({ minEvents: 1, root: ROOT, fixtures: path.join(ROOT, 'no-such-fixtures') });
    for (const p of corpus.pass.slice(0, 6)) {
      const sizes = p.batches.map((b) => b.length);
      expect(await run(p.drafts, sizes), p.source.name).toEqual(await run(p.drafts, undefined));
    }
  });
});
