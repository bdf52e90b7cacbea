/**
 * bench/store.ts — the event store's write and replay throughput.
 *
 * Writes the durable events of a synthetic long run (test/corpus/synthetic-run.ts) and
 * compares, in interleaved rounds of the same process:
 *  - `store.append` + `flushed()` (registry check, reducer-kept session index, lmdb async put),
 *  - raw `lmdb` async `put` of each record, msgpackr with shared structures under `[sessionId, seq]`
 *    (what a peer would write; the store writes one value per session per turn, see
 *    lib/store/event-batches.ts),
 *  - appending the same events as JSONL to a file (JSON.stringify + one write per 1,000 + fsync).
 * Target: the store at least 0.7x raw lmdb. Also reports msgpack bytes per event (plain and
 * with shared structures) against JSON bytes, and replay throughput (range scan alone, and range
 * scan + rebuild through the reducer).
 *
 * Then the workload the pipeline's store cost comes from (bench/support/store-corpus.ts): the
 * durable events of the recorded corpus, many short sessions and ~100 shapes, into one
 * long-lived store vs one raw lmdb database, the event loop turning every 64 KiB of input.
 * Two more rows split that ratio into its causes: raw lmdb with `overlappingSync: false` (the
 * store's sync regime: each commit synced before it returns, see docs/pipeline.md), and the
 * store given each event's JSON text (as `--json` runs give it the printed line), which leaves
 * out the per-event `JSON.stringify`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { Packr, pack } from 'msgpackr';
import { EVENT_REGISTRY, type OutputEvent } from '../lib/events/index.js';
import { createRebuilder } from '../lib/reducer/index.js';
import { openStore } from '../lib/store/index.js';
import {
  interleave,
  measurement,
  median,
  ratio,
  runIfMain,
  throughput,
  type BenchOptions,
  type BenchReport,
} from './harness.js';
import { storeCorpusSets, writeSessions } from './support/store-corpus.js';
import { syntheticRun } from '../test/corpus/synthetic-run.js';

/** Shared msgpackr structures of the per-event peer: room for the corpus's ~100 shapes (msgpackr's default is 32). */
const MAX_SHARED_STRUCTURES = 128;

