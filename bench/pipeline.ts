/**
 * End-to-end pipeline throughput on the command path, through `createRunPipeline`
 * (lib/pipeline/compose.ts), the function `ingest`, `exec`, `batch`, `run` and ACP build their
 * pipeline with:
 *   bytes -> decode -> sanitise + scrub -> envelope -> reduce -> JSONL render + LMDB store
 * joined with `joinStages`, each session awaited to the store's acknowledgement (committed and synced) as the commands do.
 * Two session shapes, because the commands have two and they cost differently:
 *  - long session: ONE seeded Codex stream (test/corpus/codex-stream.ts; 60k records, quick
 *    30k) as one session, as `minicode ingest --from codex FILE --store DIR` or one `exec` run,
 *    in the reads `ingest` makes of a file (INGEST_READ_BYTES);
 *  - many sessions: the recorded corpus (providers and native agents, see
 *    test/corpus/pipeline-corpus.ts; median ~10 events a session; 16 KiB socket reads) replicated to at least
 *    100,000 decoded events (quick: 50,000), each source one session, run as `batch` runs them:
 *    on its scheduler (lib/batch/scheduler.ts), 4 executing at once (default `--concurrency 4`),
 *    a session's slot handed on once its events are settled and the session done once its
 *    transaction is synced (lmdb commits a transaction only after the previous one's sync), and
 *    fed as a batch run feeds it: the producer decodes each 16 KiB read and writes the drafts
 *    into the pipeline's entry ({@link SessionHead}). The peer's sessions run on the same scheduler.
 *
 * Floor: for every input record of the same corpus (an SSE `data:` payload or a JSONL line),
 * `JSON.parse` of its text and `JSON.stringify` of an envelope-shaped object holding the result.
 * That is the least any tool must do to turn the same input into JSON events.
 * Peer: the assembly a user would otherwise write (bench/support/peer-assembly.ts):
 * eventsource-parser or a line splitter + JSON.parse + a switch reducer + JSON.stringify + one
 * combined regex of the same secret rules + raw lmdb puts.
 * Targets (MB/s of input bytes, medians of the same run): pipeline >= 0.45x the floor, >= 2x the peer.
 * Sync floor (many sessions): the transactions the full pipeline's round committed (lmdb's
 * transaction ids around it), made again on bare lmdb with as many values of the same average
 * size, each awaited until synced (bench/support/sync-floor.ts): the least time sessions that
 * each await a synced acknowledgement can take on this disk. `sync floor / JSON floor` below
 * 0.45 means the floor target conflicts with that acknowledgement here.
 *
 * Then the same pipeline with each stage removed in turn (decode replaced by writing
 * pre-decoded drafts into the entry; scrub by a pass-through; secret rules only; render; store),
 * and the reducer timed alone over the same envelopes, so the costliest stage is visible: a
 * stage's share is (full - without) / full, per round.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
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
import { createConcurrencyController } from '../lib/batch/concurrency.js';
import { createScheduler } from '../lib/batch/scheduler.js';
import {
  type BenchOptions,
  type BenchReport,
  measurement,
  median,
  ratio,
  runIfMain,
  type Measurement,
} from './harness.js';
import { combinedRegex } from './support/combined-regex.js';
import { openPeerStore, runPeerSource } from './support/peer-assembly.js';
import { lastTxnId, openSyncFloor, storedBytes } from './support/sync-floor.js';
import {
  buildLongSessionCorpus,
  buildPipelineCorpus,
  decoderFor,
  type PipelineCorpus,
  type PreparedSource,
} from '../test/corpus/pipeline-corpus.js';
import { cpuMeter, readMeter } from './support/rusage.js';
import { repoRoot } from '../test/corpus/provider-corpus.js';
import { INGEST_READ_BYTES } from '../lib/pipeline/ingest.js';

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
function makeDecoderFor(
  prepared: PreparedSource,
  count: () => void,
): (onEvent: (e: EventDraft) => void) => StreamDecoder {
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
  /** What every session id of the round starts with. */
  prefix?: string;
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

/**
 * Run `sessions` sessions (numbered from 0) with `batch`'s scheduler (lib/batch/scheduler.ts):
 * `lanes` executing at once (`--concurrency`), a session's slot handed on once its events are
 * settled, and the session itself done once the store acknowledged them (at most
 * the scheduler's `DEFAULT_MAX_ACKNOWLEDGING` wait so at once). Rejects with the first session's error.
 */
