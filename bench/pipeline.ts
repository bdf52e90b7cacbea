/**
 * End-to-end pipeline throughput: the recorded corpus (providers and native agents, see
 * bench/support/pipeline-corpus.ts), replicated to at least 1,000,000 decoded events (quick:
 * 100,000), each source one session, through
 *   decode -> sanitise + scrub -> envelope -> reduce -> JSONL render -> LMDB store
 * with `createSessionPipeline` (lib/pipeline/session.ts), the synchronous chain `exec` uses, fed
 * as `minicode ingest` feeds its stages: what each 16 KiB input chunk decoded to, as one batch
 * (`emitAll`: each stage over the batch in turn, the same events as draft by draft).
 * The store gets durable events only, as async puts batched per event-loop turn (the loop turns
 * every 64 KiB of input, as between socket reads); `flushed()` is awaited at the end of each
 * round. One store serves the whole process (distinct session ids per round), as a long-lived
 * store would: its msgpackr shared structures are learnt once, not every round.
 *
 * Floor: for every input record of the same corpus (an SSE `data:` payload or a JSONL line),
 * `JSON.parse` of its text and `JSON.stringify` of an envelope-shaped object holding the result
 * (`{schema, eventId, seq, type, timestamp, sessionId, source, severity, status, visibility,
 * payload: parsed}`; a record that is not JSON goes in as `{text}`). That is the least any tool
 * must do to turn the same input into JSON events. Target: pipeline >= 0.4x the floor (MB/s of
 * input bytes, medians of the same run).
 *
 * Then the same pipeline with each stage removed in turn (decode replaced by replaying
 * pre-decoded drafts; scrub by a pass-through; secret rules only; reduce; render; store), so the
 * costliest stage is visible: a stage's share is (full - without) / full, per round.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SCHEMA_NAME } from '../lib/events/enums.js';
import { createEnveloper } from '../lib/events/enveloper.js';
import type { EventDraft } from '../lib/events/index.js';
import { createSessionPipeline, type DraftScrubber } from '../lib/pipeline/session.js';
import { initialState, reduce, type ReducerState } from '../lib/reducer/index.js';
import { createRenderer } from '../lib/render/index.js';
import type { Renderer } from '../lib/render/types.js';
import type { SecretRule } from '../lib/scrub/rule-types.js';
import { createEventScrubber } from '../lib/scrub/scrub-stage.js';
import { openStore, type EventStore } from '../lib/store/index.js';
import { type BenchOptions, type BenchReport, measurement, median, ratio, runIfMain, type Measurement } from './harness.js';
import { buildPipelineCorpus, decodeSourceBatches, inputTurns, type PipelineCorpus } from './support/pipeline-corpus.js';

/** Which stages run. */
export interface PipelineVariant {
  label: string;
  decode: boolean;
  /** `full`: sanitise + secret rules; `sanitise`: no secret rules (control sequences only); `none`: pass-through. */
  scrub: 'full' | 'sanitise' | 'none';
  reduce: boolean;
  render: boolean;
  store: boolean;
}

const FULL: PipelineVariant = { label: 'full pipeline', decode: true, scrub: 'full', reduce: true, render: true, store: true };

/** The variants measured besides the full pipeline, each with one stage removed. */
export const ABLATIONS: PipelineVariant[] = [
  { ...FULL, label: 'without decode (pre-decoded drafts)', decode: false },
  { ...FULL, label: 'without secret rules (sanitise only)', scrub: 'sanitise' },
  { ...FULL, label: 'without scrub (sanitise + secrets)', scrub: 'none' },
  { ...FULL, label: 'without reduce', reduce: false },
  { ...FULL, label: 'without JSONL render', render: false },
  { ...FULL, label: 'without LMDB store', store: false },
];

