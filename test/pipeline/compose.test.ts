/**
 * The run pipeline's entry: `write` (a batch, one hop through the stages) must give the same
 * envelopes, the same reducer states, the same rendered output and the same stored events as
 * `emit` draft by draft, whatever the batching, including deltas whose held-back text is
 * flushed before a closing event.
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadSchemas, type EventDraft, type OutputEvent } from '../../lib/events/index.js';
import { createRunPipeline } from '../../lib/pipeline/compose.js';
import type { ReducerState } from '../../lib/reducer/index.js';
import { createRenderer } from '../../lib/render/index.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';
import { open } from 'lmdb';
import { EVENT_REGISTRY } from '../../lib/events/registry.js';
import { BATCH_COMPRESSION_THRESHOLD, openStore } from '../../lib/store/index.js';
import { buildPipelineCorpus } from '../corpus/pipeline-corpus.js';
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
    {
      type: 'assistant.message.delta',
      payload: { messageId: m, delta: `key ${SECRET.value.slice(0, half)}` },
      fidelity: 'native',
    },
    {
      type: 'assistant.message.delta',
      payload: { messageId: m, delta: `${SECRET.value.slice(half)} and \u001b[31mred\u001b[0m` },
      fidelity: 'native',
    },
    {
      type: 'assistant.message.completed',
      payload: { messageId: m, text: `key ${SECRET.value} and red` },
      fidelity: 'native',
    },
    {
      type: 'model.response.completed',
      payload: {
        outcome: 'completed',
        stopReason: 'end_turn',
        usage: { inputTokens: 3, outputTokens: 5, totalTokens: 8 },
      },
      fidelity: 'native',
    },
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
  const pipeline = createRunPipeline({
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
      void pipeline.write(input.slice(at, at + n));
      at += n;
    }
    void pipeline.write(input.slice(at));
  }
  await pipeline.finish();
  const stored = store.readSession('ses_test');
  await store.close();
  return { lines, events, states, stored };
}

describe('the run pipeline', () => {
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

  it('takes a whole recorded source in per-chunk batches the same as draft by draft', async () => {
    const corpus = buildPipelineCorpus({ minEvents: 1, root: ROOT, fixtures: path.join(ROOT, 'no-such-fixtures') });
    for (const p of corpus.pass.slice(0, 6)) {
      const sizes = p.batches.map((b) => b.length);
      expect(await run(p.drafts, sizes), p.source.name).toEqual(await run(p.drafts, undefined));
    }
  });
});

describe('the run pipeline under backpressure', () => {
  it('settles every batch once a stalled output drains, and write reports the stall to the producer', async () => {
    let open = false;
    const waiters: (() => void)[] = [];
    const output = {
      write: () => undefined,
      ready: () => (open ? undefined : new Promise<void>((resolve) => waiters.push(resolve))),
      flush: () => undefined,
      closed: false,
    };
    const seen: OutputEvent[] = [];
    const pipeline = createRunPipeline({
      sessionId: 'ses_bp',
      scrubber: createEventScrubber({ secrets: [] }),
      output,
      highWaterMark: 2,
      onEvent: (e) => seen.push(e),
    });
    let stalled: Promise<void> | undefined;
    let written = 0;
    while (!stalled) {
      stalled = pipeline.write([{ type: 'task.started', payload: { taskId: `t${written}` } } as EventDraft]);
      written++;
    }
    // The producer was told to wait long before everything it wrote was settled.
    expect(seen.length).toBeLessThan(written);
    open = true;
    for (const release of waiters.splice(0)) release();
    await stalled;
    const state = await pipeline.finish();
    expect(seen.map((e) => e.seq)).toEqual([...Array(written).keys()]);
    expect(state.sessionId).toBe('ses_bp');
  });

  it('stores the very lines the JSONL renderer printed, each event serialised once for both', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const printed: string[] = [];
    // A line separator in a title: jsonLine escapes it where JSON.stringify would not, so only the printed line matches.
    const input = drafts().map((d) =>
      d.type === 'task.started' ? ({ ...d, payload: { ...d.payload, title: 'a\u2028b' } } as EventDraft) : d,
    );
    const pipeline = createRunPipeline({
      sessionId: 'ses_lines',
      scrubber: { push: (d) => [d], end: () => [] },
      renderer: createRenderer('jsonl', { out: (s) => printed.push(s.slice(0, -1)) }),
      store,
    });
    for (const d of input) pipeline.emit(d);
    await pipeline.finish();
    await store.close();
    const eventLines = printed.filter((l) => {
      const v = JSON.parse(l) as { schema?: string; type: string };
      return v.schema !== undefined && v.type !== 'summary' && EVENT_REGISTRY[v.type as OutputEvent['type']]?.durable;
    });
    expect(eventLines.some((l) => l.includes('\\u2028'))).toBe(true);
    const root = open({ path: dir, maxDbs: 8, readOnly: true });
    const db = root.openDB<Uint8Array, [string, number]>({
      name: 'batches',
      encoding: 'binary',
      compression: { threshold: BATCH_COMPRESSION_THRESHOLD },
    });
    let at = 0;
    for (const { value } of db.getRange({ start: ['ses_lines', 0], end: ['ses_lines', Number.MAX_SAFE_INTEGER] })) {
      const text = Buffer.from(value).toString('utf8');
      const n = (JSON.parse(text) as unknown[]).length;
      expect(text).toBe(`[${eventLines.slice(at, at + n).join(',')}]`);
      at += n;
    }
    await root.close();
    expect(at).toBe(eventLines.length);
  });

  it('stores the same text when nothing prints JSONL as when the JSONL renderer prints it', async () => {
    // A line separator in a title: the store keeps jsonLine of the event either way.
    const input = drafts().map((d) =>
      d.type === 'task.started' ? ({ ...d, payload: { ...d.payload, title: 'a\u2028b' } } as EventDraft) : d,
    );
    const rawValues = async (renderer: 'jsonl' | 'linear' | undefined): Promise<string[]> => {
      const dir = tmpDir();
      const store = openStore({ dir });
      const pipeline = createRunPipeline({
        sessionId: 'ses_same',
        clock: () => 1_700_000_000_000,
        scrubber: { push: (d) => [d], end: () => [] },
        ...(renderer ? { renderer: createRenderer(renderer, { out: () => undefined, err: () => undefined }) } : {}),
        store,
      });
      for (const d of input) pipeline.emit(d);
      await pipeline.finish();
      await store.close();
      const root = open({ path: dir, maxDbs: 8, readOnly: true });
      const db = root.openDB<Uint8Array, [string, number]>({
        name: 'batches',
        encoding: 'binary',
        compression: { threshold: BATCH_COMPRESSION_THRESHOLD },
      });
      const values = [...db.getRange({})].map(({ value }) => Buffer.from(value).toString('utf8'));
      await root.close();
      return values;
    };
    const printed = await rawValues('jsonl');
    expect(printed.join('')).toContain('\\u2028');
    expect(await rawValues('linear')).toEqual(printed);
    expect(await rawValues(undefined)).toEqual(printed);
  });
});
