/**
 * The LMDB environment of a store and its named databases, opened under the open lock
 * (open-lock.ts), with the options every process must open them with.
 */
import fs from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { MinicodeError } from '../errors.js';
import type { BatchKey } from './event-batches.js';
import type { ContentRecord } from './content-store.js';
import { withOpenLock } from './open-lock.js';
import type { SessionIndexEntry } from './session-index.js';
import type { StoredEvent } from './stored-event.js';

/** Key of a per-event value of older stores: the session and the event's seq. */
export type EventKey = [string, number];

/**
 * Shared msgpackr structures of the per-event database of older stores: 128 (msgpackr's default is 32). The
 * envelope and payload shapes of the recorded corpus number about 100; past the limit a shape is
 * written inline in every value that uses it, which costs ~15% more encode time per event
 * (bench/store.ts). A store written with the default opens and grows past 32 (its first 32 ids
 * keep their one-byte form); a build still on 32 reads such a store but cannot append to it.
 */
export const MAX_SHARED_STRUCTURES = 128;

/**
 * Batch values of at least this many bytes are LZ4-compressed. Large values (a long session's
 * turns, bulk appends) shrink about 3x and cost less to write and sync than they cost to
 * compress; the few-KiB values of short sessions cost more CPU to compress than they save
 * (bench/store.ts, corpus vs synthetic run).
 */
export const BATCH_COMPRESSION_THRESHOLD = 8192;

/** The open environment and its databases. */
export interface StoreDatabases {
  root: RootDatabase;
  /** Per-event values of older stores (undefined read-only when never written). */
  events: Database<StoredEvent, EventKey> | undefined;
  /** Batch values (undefined read-only when never written). */
  batches: Database<Uint8Array, BatchKey> | undefined;
  sessions: Database<SessionIndexEntry, string>;
  contentDb: Database<ContentRecord, string>;
}

/** Open the environment of `dir` and its databases; throws MINICODE_E_STORE when it cannot. */
export function openDatabases(options: { dir: string; readOnly?: boolean; compression?: boolean }): StoreDatabases {
  const { dir } = options;
  try {
    // lmdb would take a plain file for a single-file environment (and may crash reading it).
    if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: it is not a directory`, { action: 'pass --store a directory (created when missing)' });
    }
    if (!options.readOnly) fs.mkdirSync(dir, { recursive: true });
    else if (!fs.existsSync(dir)) throw new MinicodeError('MINICODE_E_STORE', `no store at ${dir}`);
    // The databases too: creating a named database commits, and that commit must not overlap
    // another process's open either.
    return withOpenLock(dir, () => openAll(options));
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: ${(error as Error).message}`, {
      action: 'check the path and its permissions, or pass --store DIR',
      cause: error,
    });
  }
}

function openAll(options: { dir: string; readOnly?: boolean; compression?: boolean }): StoreDatabases {
  // overlappingSync off: with it on (lmdb's default on Linux) a commit returns before its sync
  // and the meta page of the last synced transaction is written by the next one; classic LMDB
  // syncs inside the commit, so an acknowledged transaction is on disk when its promise resolves.
  const root = open({ path: options.dir, compression: options.compression ?? false, maxDbs: 8, readOnly: options.readOnly ?? false, overlappingSync: false });
  // The per-event database of older stores, opened as they wrote it so that they still read.
  // lmdb passes `maxSharedStructures` on to msgpackr but its typings omit it, hence the variable.
  const eventsOptions = { name: 'events', sharedStructuresKey: Symbol.for('structures'), maxSharedStructures: MAX_SHARED_STRUCTURES };
  // Read-only, lmdb gives no database for a name never written (an older store has no
  // batches; a store from this build may have no per-event values): read such a one as empty.
  const events: Database<StoredEvent, EventKey> | undefined = root.openDB(eventsOptions);
  // Values are bytes event-batches.ts encodes: no msgpackr on the write path. LZ4 in lmdb's
  // write thread (off the main thread) shrinks the JSON text about 3x, so a commit writes and
  // syncs fewer pages; values written uncompressed (by older builds, or under the threshold)
  // read the same, since lmdb marks compressed values by a first byte JSON never has.
  const batches: Database<Uint8Array, BatchKey> | undefined = root.openDB({ name: 'batches', encoding: 'binary', compression: { threshold: BATCH_COMPRESSION_THRESHOLD } });
  const sessions: Database<SessionIndexEntry, string> = root.openDB({ name: 'sessions' });
  const contentDb: Database<ContentRecord, string> = root.openDB({ name: 'content' });
  return { root, events, batches, sessions, contentDb };
}