/** Credentials the scrubber masks exactly (fixed, so runs compare; none occur in the corpus). */
const SECRETS = [
  { name: 'OPENAI_API_KEY', value: 'sk-bench-0123456789abcdefghijklmnopqrstuvwxyz' },
  { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-bench-0123456789abcdefghijklmnop' },
];

/** One array for every scrubber: the redactor compiles its dispatch once per rules array. */
const NO_RULES: readonly SecretRule[] = [];

const PASS_THROUGH: DraftScrubber = { push: (d) => [d], end: () => [] };

function scrubberFor(variant: PipelineVariant): DraftScrubber {
  if (variant.scrub === 'none') return PASS_THROUGH;
  return createEventScrubber(variant.scrub === 'full' ? { secrets: SECRETS } : { secrets: [], rules: NO_RULES });
}

/** The session chain without the reducer: session.ts's loop with `reduce` taken out. */
function chainWithoutReduce(sessionId: string, scrubber: DraftScrubber, renderer: Renderer<ReducerState> | undefined, store: EventStore | undefined) {
  const enveloper = createEnveloper({ sessionId });
  const state = initialState(sessionId);
  const deliver = (drafts: readonly EventDraft[]): void => {
    const events = drafts.map((d) => enveloper.wrap(d));
    for (const event of events) {
      store?.append(event);
      renderer?.onEvent(event, state);
    }
  };
  return { emitAll: (ds: readonly EventDraft[]) => deliver(ds.flatMap((d) => scrubber.push(d))), drain: () => deliver(scrubber.end()), state };
}

/** What one round produced (checked against the corpus so a broken variant cannot look fast). */
interface RoundResult {
  ms: number;
  events: number;
  outBytes: number;
}

let roundCounter = 0;

/** A store in a temporary directory, removed by `dispose`. */
export function temporaryStore(): { store: EventStore; dispose: () => Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-pipeline-'));
  const store = openStore({ dir });
  return {
    store,
    dispose: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** Run the corpus once through a variant; returns elapsed ms. `openStore` is used when the variant stores. */
export async function runVariant(corpus: PipelineCorpus, variant: PipelineVariant, sharedStore: EventStore): Promise<RoundResult> {
  const round = roundCounter++;
  const store = variant.store ? sharedStore : undefined;
  let outBytes = 0;
  const out = (s: string): void => {
    outBytes += s.length;
  };
  let events = 0;
  const afterInput = inputTurns();
  const start = performance.now();
  for (let p = 0; p < corpus.passes; p++) {
    for (let i = 0; i < corpus.pass.length; i++) {
      const prepared = corpus.pass[i] as PipelineCorpus['pass'][number];
      // Increasing ids, as the product's time-ordered session ids are (lib/ids.ts): a long-lived
      // store appends new sessions at the end of its key space rather than all over it.
      const sessionId = `bench-${pad(round, 6)}-${pad(p, 6)}-${pad(i, 4)}`;
      const renderer = variant.render ? createRenderer('jsonl', { out }) : undefined;
      const scrubber = scrubberFor(variant);
      const chain = variant.reduce
        ? createSessionPipeline({ sessionId, scrubber, ...(renderer ? { renderer } : {}), ...(store ? { store } : {}) })
        : chainWithoutReduce(sessionId, scrubber, renderer, store);
      const emitAll = (ds: EventDraft[]): void => {
        events += ds.length;
        chain.emitAll(ds);
      };
      if (variant.decode) decodeSourceBatches(prepared.source, prepared.chunks, emitAll);
      else for (const b of prepared.batches) emitAll(b);
      chain.drain();
      renderer?.finish(chain.state);
      if (store) {
        const turn = afterInput(prepared.source.bytes.length);
        if (turn) await turn;
      }
    }
  }
  await store?.flushed();
  return { ms: performance.now() - start, events, outBytes };
}

/** The floor over the same corpus: JSON.parse of each record + JSON.stringify of an envelope-shaped object. */
export function runFloor(corpus: PipelineCorpus): RoundResult {
  let outBytes = 0;
  let events = 0;
  const start = performance.now();
  for (let p = 0; p < corpus.passes; p++) {
    for (let i = 0; i < corpus.pass.length; i++) {
      const prepared = corpus.pass[i] as PipelineCorpus['pass'][number];
      const sessionId = `floor-${p}-${i}`;
      const timestamp = new Date().toISOString();
      let seq = 0;
      for (const record of prepared.records) {
        let payload: unknown;
        try {
          payload = JSON.parse(record.text);
        } catch {
          payload = { text: record.text };
        }
        const type = typeof (payload as { type?: unknown }).type === 'string' ? (payload as { type: string }).type : 'record';
        const s = seq++;
        const line = JSON.stringify({
          schema: SCHEMA_NAME,
          eventId: `${sessionId}:${s}`,
          seq: s,
          type,
          timestamp,
          sessionId,
          source: 'runtime',
          severity: 'info',
          status: 'completed',
          visibility: ['machine'],
          payload,
        });
        outBytes += line.length + 1;
        events++;
      }
    }
  }
  return { ms: performance.now() - start, events, outBytes };
}

/** Run the end-to-end benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const corpus = buildPipelineCorpus({ minEvents: options.quick ? 100_000 : 1_000_000 });
  // Quick mode takes more rounds of its smaller input (a round is ~6 s): on a shared machine one
  // round in three can run 20% slow, and stage shares are differences of medians.
  const rounds = options.quick ? 9 : 5;
  const variants = [FULL, ...ABLATIONS];
  const ms: Record<string, number[]> = Object.fromEntries([...variants.map((v) => [v.label, []]), ['floor', []]]);
  let fullOutBytes = 0;
  const { store, dispose } = temporaryStore();
  // The warm-up round (r = 0, not recorded) replays a quarter of the corpus: enough for the JIT.
  const warmUp: PipelineCorpus = { ...corpus, passes: Math.max(1, corpus.passes >> 2) };
  warmUp.totalEvents = warmUp.passes * corpus.eventsPerPass;
  warmUp.totalBytes = warmUp.passes * corpus.bytesPerPass;
  for (let r = 0; r < rounds + 1; r++) {
    const input = r === 0 ? warmUp : corpus;
    for (const v of variants) {
      const res = await runVariant(input, v, store);
      if (res.events !== input.totalEvents) throw new Error(`${v.label}: ${res.events} events, expected ${input.totalEvents}`);
      if (r > 0) (ms[v.label] as number[]).push(res.ms);
      if (v === FULL) fullOutBytes = res.outBytes;
    }
    const floor = runFloor(input);
    if (r > 0) (ms.floor as number[]).push(floor.ms);
  }
  await dispose();
  const mb = corpus.totalBytes / 1e6;
  const full = ms[FULL.label] as number[];
  const floorMs = ms.floor as number[];
  const pipelineMb = measurement('full pipeline', 'MB/s', full.map((t) => mb / (t / 1000)));
  const floorMb = measurement('floor: JSON.parse + JSON.stringify', 'MB/s', floorMs.map((t) => mb / (t / 1000)));
  const eventsPerSecond: Measurement[] = [
    measurement('full pipeline', 'events/s', full.map((t) => corpus.totalEvents / (t / 1000))),
    ...ABLATIONS.map((v) => measurement(v.label, 'events/s', (ms[v.label] as number[]).map((t) => corpus.totalEvents / (t / 1000)))),
    measurement('floor (input records/s)', 'events/s', floorMs.map((t) => (corpus.recordsPerPass * corpus.passes) / (t / 1000))),
  ];
  // Share of each removed stage in the full pipeline's time, paired per round (same neighbours).
  const shares = ABLATIONS.map((v) => {
    const without = ms[v.label] as number[];
    return measurement(`share: ${v.label.replace(/^without /, '')}`, '% of full time', full.map((t, i) => (100 * (t - (without[i] as number))) / t));
  });
  const costliest = [...shares].sort((a, b) => b.median - a.median)[0];
  return {
    name: 'pipeline',
    title: 'End-to-end pipeline throughput',
    description:
      'decode -> sanitise + scrub -> envelope -> reduce -> JSONL render -> LMDB store (durable events, async puts batched per event-loop turn, flushed at the end) ' +
      'over the recorded provider and native corpus replicated to ' + (options.quick ? '100k' : '1M') + '+ events (each source one session), ' +
      'vs the floor: JSON.parse of each input record (SSE data payload or JSONL line) + JSON.stringify of an envelope-shaped object holding the result. ' +
      'Then the same with each stage removed in turn; a stage\'s share is (full - without) / full, paired per round.',
    measurements: [pipelineMb, floorMb, ...eventsPerSecond, ...shares],
    ratios: [
      ratio('pipeline / JSON.parse+stringify floor (MB/s)', pipelineMb, floorMb, { op: '>=', value: 0.4 }),
      ...ABLATIONS.map((v) => {
        const without = ms[v.label] as number[];
        // Below 1: removing the stage saves that fraction of the time.
        return { label: `time ${v.label} / full time`, value: median(without) / median(full) };
      }),
    ],
    notes: [
      `input: ${corpus.origin}; one pass = ${corpus.pass.length} sessions, ${corpus.eventsPerPass} events, ${corpus.recordsPerPass} records, ${corpus.bytesPerPass} bytes; replicated x${corpus.passes} = ${corpus.totalEvents} events, ${(mb).toFixed(1)} MB per round`,
      `${rounds} rounds after one warm-up, variants interleaved per round; JSONL output of the full pipeline ${(fullOutBytes / 1e6).toFixed(1)} MB per round`,
      `costliest stage: ${costliest ? `${costliest.label.replace(/^share: /, '')} (${costliest.median.toFixed(0)}% of the full time)` : 'n/a'}; shares overlap (removing the store also removes its index reduce) and need not sum to 100%`,
    ],
  };
}

await runIfMain(import.meta.url, run);