/** Run the store benchmark. */
export async function run({ quick }: BenchOptions): Promise<BenchReport> {
  const steps = quick ? 2_000 : 10_000;
  const rounds = quick ? 3 : 5;
  const events = [...syntheticRun({ sessionId: 'bench', steps })].filter((e) => EVENT_REGISTRY[e.type].durable);
  const n = events.length;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-store-'));
  let round = 0;
  const fresh = (name: string) => path.join(base, `${name}-${round++}`);
  let lastStoreDir = '';
  // The store's encoding: shared structures, as many as it allows (lmdb passes the limit on to msgpackr).
  const dbOptions = {
    name: 'events',
    sharedStructuresKey: Symbol.for('structures'),
    maxSharedStructures: MAX_SHARED_STRUCTURES,
  };

  try {
    const times = await interleave(rounds, {
      store: async () => {
        lastStoreDir = fresh('store');
        const store = openStore({ dir: lastStoreDir });
        for (const e of events) store.append(e);
        await store.flushed();
        await store.close();
      },
      lmdb: async () => {
        const root = open({ path: fresh('lmdb'), maxDbs: 8 });
        const db = root.openDB<OutputEvent, [string, number]>(dbOptions);
        for (const e of events) void db.put([e.sessionId, e.seq], e);
        await db.flushed;
        await root.close();
      },
      jsonl: async () => {
        const fd = fs.openSync(fresh('jsonl') + '.jsonl', 'a');
        let chunk: string[] = [];
        for (const e of events) {
          chunk.push(JSON.stringify(e));
          if (chunk.length === 1000) {
            fs.writeSync(fd, chunk.join('\n') + '\n');
            chunk = [];
          }
        }
        if (chunk.length > 0) fs.writeSync(fd, chunk.join('\n') + '\n');
        fs.fsyncSync(fd);
        fs.closeSync(fd);
      },
    });

    // Replay from the last store written: range scan alone, and scan + rebuild.
    const reader = openStore({ dir: lastStoreDir, readOnly: true });
    const replay = await interleave(rounds, {
      scan: () => {
        let c = 0;
        for (const _ of reader.iterateSession('bench')) c++;
        if (c !== n) throw new Error(`replay read ${c} of ${n}`);
      },
      rebuild: () => {
        const r = createRebuilder({ sessionId: 'bench' });
        for (const e of reader.iterateSession('bench')) r.push(e);
        if (r.finish().run.outcome !== 'completed') throw new Error('rebuild did not complete');
      },
    });
    await reader.close();

    // The recorded corpus, one long-lived store and one raw database (structures learnt in the warm-up round).
    const corpus = storeCorpusSets(quick ? 30_000 : 100_000, rounds + 1);
    const corpusStore = openStore({ dir: path.join(base, 'corpus-store') });
    const corpusRoot = open({ path: path.join(base, 'corpus-lmdb'), maxDbs: 8 });
    const corpusDb = corpusRoot.openDB<OutputEvent, [string, number]>(dbOptions);
    const corpusSyncRoot = open({ path: path.join(base, 'corpus-lmdb-sync'), maxDbs: 8, overlappingSync: false });
    const corpusSyncDb = corpusSyncRoot.openDB<OutputEvent, [string, number]>(dbOptions);
    const corpusLinesStore = openStore({ dir: path.join(base, 'corpus-store-lines') });
    // Made before the rounds: what the JSONL renderer would have printed (the text is the same but for terminal escapes).
    const lineOf = new Map<OutputEvent, string>();
    for (const set of corpus.sets)
      for (const session of set) for (const e of session.events) lineOf.set(e, JSON.stringify(e));
    let storeSet = 0;
    let rawSet = 0;
    let syncSet = 0;
    let linesSet = 0;
    const corpusTimes = await interleave(rounds, {
      store: () =>
        writeSessions(
          corpus.sets[storeSet++] ?? [],
          (e) => corpusStore.append(e),
          () => corpusStore.flushed(),
        ),
      lmdb: () =>
        writeSessions(
          corpus.sets[rawSet++] ?? [],
          (e) => corpusDb.put([e.sessionId, e.seq], e),
          () => corpusDb.flushed,
        ),
      lmdbSync: () =>
        writeSessions(
          corpus.sets[syncSet++] ?? [],
          (e) => corpusSyncDb.put([e.sessionId, e.seq], e),
          () => corpusSyncDb.flushed,
        ),
      storeLines: () =>
        writeSessions(
          corpus.sets[linesSet++] ?? [],
          (e) => corpusLinesStore.append(e, lineOf.get(e)),
          () => corpusLinesStore.flushed(),
        ),
    });
    await corpusStore.close();
    await corpusRoot.close();
    await corpusSyncRoot.close();
    await corpusLinesStore.close();

    const structured = new Packr({ structures: [], maxSharedStructures: MAX_SHARED_STRUCTURES });
    const sizes = {
      plain: median(events.map((e) => pack(e).byteLength)),
      shared: median(events.map((e) => structured.pack(e).byteLength)),
      json: median(events.map((e) => Buffer.byteLength(JSON.stringify(e)))),
    };

    const store = measurement('store.append + flushed()', 'events/s', throughput(times.store ?? [], n));
    const raw = measurement('raw lmdb async put (same keys, encoding)', 'events/s', throughput(times.lmdb ?? [], n));
    const jsonl = measurement('JSONL append + fsync', 'events/s', throughput(times.jsonl ?? [], n));
    const scan = measurement('replay: range scan', 'events/s', throughput(replay.scan ?? [], n));
    const rebuild = measurement('replay: range scan + rebuild', 'events/s', throughput(replay.rebuild ?? [], n));
    const corpusStoreRate = measurement(
      'corpus: store.append + flushed()',
      'events/s',
      throughput(corpusTimes.store ?? [], corpus.durablePerSet),
    );
    const corpusRaw = measurement(
      'corpus: raw lmdb async put (same keys, encoding)',
      'events/s',
      throughput(corpusTimes.lmdb ?? [], corpus.durablePerSet),
    );
    const corpusRawSync = measurement(
      'corpus: raw lmdb, overlappingSync off (the store sync regime)',
      'events/s',
      throughput(corpusTimes.lmdbSync ?? [], corpus.durablePerSet),
    );
    const corpusStoreLines = measurement(
      'corpus: store.append(event, its JSON text) + flushed()',
      'events/s',
      throughput(corpusTimes.storeLines ?? [], corpus.durablePerSet),
    );
    return {
      name: 'store',
      title: 'Event store (LMDB) write and replay',
      description: `${n} durable events of a synthetic run; store vs raw lmdb puts vs JSONL; replay from the store; then the durable events of the recorded pipeline corpus (many sessions and shapes), store vs raw lmdb.`,
      measurements: [
        store,
        raw,
        jsonl,
        scan,
        rebuild,
        corpusStoreRate,
        corpusRaw,
        corpusRawSync,
        corpusStoreLines,
        measurement('msgpack bytes/event (shared structures)', 'bytes', [sizes.shared], false),
        measurement('msgpack bytes/event (plain)', 'bytes', [sizes.plain], false),
        measurement('JSON bytes/event', 'bytes', [sizes.json], false),
      ],
      ratios: [
        ratio('store / raw lmdb', store, raw, { op: '>=', value: 0.7 }),
        ratio('store / JSONL', store, jsonl),
        ratio('corpus: store / raw lmdb', corpusStoreRate, corpusRaw),
        ratio('corpus: store / raw lmdb, overlappingSync off', corpusStoreRate, corpusRawSync),
        ratio('corpus: store given JSON text / raw lmdb, overlappingSync off', corpusStoreLines, corpusRawSync),
      ],
      notes: [
        `corpus: ${corpus.origin}; ${corpus.durablePerSet} durable events per round in ${corpus.sets[0]?.length ?? 0} sessions`,
        'the store also checks durability, folds session/task/response events through the reducer for its index entry and writes that entry once per event-loop turn; raw lmdb writes events only',
        "the store writes one JSON value per session per turn, LZ4-compressed in lmdb's write thread from 8 KiB (docs/pipeline.md); raw lmdb writes one msgpackr value per event, uncompressed",
        "corpus rows are wall time, sync waits included: the store syncs each commit before it returns (two device flushes), raw lmdb's default overlapping sync does not; the 'overlappingSync off' row has the store's sync regime, the 'JSON text' row leaves out the store's JSON.stringify per event",
        'the machine is shared and noisy: compare ratios from the same run, not absolute rates across runs',
      ],
    };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, run);
