/**
 * The benchmarks' inputs decode correctly (a benchmark of a broken decoder is worthless): the
 * same corpus loaders the benchmarks use, checked for event counts, final texts and tool calls,
 * and exact replication. Nothing here is timed; the heavy benchmarks are not run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../lib/events/index.js';
import { ABLATIONS, runFloor, runVariant, temporaryStore } from '../pipeline.js';
import { benchCorpus } from '../../test/corpus/provider-corpus.js';
import {
  buildPipelineCorpus,
  decodeSource,
  decodeSourceBatches,
  type PipelineCorpus,
} from '../../test/corpus/pipeline-corpus.js';
import { FIXTURES, HAVE_FIXTURES, ROOT, fixtureSkipNote } from '../../test/helpers/cli.js';

fixtureSkipNote();

/** The main agent's last completed message and the tool calls a source decodes to. */
function outcome(drafts: EventDraft[]): { text: string | undefined; tools: string[] } {
  let text: string | undefined;
  const tools: string[] = [];
  for (const d of drafts) {
    if (d.type === 'assistant.message.completed' && d.parentId === undefined) text = d.payload.text;
    if (d.type === 'assistant.tool_call.completed') tools.push(d.payload.name);
    if (d.type === 'tool.started') tools.push(d.payload.name);
  }
  return { text, tools };
}

function byName(corpus: PipelineCorpus, name: string) {
  const found = corpus.pass.find((p) => p.source.name === name);
  if (!found) throw new Error(`no source ${name} in ${corpus.origin}`);
  return found;
}

/** Decode every pass of the replicated corpus afresh and count the events. */
function decodeAll(corpus: PipelineCorpus): number {
  let events = 0;
  for (let p = 0; p < corpus.passes; p++)
    for (const s of corpus.pass) decodeSource(s.source, s.chunks, () => void events++);
  return events;
}

describe('the hand-made pipeline corpus (a bare clone)', () => {
  const corpus = buildPipelineCorpus({ minEvents: 1, root: ROOT, fixtures: path.join(ROOT, 'no-such-fixtures') });

  it('holds every hand-made provider and native stream', () => {
    expect(corpus.origin).toContain('hand-made');
    const kinds = new Set(corpus.pass.map((p) => `${p.source.kind}/${p.source.format}`));
    for (const k of [
      'provider/openai-chat',
      'provider/openai-responses',
      'provider/anthropic',
      'provider/gemini',
      'provider/ollama',
      'native/codex',
      'native/claude-code',
      'native/gemini-cli',
      'native/opencode',
      'native/terminal',
    ]) {
      expect(kinds).toContain(k);
    }
  });

  it('decodes each stream to its known number of events', () => {
    const counts = Object.fromEntries(corpus.pass.map((p) => [p.source.name, p.drafts.length]));
    expect(counts).toMatchObject({
      'hand-made/openai-chat/parallel-tools-missing-index.sse': 13,
      'hand-made/anthropic/text-tool-complete.sse': 10,
      'hand-made/gemini/text-thought-call.sse': 11,
      'hand-made/ollama/chat-thinking-tool.ndjson': 9,
      'hand-made/native/codex-all-items.jsonl': 24,
      'hand-made/native/claude-denied-subagent.jsonl': 19,
      'hand-made/native/opencode-done.jsonl': 5,
    });
    expect(corpus.eventsPerPass).toBe(corpus.pass.reduce((n, p) => n + p.drafts.length, 0));
  });

  it('decodes the final texts and tool calls of a few streams', () => {
    expect(outcome(byName(corpus, 'hand-made/openai-chat/parallel-tools-missing-index.sse').drafts)).toEqual({
      text: 'Checking both cities: é漢🙂.',
      tools: ['weather', 'weather'],
    });
    expect(outcome(byName(corpus, 'hand-made/ollama/chat-thinking-tool.ndjson').drafts)).toEqual({
      text: 'Let me check <Tokyo>.',
      tools: ['get_weather'],
    });
    expect(outcome(byName(corpus, 'hand-made/native/codex-all-items.jsonl').drafts).text).toBe(
      'Fixed the off-by-one in src/pager.ts.',
    );
    expect(outcome(byName(corpus, 'hand-made/native/opencode-done.jsonl').drafts).text).toBe('pong');
  });

  it('hands over in per-chunk batches exactly the drafts a source decodes to one by one', () => {
    for (const p of corpus.pass) {
      const one: EventDraft[] = [];
      decodeSource(p.source, p.chunks, (d) => one.push(d));
      const batches: EventDraft[][] = [];
      decodeSourceBatches(p.source, p.chunks, (b) => batches.push(b));
      expect(batches.flat(), p.source.name).toEqual(one);
      expect(batches.every((b) => b.length > 0)).toBe(true);
      expect(p.batches.flat()).toEqual(p.drafts);
    }
  });

  it('yields exactly passes x the events of one pass when replicated', () => {
    const replicated = buildPipelineCorpus({
      minEvents: 3 * corpus.eventsPerPass + 1,
      root: ROOT,
      fixtures: path.join(ROOT, 'no-such-fixtures'),
    });
    expect(replicated.passes).toBe(4);
    expect(replicated.totalEvents).toBe(4 * corpus.eventsPerPass);
    expect(decodeAll(replicated)).toBe(4 * corpus.eventsPerPass);
  });

  it('goes through the full benchmarked pipeline and every ablation with every event, and the floor sees every record', async () => {
    const { store, dispose } = temporaryStore();
    try {
      const full = await runVariant(
        corpus,
        { label: 'full', decode: true, scrub: 'full', render: true, store: true },
        store,
      );
      expect(full.events).toBe(corpus.totalEvents);
      expect(full.outBytes).toBeGreaterThan(0);
      for (const variant of ABLATIONS)
        expect((await runVariant(corpus, variant, store)).events).toBe(corpus.totalEvents);
    } finally {
      await dispose();
    }
    expect(runFloor(corpus).events).toBe(corpus.recordsPerPass);
  });

  it('gives the same output and stored events when the producer feeds the entry, four sessions at once, as batch runs them', async () => {
    const { store, dispose } = temporaryStore();
    try {
      const full = { label: 'full', decode: true, scrub: 'full', render: true, store: true } as const;
      const bytes = await runVariant(corpus, full, store, 4, 'bytes');
      const entry = await runVariant(corpus, full, store, 4, 'entry');
      expect(entry.events).toBe(corpus.totalEvents);
      expect(entry.outBytes).toBe(bytes.outBytes);
      let storedEvents = 0;
      for (let i = 0; i < corpus.pass.length; i++) {
        const id = `000000-${String(i).padStart(4, '0')}`;
        const stored = (prefix: string | undefined) =>
          store.readSession(`${prefix}${id}`).map((e) => [e.seq, e.type, e.payload]);
        expect(stored(entry.prefix)).toEqual(stored(bytes.prefix));
        storedEvents += stored(entry.prefix).length;
      }
      expect(storedEvents).toBeGreaterThan(0);
    } finally {
      await dispose();
    }
  });
});

