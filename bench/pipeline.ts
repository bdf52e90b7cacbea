/**
 * End-to-end pipeline throughput on the command path: the recorded corpus (providers and native
 * agents, see bench/support/pipeline-corpus.ts), replicated to at least 1,000,000 decoded events
 * (quick: 100,000), each source one session, through `createRunPipeline`
 * (lib/pipeline/compose.ts), the function `ingest`, `exec`, `batch`, `run` and ACP build their
 * pipeline with:
 *   bytes (16 KiB chunks) -> decode -> sanitise + scrub -> envelope -> reduce -> JSONL render + LMDB store
 * joined with `stream.pipeline`, one session after the other, each awaited to the store's
 * acknowledgement as `minicode ingest --store` does.
 *
 * Floor: for every input record of the same corpus (an SSE `data:` payload or a JSONL line),
 * `JSON.parse` of its text and `JSON.stringify` of an envelope-shaped object holding the result.
 * That is the least any tool must do to turn the same input into JSON events.
 * Peer: the assembly a user would otherwise write (bench/support/peer-assembly.ts):
 * eventsource-parser or a line splitter + JSON.parse + a switch reducer + JSON.stringify + one
 * combined regex of the same secret rules + raw lmdb puts.
 * Targets (MB/s of input bytes, medians of the same run): pipeline >= 0.45x the floor, >= 2x the peer.
 *
 * Then the same pipeline with each stage removed in turn (decode replaced by writing
 * pre-decoded drafts into the entry; scrub by a pass-through; secret rules only; render; store),
 * and the reducer timed alone over the same envelopes, so the costliest stage is visible: a
 * stage's share is (full - without) / full, per round.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { SCHEMA_NAME } from '../lib/events/enums.js';
import { createEnveloper } from '../lib/events/enveloper.js';
import type { EventDraft, OutputEvent } from '../lib/events/index.js';
import { createRunPipeline, type DraftScrubber } from '../lib/pipeline/compose.js';
import type { StreamDecoder } from '../lib/decode/types.js';
import { initialState, reduceOwned } from '../lib/reducer/index.js';
import { createRenderer } from '../lib/render/index.js';
import type { SecretRule } from '../lib/scrub/rule-types.js';
import { createEventScrubber } from '../lib/scrub/scrub-stage.js';
import { openStore, type EventStore } from '../lib/store/index.js';
import { type BenchOptions, type BenchReport, measurement, median, ratio, runIfMain, type Measurement } from './harness.js';
import { combinedRegex } from './scrub.js';
import { openPeerStore, runPeerSource } from './support/peer-assembly.js';
import { buildPipelineCorpus, decoderFor, type PipelineCorpus, type PreparedSource } from './support/pipeline-corpus.js';

/** Which stages run. */
export interface PipelineVariant {
  label: string;
  decode: boolean;
  /** `full`: sanitise + secret rules; `sanitise`: no secret rules (control sequences only); `none`: pass-through. */
  scrub: 'full' | 'sanitise' | 'none';
  render: boolean;
  store: boolean;
}

const FULL: PipelineVariant = { label: 'full pipeline', decode: true, scrub: 'full', render: true, store: true };