async function runLanes(
  sessions: number,
  lanes: number,
  run: (k: number, settled: () => void) => Promise<void>,
): Promise<void> {
  let failure: unknown;
  const scheduler = createScheduler({
    items: Array.from({ length: sessions }, (_, k) => k),
    controller: createConcurrencyController({ max: Math.max(1, lanes) }),
    shouldStop: () => (failure !== undefined ? 'failed' : undefined),
    run: (k, settled) =>
      run(k, settled).catch((error: unknown) => {
        failure ??= error;
      }),
  });
  await scheduler.done;
  if (failure !== undefined) throw failure;
}

/**
 * Where a session's input enters the pipeline. `bytes`: the byte stream is the pipeline's head
 * and its decode stage decodes it, as `ingest` reads a file. `entry`: the producer feeds the
 * decoder itself, one input chunk at a time, and writes what each chunk decoded to into the
 * pipeline's entry, awaiting it when it is full: what a `batch` run's agent loop does with a
 * provider response (lib/agent/provider-call.ts) and the native supervisor with an agent's stdout.
 */
export type SessionHead = 'bytes' | 'entry';

/**
 * Run the corpus once through a variant of the command path; returns elapsed ms. `lanes`
 * sessions execute at once, each awaited to the store's acknowledgement, as `batch` runs them
 * ({@link runLanes}; `--concurrency`, default 4); `head`: how input enters ({@link SessionHead}).
 */
