/**
 * The sync floor of a commit pattern (bench/pipeline.ts, many sessions): the least time a given
 * number of synced lmdb commits takes on this disk, with nothing else to do. Each commit holds
 * `values` values of `valueBytes` bytes and as many small index entries, written in one
 * event-loop turn and awaited before the next commit starts, in an environment opened as the
 * store opens its own (`overlappingSync: false`: a commit resolves once its data and its meta
 * page are on disk). Sessions that each await such a commit cannot finish faster than this,
 * whatever the pipeline does before it.
 *
 * Also: how many transactions a store committed, read from lmdb's last transaction id (the
 * environment of a path is shared within a process, so a second open reads the live one).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { open, type Database, type RootDatabase } from 'lmdb';

/** Shape of the commits the floor replays. */
export interface CommitPattern {
  commits: number;
  /** Values per commit (one per session sharing the commit). */
  values: number;
  valueBytes: number;
}

/** A bare lmdb environment that times synced commits. */
export interface SyncFloor {
  /** Milliseconds `pattern.commits` synced commits took. */
  run(pattern: CommitPattern): Promise<number>;
  close(): Promise<void>;
}

/** Open the floor's environment in a temporary directory (removed by `close`). */
export function openSyncFloor(): SyncFloor {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-sync-floor-'));
  const root: RootDatabase = open({ path: dir, maxDbs: 4, overlappingSync: false });
  const values: Database<Uint8Array, [string, number]> = root.openDB({ name: 'batches', encoding: 'binary' });
  const index: Database<{ events: number }, string> = root.openDB({ name: 'sessions' });
  let run = 0;
  return {
    async run(pattern) {
      const value = Buffer.alloc(Math.max(1, Math.round(pattern.valueBytes)), 0x61);
      const r = run++;
      const start = performance.now();
      for (let c = 0; c < pattern.commits; c++) {
        let last: Promise<unknown> | undefined;
        for (let v = 0; v < pattern.values; v++) {
          const key = `floor-${r}-${c}-${v}`;
          last = values.put([key, 0], value);
          index.put(key, { events: v });
        }
        // Every put of one turn is one transaction; its promise resolves once it is synced.
        await last;
      }
      return performance.now() - start;
    },
    async close() {
      await root.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Second handles on stores' environments, one per directory (never closed: the store's own handle shares the environment). */
const handles = new Map<string, RootDatabase>();

function handle(dir: string): RootDatabase {
  let root = handles.get(dir);
  if (!root) handles.set(dir, (root = open({ path: dir, maxDbs: 8, overlappingSync: false })));
  return root;
}

/** lmdb's last transaction id of the store at `dir` (shared environment: live within this process). */
export function lastTxnId(dir: string): number {
  return (handle(dir).getStats() as { lastTxnId: number }).lastTxnId;
}

/** Bytes of the batch values stored under keys starting with `prefix` (as written: compressed values count compressed). */
export function storedBytes(dir: string, prefix: string): number {
  const batches: Database<Uint8Array, [string, number]> = handle(dir).openDB({ name: 'batches', encoding: 'binary' });
  let bytes = 0;
  for (const { key, value } of batches.getRange({ start: [prefix, 0] })) {
    if (!(key[0] as string).startsWith(prefix)) break;
    bytes += value.length;
  }
  return bytes;
}