/** The variants measured besides the full pipeline, each with one stage removed. */
export const ABLATIONS: PipelineVariant[] = [
  { ...FULL, label: 'without decode (pre-decoded drafts)', decode: false },
  { ...FULL, label: 'without secret rules (sanitise only)', scrub: 'sanitise' },
  { ...FULL, label: 'without scrub (sanitise + secrets)', scrub: 'none' },
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

/** The source's decoder as the pipeline's decode stage drives it; a native recording ends with a clean exit. */
function makeDecoderFor(prepared: PreparedSource, count: () => void): (onEvent: (e: EventDraft) => void) => StreamDecoder {
  return (onEvent) => {
    const decoder = decoderFor(prepared.source, (e) => {
      count();
      onEvent(e);
    });
    if (prepared.source.kind !== 'native') return decoder;
    return {
      feed: (chunk) => decoder.feed(chunk),
      end: () => {
        decoder.end();
        decoder.exit?.(0, null);
      },
    };
  };
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

/** Run the corpus once through a variant of the command path; returns elapsed ms. */
export async function runVariant(corpus: PipelineCorpus, variant: PipelineVariant, sharedStore: EventStore): Promise<RoundResult> {
  const round = roundCounter++;
  const store = variant.store ? sharedStore : undefined;
  let outBytes = 0;
  const out = (s: string): void => {
    outBytes += s.length;
  };
  let events = 0;
  const start = performance.now();
  for (let p = 0; p < corpus.passes; p++) {
    for (let i = 0; i < corpus.pass.length; i++) {
      const prepared = corpus.pass[i] as PreparedSource;
      // Increasing ids, as the product's time-ordered session ids are (lib/ids.ts): a long-lived
      // store appends new sessions at the end of its key space rather than all over it.
      const sessionId = `bench-${pad(round, 6)}-${pad(p, 6)}-${pad(i, 4)}`;
      const renderer = variant.render ? createRenderer('jsonl', { out }) : undefined;
      const run = createRunPipeline({
        sessionId,
        scrubber: scrubberFor(variant),
        ...(renderer ? { renderer } : {}),
        ...(store ? { store } : {}),
        ...(variant.decode ? { input: { bytes: Readable.from(prepared.chunks), makeDecoder: makeDecoderFor(prepared, () => void events++) } } : {}),
      });
      if (!variant.decode) {
        for (const batch of prepared.batches) {
          events += batch.length;
          const wait = run.write(batch);
          if (wait) await wait;
        }
      }
      await run.finish();
    }
  }
  return { ms: performance.now() - start, events, outBytes };
}

/** The reducer alone over the envelopes of the same corpus (its share of the full time). */
function runReduceOnly(corpus: PipelineCorpus, envelopes: OutputEvent[][]): RoundResult {
  let events = 0;
  const start = performance.now();
  for (let p = 0; p < corpus.passes; p++) {
    for (const session of envelopes) {
      let state = initialState((session[0] as OutputEvent).sessionId);
      for (const e of session) state = reduceOwned(state, e);
      events += session.length;
    }
  }
  return { ms: performance.now() - start, events, outBytes: 0 };
}

/** The peer assembly over the same corpus, into its own lmdb store. */
async function runPeer(corpus: PipelineCorpus, db: ReturnType<typeof openPeerStore>, secrets: RegExp): Promise<RoundResult> {
  const round = roundCounter++;
  let outBytes = 0;
  const out = (s: string): void => {
    outBytes += s.length;
  };
  let events = 0;
  const start = performance.now();
  for (let p = 0; p < corpus.passes; p++) {
    for (let i = 0; i < corpus.pass.length; i++) {
      events += runPeerSource(corpus.pass[i] as PreparedSource, `peer-${pad(round, 6)}-${pad(p, 6)}-${pad(i, 4)}`, secrets, db, out);
      // The peer's puts are committed per session too, as a command would before exiting.
      await db.flushed;
    }
  }
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
  // Quick mode takes more rounds of its smaller input: on a shared machine one round in three
  // can run 20% slow, and stage shares are differences of medians.
  const rounds = options.quick ? 7 : 5;
  const variants = [FULL, ...ABLATIONS];
  const ms: Record<string, number[]> = Object.fromEntries([...variants.map((v) => [v.label, []]), ['floor', []], ['peer', []], ['reduce', []]]);
  let fullOutBytes = 0;
  const { store, dispose } = temporaryStore();
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-peer-'));
  const peerDb = openPeerStore(peerDir);
  const secrets = combinedRegex();
  // The reducer's input: one pass of envelopes, made once.
  const envelopes = corpus.pass.map((p, i) => {
    const enveloper = createEnveloper({ sessionId: `reduce-${i}` });
    return p.drafts.map((d) => enveloper.wrap(d));
  });
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
    const peer = await runPeer(input, peerDb, secrets);
    const reduceOnly = runReduceOnly(input, envelopes);
    if (r > 0) {
      (ms.floor as number[]).push(floor.ms);
      (ms.peer as number[]).push(peer.ms);
      (ms.reduce as number[]).push(reduceOnly.ms);
    }
  }
  await dispose();
  await peerDb.close();
  fs.rmSync(peerDir, { recursive: true, force: true });
  const mb = corpus.totalBytes / 1e6;
  const full = ms[FULL.label] as number[];
  const floorMs = ms.floor as number[];
  const pipelineMb = measurement(
    'full pipeline (command path)',
    'MB/s',
    full.map((t) => mb / (t / 1000)),
  );
  const floorMb = measurement(
    'floor: JSON.parse + JSON.stringify',
    'MB/s',
    floorMs.map((t) => mb / (t / 1000)),
  );
  const peerMb = measurement(
    'peer: eventsource-parser + JSON.parse + switch reducer + JSON.stringify + combined regex + lmdb puts',
    'MB/s',
    (ms.peer as number[]).map((t) => mb / (t / 1000)),
  );
  const eventsPerSecond: Measurement[] = [
    measurement(
      'full pipeline',
      'events/s',
      full.map((t) => corpus.totalEvents / (t / 1000)),
    ),
    ...ABLATIONS.map((v) =>
      measurement(
        v.label,
        'events/s',
        (ms[v.label] as number[]).map((t) => corpus.totalEvents / (t / 1000)),
      ),
    ),
    measurement(
      'floor (input records/s)',
      'events/s',
      floorMs.map((t) => (corpus.recordsPerPass * corpus.passes) / (t / 1000)),
    ),
  ];
  // Share of each removed stage in the full pipeline's time, paired per round (same neighbours).
  const shares = [
    ...ABLATIONS.map((v) => {
      const without = ms[v.label] as number[];
      return measurement(
        `share: ${v.label.replace(/^without /, '')}`,
        '% of full time',
        full.map((t, i) => (100 * (t - (without[i] as number))) / t),
      );
    }),
    measurement(
      'share: reduce (timed alone)',
      '% of full time',
      full.map((t, i) => (100 * ((ms.reduce as number[])[i] as number)) / t),
    ),
  ];
  const costliest = [...shares].sort((a, b) => b.median - a.median)[0];
  return {
    name: 'pipeline',
    title: 'End-to-end pipeline throughput (command path)',
    description:
      'createRunPipeline, the function every command builds its pipeline with: bytes -> decode -> sanitise + scrub -> envelope -> reduce -> JSONL render -> LMDB store (durable events), ' +
      "joined with stream.pipeline, one session after the other, each awaited to the store's acknowledgement, " +
      'over the recorded provider and native corpus replicated to ' +
      (options.quick ? '100k' : '1M') +
      '+ events (each source one session); ' +
      'vs the floor (JSON.parse of each input record + JSON.stringify of an envelope-shaped object) and the peer assembly (eventsource-parser + JSON.parse + switch reducer + JSON.stringify + one combined regex of the same secret rules + raw lmdb puts). ' +
      "Then the same with each stage removed in turn; a stage's share is (full - without) / full, paired per round.",
    measurements: [pipelineMb, floorMb, peerMb, ...eventsPerSecond, ...shares],
    ratios: [
      ratio('pipeline / JSON.parse+stringify floor (MB/s)', pipelineMb, floorMb, { op: '>=', value: 0.45 }),
      ratio('pipeline / peer assembly (MB/s)', pipelineMb, peerMb, { op: '>=', value: 2 }),
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