describe.skipIf(!HAVE_FIXTURES)('the recorded pipeline corpus (../shared/fixtures)', () => {
  const corpus = HAVE_FIXTURES ? buildPipelineCorpus({ minEvents: 1, root: ROOT, fixtures: FIXTURES }) : undefined;
  const get = (name: string) => byName(corpus as PipelineCorpus, name);

  it('holds every provider and native recording, each decoding to events', () => {
    const c = corpus as PipelineCorpus;
    const native = c.pass.filter((p) => p.source.kind === 'native');
    const nativeFiles = ['codex', 'claude', 'gemini', 'opencode'].flatMap((d) =>
      fs.readdirSync(path.join(FIXTURES, 'native', d)).filter((f) => f.endsWith('.jsonl')),
    );
    expect(native.length).toBe(nativeFiles.length);
    expect(c.pass.length).toBeGreaterThan(native.length);
    for (const p of c.pass) expect(p.drafts.length, p.source.name).toBeGreaterThan(0);
  });

  it('decodes the final texts and tool calls of a few recordings', () => {
    expect(outcome(get('openai-chat/oc01-text-finish-usage-gpt5.sse').drafts).text).toBe('Paris.');
    expect(outcome(get('openai-chat/oc02-single-tool-call-usage.sse').drafts).tools).toEqual(['get_capital']);
    expect(outcome(get('anthropic/an01-text-small.sse').drafts).text).toBe('2');
    expect(outcome(get('native/codex/meawoppl-hello_world.jsonl').drafts).text).toBe('hello world');
    expect(outcome(get('native/claude/gleam-basic_query-2.1.7.jsonl').drafts).text).toBe('4');
    expect(outcome(get('native/codex/meawoppl-multi_command.jsonl').drafts).tools).toEqual(['shell', 'shell', 'shell']);
  });

  it('replicates to at least the requested events, exactly passes x one pass', () => {
    const c = corpus as PipelineCorpus;
    const replicated = buildPipelineCorpus({ minEvents: 2 * c.eventsPerPass, root: ROOT, fixtures: FIXTURES });
    expect(replicated.passes).toBe(2);
    expect(decodeAll(replicated)).toBe(2 * c.eventsPerPass);
    expect(
      buildPipelineCorpus({ minEvents: 1_000_000, root: ROOT, fixtures: FIXTURES }).totalEvents,
    ).toBeGreaterThanOrEqual(1_000_000);
  });

  it('gives the provider benchmarks the same recordings', () => {
    const { streams } = benchCorpus(pathToFileURL(path.join(ROOT, 'bench/provider-decode.ts')).href);
    expect(streams.length).toBe((corpus as PipelineCorpus).pass.filter((p) => p.source.kind === 'provider').length);
  });
});