export async function runVariant(
  corpus: PipelineCorpus,
  variant: PipelineVariant,
  sharedStore: EventStore,
  lanes = 1,
  head: SessionHead = 'bytes',
): Promise<RoundResult> {
  const prefix = `bench-${pad(roundCounter++, 6)}-`;
  const store = variant.store ? sharedStore : undefined;
  let outBytes = 0;
  const out = (s: string): void => {
    outBytes += s.length;
  };
  let events = 0;
  const runSession = async (p: number, i: number, settled: () => void): Promise<void> => {
    const prepared = corpus.pass[i] as PreparedSource;
    // Increasing ids, as the product's time-ordered session ids are (lib/ids.ts): a long-lived
    // store appends new sessions at the end of its key space rather than all over it.
    const sessionId = `${prefix}${pad(p, 6)}-${pad(i, 4)}`;
    const renderer = variant.render ? createRenderer('jsonl', { out }) : undefined;
    const run = createRunPipeline({
      sessionId,
      scrubber: scrubberFor(variant),
      ...(renderer ? { renderer } : {}),
      ...(store ? { store } : {}),
      onSettled: settled,
      ...(variant.decode && head === 'bytes'
        ? {
            input: {
              bytes: Readable.from(prepared.chunks),
              makeDecoder: makeDecoderFor(prepared, () => void events++),
            },
          }
        : {}),
    });
    if (variant.decode && head === 'entry') {
      let drafts: EventDraft[] = [];
      const decoder = makeDecoderFor(prepared, () => void events++)((e) => drafts.push(e));
      const flush = (): Promise<void> | undefined => {
        if (drafts.length === 0) return undefined;
        const batch = drafts;
        drafts = [];
        return run.write(batch);
      };
      for (const chunk of prepared.chunks) {
        decoder.feed(chunk);
        const wait = flush();
        if (wait) await wait;
      }
      decoder.end();
      await flush();
    } else if (!variant.decode) {
      for (const batch of prepared.batches) {
        events += batch.length;
        const wait = run.write(batch);
        if (wait) await wait;
      }
    }
    await run.finish();
  };
  const start = performance.now();
  await runLanes(corpus.passes * corpus.pass.length, lanes, (k, settled) =>
    runSession(Math.floor(k / corpus.pass.length), k % corpus.pass.length, settled),
  );
  return { ms: performance.now() - start, events, outBytes, prefix };
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

/**
 * The peer assembly over the same corpus, into its own lmdb store, `lanes` sessions at once
 * with the same scheduler as {@link runVariant}; each session awaits its puts committed and
 * synced (`flushed`), as the pipeline's `finish()` does, after handing its slot on.
 */
async function runPeer(
  corpus: PipelineCorpus,
  db: ReturnType<typeof openPeerStore>,
  secrets: RegExp,
  lanes = 1,
): Promise<RoundResult> {
  const round = roundCounter++;
  let outBytes = 0;
  const out = (s: string): void => {
    outBytes += s.length;
  };
  let events = 0;
  const start = performance.now();
  await runLanes(corpus.passes * corpus.pass.length, lanes, async (k, settled) => {
    const p = Math.floor(k / corpus.pass.length);
    const i = k % corpus.pass.length;
    events += runPeerSource(
      corpus.pass[i] as PreparedSource,
      `peer-${pad(round, 6)}-${pad(p, 6)}-${pad(i, 4)}`,
      secrets,
      db,
      out,
    );
    settled();
    await db.flushed;
  });
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
        const type =
          typeof (payload as { type?: unknown }).type === 'string' ? (payload as { type: string }).type : 'record';
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

/** A session shape the commands have, measured on its own corpus. */
interface Shape {
  /** Label prefix, e.g. `long session`. */
  name: string;
  /** Which commands run their sessions this way. */
  commands: string;
  corpus: PipelineCorpus;
  /** Sessions in flight at once. */
  lanes: number;
  /** The variants besides the full pipeline. */
  ablations: PipelineVariant[];
  /** How a session's input enters, as the shape's commands take it. */
  head: SessionHead;
}

/** Medians of one shape: full pipeline, ablations, floor, peer, reducer alone (ms per round). */
async function measureShape(
  shape: Shape,
  rounds: number,
): Promise<{ ms: Record<string, number[]>; fullOutBytes: number; commitsPer100: number[] }> {
  const { corpus, lanes } = shape;
  const variants = [FULL, ...shape.ablations];
  const ms: Record<string, number[]> = Object.fromEntries([
    ...variants.map((v) => [v.label, []]),
    ['floor', []],
    ['peer', []],
    ['reduce', []],
    ['sync floor', []],
  ]);
  const commitsPer100: number[] = [];
  let fullOutBytes = 0;
  const { store, dispose } = temporaryStore();
  // Sessions that each await their acknowledgement wait on the disk: time the same synced
  // commits on bare lmdb (bench/support/sync-floor.ts), in the same rounds.
  const syncFloor = lanes > 1 ? openSyncFloor() : undefined;
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-peer-'));
  const peerDb = openPeerStore(peerDir);
  const secrets = combinedRegex();
  // The reducer's input: one pass of envelopes, made once.
  const envelopes = corpus.pass.map((p, i) => {
    const enveloper = createEnveloper({ sessionId: `reduce-${i}` });
    return p.drafts.map((d) => enveloper.wrap(d));
  });
  // The warm-up round (r = 0, not recorded) replays a quarter of the corpus (all of a one-pass corpus): enough for the JIT.
  const warmUp: PipelineCorpus = { ...corpus, passes: Math.max(1, corpus.passes >> 2) };
  warmUp.totalEvents = warmUp.passes * corpus.eventsPerPass;
  warmUp.totalBytes = warmUp.passes * corpus.bytesPerPass;
  for (let r = 0; r < rounds + 1; r++) {
    const input = r === 0 ? warmUp : corpus;
    for (const v of variants) {
      const txnBefore = syncFloor && v.store ? lastTxnId(store.dir) : 0;
      const res = await runVariant(input, v, store, lanes, shape.head);
      if (res.events !== input.totalEvents)
        throw new Error(`${shape.name}, ${v.label}: ${res.events} events, expected ${input.totalEvents}`);
      if (r > 0) (ms[v.label] as number[]).push(res.ms);
      if (v === FULL) fullOutBytes = res.outBytes;
      if (syncFloor && v === FULL) {
        const sessions = input.passes * corpus.pass.length;
        const commits = lastTxnId(store.dir) - txnBefore;
        const bytes = storedBytes(store.dir, res.prefix as string);
        const floorMs = await syncFloor.run({
          commits,
          values: Math.max(1, Math.round(sessions / commits)),
          valueBytes: bytes / sessions,
        });
        if (r > 0) {
          (ms['sync floor'] as number[]).push(floorMs);
          commitsPer100.push((100 * commits) / sessions);
        }
      }
    }
    const floor = runFloor(input);
    const peer = await runPeer(input, peerDb, secrets, lanes);
    const reduceOnly = runReduceOnly(input, envelopes);
    if (r > 0) {
      (ms.floor as number[]).push(floor.ms);
      (ms.peer as number[]).push(peer.ms);
      (ms.reduce as number[]).push(reduceOnly.ms);
    }
  }
  await dispose();
  await syncFloor?.close();
  await peerDb.close();
  fs.rmSync(peerDir, { recursive: true, force: true });
  return { ms, fullOutBytes, commitsPer100 };
}

/** Measurements, ratios (with the issue's targets) and notes of one measured shape. */
function reportShape(
  shape: Shape,
  ms: Record<string, number[]>,
  fullOutBytes: number,
  rounds: number,
  commitsPer100: number[],
): Pick<BenchReport, 'measurements' | 'ratios' | 'notes'> {
  const { corpus, name } = shape;
  const mb = corpus.totalBytes / 1e6;
  const full = ms[FULL.label] as number[];
  const floorMs = ms.floor as number[];
  const pipelineMb = measurement(
    `${name}: full pipeline (command path)`,
    'MB/s',
    full.map((t) => mb / (t / 1000)),
  );
  const floorMb = measurement(
    `${name}: floor: JSON.parse + JSON.stringify`,
    'MB/s',
    floorMs.map((t) => mb / (t / 1000)),
  );
  const peerMb = measurement(
    `${name}: peer: eventsource-parser + JSON.parse + switch reducer + JSON.stringify + combined regex + lmdb puts`,
    'MB/s',
    (ms.peer as number[]).map((t) => mb / (t / 1000)),
  );
  const eventsPerSecond: Measurement[] = [
    measurement(
      `${name}: full pipeline`,
      'events/s',
      full.map((t) => corpus.totalEvents / (t / 1000)),
    ),
    ...shape.ablations.map((v) =>
      measurement(
        `${name}: ${v.label}`,
        'events/s',
        (ms[v.label] as number[]).map((t) => corpus.totalEvents / (t / 1000)),
      ),
    ),
    measurement(
      `${name}: floor (input records/s)`,
      'events/s',
      floorMs.map((t) => (corpus.recordsPerPass * corpus.passes) / (t / 1000)),
    ),
  ];
  // Share of each removed stage in the full pipeline's time, paired per round (same neighbours).
  const shares = [
    ...shape.ablations.map((v) => {
      const without = ms[v.label] as number[];
      return measurement(
        `${name}: share: ${v.label.replace(/^without /, '')}`,
        '% of full time',
        full.map((t, i) => (100 * (t - (without[i] as number))) / t),
      );
    }),
    measurement(
      `${name}: share: reduce (timed alone)`,
      '% of full time',
      full.map((t, i) => (100 * ((ms.reduce as number[])[i] as number)) / t),
    ),
  ];
  const costliest = [...shares].sort((a, b) => b.median - a.median)[0];
  // The disk's bound for sessions that each await a synced commit (many sessions only).
  const syncMs = ms['sync floor'] as number[];
  const syncFloorMb =
    syncMs.length > 0
      ? measurement(
          `${name}: sync floor: the same synced commits on bare lmdb`,
          'MB/s',
          syncMs.map((t) => mb / (t / 1000)),
        )
      : undefined;
  const commits =
    commitsPer100.length > 0
      ? measurement(`${name}: synced commits per 100 sessions`, 'commits', commitsPer100, false)
      : undefined;
  const syncRatios = syncFloorMb
    ? [
        ratio(`${name}: pipeline / sync floor (MB/s)`, pipelineMb, syncFloorMb),
        // Below 0.45, no pipeline that acknowledges each session once synced meets the floor target on this disk.
        ratio(`${name}: sync floor / JSON.parse+stringify floor (MB/s)`, syncFloorMb, floorMb),
      ]
    : [];
  return {
    measurements: [
      pipelineMb,
      floorMb,
      peerMb,
      ...(syncFloorMb ? [syncFloorMb] : []),
      ...(commits ? [commits] : []),
      ...eventsPerSecond,
      ...shares,
    ],
    ratios: [
      ratio(`${name}: pipeline / JSON.parse+stringify floor (MB/s)`, pipelineMb, floorMb, { op: '>=', value: 0.45 }),
      ratio(`${name}: pipeline / peer assembly (MB/s)`, pipelineMb, peerMb, { op: '>=', value: 2 }),
      ...syncRatios,
      ...shape.ablations.map((v) => {
        const without = ms[v.label] as number[];
        // Below 1: removing the stage saves that fraction of the time.
        return { label: `${name}: time ${v.label} / full time`, value: median(without) / median(full) };
      }),
    ],
    notes: [
      `${name} (${shape.commands}): ${corpus.origin}; one pass = ${corpus.pass.length} sessions, ${corpus.eventsPerPass} events, ${corpus.recordsPerPass} records, ${corpus.bytesPerPass} bytes; replicated x${corpus.passes} = ${corpus.totalEvents} events, ${mb.toFixed(1)} MB per round; ${shape.lanes} session(s) in flight`,
      `${name}: ${rounds} rounds after one warm-up, variants interleaved per round; JSONL output of the full pipeline ${(fullOutBytes / 1e6).toFixed(1)} MB per round`,
      ...(syncFloorMb
        ? [
            `${name}: sync floor: the full pipeline's round committed ${commits?.median.toFixed(1)} transactions per 100 sessions (lmdb's transaction ids around it); bare lmdb (overlappingSync off, as the store) then made as many commits of as many values of the same average size, each awaited until synced, with nothing else to do: no pipeline whose sessions each await a synced acknowledgement runs faster on this disk`,
          ]
        : []),
      `${name}: costliest stage: ${costliest ? `${costliest.label.replace(/^.*share: /, '')} (${costliest.median.toFixed(0)}% of the full time)` : 'n/a'}; shares overlap (removing the store also removes its index reduce) and need not sum to 100%`,
    ],
  };
}

/** One process the command rows run each round: its label and its arguments after `node`. */
interface CommandCompetitor {
  key: 'minicode' | 'bare' | 'bareUncompressed' | 'bareNoStore' | 'peer';
  label: string;
  args: (file: string, store: string) => string[];
}

/**
 * The long session as the command runs it, a process of its own, measured from outside the way a
 * user would: `minicode ingest --from codex FILE --json --store DIR` over the same seeded stream
 * (stdout to /dev/null, a fresh store each round).
 * Its process CPU counts every thread (lmdb's write thread and its LZ4, the garbage collector's
 * and the compiler's helpers) and the start-up; the floor's CPU is the same JSON.parse +
 * JSON.stringify work as above, timed in this process over the same records, in the same rounds.
 * Beside it, in the same rounds and measured the same way: the peer assembly as a process of its
 * own (bench/support/ingest-peer.ts), and the job done by the least a Node program needs
 * (bench/support/ingest-floor.ts: parse, the envelope's fields around each record, the lines out,
 * one LZ4 value per read in lmdb; and the same without the store), which bounds what any
 * implementation on Node and lmdb can reach against the floor on this machine.
 * The rows above time a warm pipeline's wall clock inside one process; these are what the
 * command costs the machine.
 */
function measureIngestCommand(
  corpus: PipelineCorpus,
  rounds: number,
): Pick<BenchReport, 'measurements' | 'ratios' | 'notes'> {
  const root = repoRoot(import.meta.url);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-ingest-'));
  try {
    // The stream's own bytes, as the in-process rows read them.
    const file = path.join(scratch, 'codex.jsonl');
    const bytes = (corpus.pass[0] as PreparedSource).source.bytes;
    fs.writeFileSync(file, bytes);
    const meter = cpuMeter(root, scratch);
    if (!meter)
      return {
        measurements: [],
        ratios: [],
        notes: ['long session, the ingest command: not measured (neither a C compiler nor /usr/bin/time)'],
      };
    const script = (name: string): string => path.join(root, 'dist', name);
    const support = (name: string): string => fileURLToPath(new URL(`./support/${name}`, import.meta.url));
    const reads = ['--read-bytes', String(INGEST_READ_BYTES)];
    const competitors: CommandCompetitor[] = [
      {
        key: 'minicode',
        label: 'minicode ingest',
        args: (f, store) => [script('cli/main.js'), 'ingest', '--from', 'codex', f, '--json', '--store', store],
      },
      {
        key: 'bare',
        label: 'bare Node job, with its store',
        args: (f, store) => [support('ingest-floor.js'), f, ...reads, '--store', store],
      },
      {
        key: 'bareUncompressed',
        label: 'bare Node job, uncompressed store',
        args: (f, store) => [support('ingest-floor.js'), f, ...reads, '--store', store, '--uncompressed'],
      },
      {
        key: 'bareNoStore',
        label: 'bare Node job, no store',
        args: (f) => [support('ingest-floor.js'), f, ...reads, '--no-store'],
      },
      {
        key: 'peer',
        label: 'peer assembly as a process',
        args: (f, store) => [support('ingest-peer.js'), f, ...reads, '--store', store],
      },
    ];
    // Node's own options and extra CA certificates are the shell's, not the job's (the second
    // makes every start read and parse a certificate file).
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: scratch };
    delete env.NODE_OPTIONS;
    delete env.NODE_EXTRA_CA_CERTS;
    const cpuMs: Record<CommandCompetitor['key'], number[]> = {
      minicode: [],
      bare: [],
      bareUncompressed: [],
      bareNoStore: [],
      peer: [],
    };
    const wallMs: number[] = [];
    const floorMs: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      for (const competitor of competitors) {
        const store = path.join(scratch, `store-${competitor.key}-${r}`);
        const usage = path.join(scratch, `usage-${competitor.key}-${r}.txt`);
        const [command, ...prefix] = meter.prefix(usage);
        const started = performance.now();
        const child = spawnSync(command as string, [...prefix, process.execPath, ...competitor.args(file, store)], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env,
        });
        const wall = performance.now() - started;
        if (child.status !== 0)
          throw new Error(`${competitor.label} exited ${child.status}: ${child.stderr.toString('utf8').slice(-600)}`);
        fs.rmSync(store, { recursive: true, force: true });
        if (r === 0) continue;
        cpuMs[competitor.key].push(readMeter(usage).cpuS * 1000);
        if (competitor.key === 'minicode') wallMs.push(wall);
      }
      const before = process.cpuUsage();
      runFloor(corpus);
      const floor = process.cpuUsage(before);
      if (r > 0) floorMs.push((floor.user + floor.system) / 1000);
    }
    const mb = bytes.length / 1e6;
    const perCpu = (key: CommandCompetitor['key'], label: string): Measurement =>
      measurement(
        label,
        'MB/s',
        cpuMs[key].map((t) => mb / (t / 1000)),
      );
    const minicode = perCpu(
      'minicode',
      'long session, the ingest command: MB per second of process CPU (all threads, start-up included)',
    );
    const bare = perCpu(
      'bare',
      'long session, the ingest command: bare Node job with its store, MB per second of process CPU',
    );
    const bareUncompressed = perCpu(
      'bareUncompressed',
      'long session, the ingest command: bare Node job with an uncompressed store, MB per second of process CPU',
    );
    const bareNoStore = perCpu(
      'bareNoStore',
      'long session, the ingest command: bare Node job without a store, MB per second of process CPU',
    );
    const peer = perCpu(
      'peer',
      'long session, the ingest command: peer assembly as a process, MB per second of process CPU',
    );
    const perWall = measurement(
      'long session, the ingest command: MB per second of wall time',
      'MB/s',
      wallMs.map((t) => mb / (t / 1000)),
    );
    const floor = measurement(
      'long session, the ingest command: floor, MB per second of CPU (JSON.parse + JSON.stringify, one thread)',
      'MB/s',
      floorMs.map((t) => mb / (t / 1000)),
    );
    return {
      measurements: [minicode, perWall, bare, bareUncompressed, bareNoStore, peer, floor],
      ratios: [
        ratio(
          'long session, the ingest command: process CPU / JSON.parse+stringify floor CPU (MB per CPU-second)',
          minicode,
          floor,
          { op: '>=', value: 0.45 },
        ),
        ratio('long session, the ingest command: wall / JSON.parse+stringify floor CPU (MB/s)', perWall, floor),
        ratio(
          'long session, the ingest command: process CPU / the peer assembly as a process (MB per CPU-second)',
          minicode,
          peer,
          { op: '>=', value: 2 },
        ),
        ratio(
          'long session, the ingest command: bare Node job with its store / JSON.parse+stringify floor CPU (what Node and lmdb allow)',
          bare,
          floor,
        ),
        ratio(
          'long session, the ingest command: bare Node job with an uncompressed store / JSON.parse+stringify floor CPU',
          bareUncompressed,
          floor,
        ),
        ratio(
          'long session, the ingest command: bare Node job without a store / JSON.parse+stringify floor CPU',
          bareNoStore,
          floor,
        ),
        ratio(
          'long session, the ingest command: minicode / the bare Node job with its store (MB per CPU-second)',
          minicode,
          bare,
        ),
      ],
      notes: [
        `long session, the ingest command: \`minicode ingest --from codex FILE --json --store DIR\` as a process of its own over the same ${corpus.recordsPerPass}-record stream (${mb.toFixed(1)} MB), stdout to /dev/null, a fresh store each round; ${rounds} rounds after one warm-up, interleaved with the floor, the peer assembly as a process (bench/support/ingest-peer.ts) and the bare Node job (bench/support/ingest-floor.ts: JSON.parse, the v1 envelope's fields around each record, the lines out, one LZ4 value per read in lmdb, synced; no decoding, scrubbing, reducer or index) with its store, with the store uncompressed, and without a store; CPU from ${meter.describe}`,
      ],
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Sessions `batch` runs at once by default (`--concurrency`). */
const BATCH_LANES = 4;

/** Run the end-to-end benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  // Quick mode takes more rounds of its smaller input: on a shared machine one round in three
  // can run 20% slow, and stage shares are differences of medians.
  const rounds = options.quick ? 7 : 5;
  const shapes: Shape[] = [
    {
      name: 'long session',
      commands: 'ingest of a recorded stream, one exec run',
      corpus: buildLongSessionCorpus({ records: options.quick ? 30_000 : 60_000 }),
      lanes: 1,
      ablations: ABLATIONS,
      head: 'bytes',
    },
    {
      name: 'many sessions',
      commands: `batch: one session per recorded stream, ${BATCH_LANES} in flight as batch --concurrency runs them`,
      // Sessions here wait on the disk's sync (see the header): 100k events (quick: 50k) give
      // stable medians without minutes of sync waits per variant.
      corpus: buildPipelineCorpus({ minEvents: options.quick ? 50_000 : 100_000 }),
      lanes: BATCH_LANES,
      ablations: ABLATIONS.filter((v) => !v.store),
      head: 'entry',
    },
  ];
  const parts = [];
  for (const shape of shapes) {
    const { ms, fullOutBytes, commitsPer100 } = await measureShape(shape, rounds);
    parts.push(reportShape(shape, ms, fullOutBytes, rounds, commitsPer100));
  }
  const long = shapes[0] as Shape;
  parts.push(measureIngestCommand(long.corpus, 5));
  return {
    name: 'pipeline',
    title: 'End-to-end pipeline throughput (command path)',
    description:
      'createRunPipeline, the function every command builds its pipeline with: bytes -> decode -> sanitise + scrub -> envelope -> reduce -> JSONL render -> LMDB store (durable events), ' +
      "joined with joinStages (lib/pipeline/join.ts), each session awaited to the store's acknowledgement (committed and synced), in the two session shapes the commands have: " +
      'a long session (one seeded Codex stream of ' +
      (options.quick ? '30k' : '60k') +
      ' records, as ingest and exec take one stream) and many sessions (the recorded provider and native corpus replicated to ' +
      (options.quick ? '50k' : '100k') +
      `+ events, each source one session, ${BATCH_LANES} in flight as batch runs them); ` +
      'each vs the floor (JSON.parse of each input record + JSON.stringify of an envelope-shaped object) and the peer assembly (eventsource-parser + JSON.parse + switch reducer + JSON.stringify + one combined regex of the same secret rules + raw lmdb puts) in the same run. ' +
      "Then the same with each stage removed in turn; a stage's share is (full - without) / full, paired per round. " +
      "Last, the long session as the command itself, measured from outside: minicode ingest --json --store as a process of its own, its process CPU (all threads, start-up included) against the floor's CPU, beside the peer assembly as a process and a bare Node job (parse, the envelope's fields, the lines out, one lmdb value per read: LZ4, uncompressed, or no store) measured the same way.",
    measurements: parts.flatMap((p) => p.measurements),
    ratios: parts.flatMap((p) => p.ratios),
    notes: parts.flatMap((p) => p.notes ?? []),
  };
}

await runIfMain(import.meta.url, run);
