/**
 * The LMDB environment of a store and its named databases, opened under the open lock
 * (open-lock.ts), with the options every process must open them with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import { MinicodeError } from '../errors.js';
import type { BatchKey } from './event-batches.js';
import type { ContentRecord } from './content-store.js';
import { withOpenLock } from './open-lock.js';
import type { SessionIndexEntry } from './session-index.js';
import { makePrivateDir, makePrivateFile } from '../private-files.js';

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
  /** Batch values (undefined read-only when never written). */
  batches: Database<Uint8Array, BatchKey> | undefined;
  sessions: Database<SessionIndexEntry, string>;
  contentDb: Database<ContentRecord, string>;
  /** Batch line records by link key (undefined read-only when never written; lib/batch/record-links.ts). */
  batchRecords: Database<unknown, string> | undefined;
}

/** Open the environment of `dir` and its databases; throws MINICODE_E_STORE when it cannot. */
export function openDatabases(options: { dir: string; readOnly?: boolean; compression?: boolean }): StoreDatabases {
  const { dir } = options;
  try {
    // lmdb would take a plain file for a single-file environment (and may crash reading it).
    if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: it is not a directory`, {
        action: 'pass --store a directory (created when missing)',
      });
    }
    if (!options.readOnly) makePrivateDir(dir);
    else if (!fs.existsSync(dir)) throw new MinicodeError('MINICODE_E_STORE', `no store at ${dir}`);
    // The databases too: creating a named database commits, and that commit must not overlap
    // another process's open either. The data file is checked under the lock as well: a commit
    // in flight grows the file and then writes a meta page naming the new pages.
    return withOpenLock(dir, () => {
      checkDataFile(dir, options.readOnly === true);
      const databases = openAll(options);
      // LMDB creates its files 0644: the store holds prompts and model output.
      if (!options.readOnly) for (const name of ['data.mdb', 'lock.mdb']) makePrivateFile(path.join(dir, name));
      return databases;
    });
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: ${(error as Error).message}`, {
      action: 'check the path and its permissions, or pass --store DIR',
      cause: error,
    });
  }
}

/**
 * LMDB's page header on 64-bit builds (page number, txnid, pad, flags, lower, upper bounds): a
 * meta page's MDB_meta starts after it, with the magic number, the data version and (in the
 * free-page database's pad field) the page size.
 */
const PAGE_HEADER = 24;
const P_META = 0x08;
const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 2;
/**
 * Offset in MDB_meta of `mm_last_pg`, the last page the environment uses (after the magic,
 * version, address, map size and two 48-byte MDB_db records); `mm_txnid` follows it.
 */
const LAST_PAGE = 120;
/** Bytes of a meta page read by the check: the header and MDB_meta up to its last page number. */
const META_BYTES = PAGE_HEADER + LAST_PAGE + 8;

/**
 * Refuse a data file that is not an LMDB environment of this format, or that is shorter than
 * its meta pages say, before lmdb maps it: lmdb ends the process (a segmentation fault, a bus
 * error on a page past the end of a cut file, a failed assertion; no exception) on a zeroed,
 * truncated or foreign `data.mdb`. Both meta pages are checked (lmdb picks the newer one
 * without checking the other), and neither may name a page past the file's end: the file only
 * grows, so a page it lacks was cut off. An absent file is a new store, and so is an empty one
 * for a writer (lmdb writes its meta pages); a reader cannot open an empty one. Damage inside
 * the pages the file still has is not detected here.
 */
function checkDataFile(dir: string, readOnly: boolean): void {
  const file = path.join(dir, 'data.mdb');
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const damaged = (what: string): MinicodeError =>
    new MinicodeError(
      'MINICODE_E_STORE',
      `cannot open the store at ${dir}: ${file} is not a valid LMDB data file (${what})`,
      {
        action: 'move the store folder aside (a new store is then made in its place), or pass --store DIR',
      },
    );
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) {
      if (readOnly) throw damaged('it is empty');
      return;
    }
    const meta = Buffer.alloc(META_BYTES);
    const readMeta = (offset: number, which: string): void => {
      if (fs.readSync(fd, meta, 0, META_BYTES, offset) < META_BYTES) throw damaged(`${which} meta page cut short`);
      if ((meta.readUInt16LE(18) & P_META) === 0 || meta.readUInt32LE(PAGE_HEADER) !== MDB_MAGIC)
        throw damaged(`${which} meta page unreadable`);
      if ((meta.readUInt32LE(PAGE_HEADER + 4) & 0xffff) !== MDB_DATA_VERSION)
        throw damaged(`${which} meta page of data version ${meta.readUInt32LE(PAGE_HEADER + 4) & 0xffff}`);
    };
    const checkLength = (pageSize: number, which: string): void => {
      const lastPage = meta.readBigUInt64LE(PAGE_HEADER + LAST_PAGE);
      const needed = (lastPage + 1n) * BigInt(pageSize);
      if (needed > BigInt(size))
        throw damaged(`${which} meta page uses ${needed} bytes, the file has ${size}: it was cut short`);
    };
    readMeta(0, 'first');
    const pageSize = meta.readUInt32LE(PAGE_HEADER + 24);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) throw damaged(`page size ${pageSize}`);
    checkLength(pageSize, 'first');
    readMeta(pageSize, 'second');
    checkLength(pageSize, 'second');
  } finally {
    fs.closeSync(fd);
  }
}

function openAll(options: { dir: string; readOnly?: boolean; compression?: boolean }): StoreDatabases {
  // overlappingSync off: with it on (lmdb's default on Linux) a commit returns before its sync
  // and the meta page of the last synced transaction is written by the next one; classic LMDB
  // syncs inside the commit, so an acknowledged transaction is on disk when its promise resolves.
  // noSubdir off: lmdb takes a path whose last name has a dot in it (`runs.v2`, `2026.12.04`,
  // mktemp's `tmp.XXXX`) for a single-file environment by default, and the folder made above
  // then fails to open as that file.
  const root = open({
    path: options.dir,
    noSubdir: false,
    compression: options.compression ?? false,
    maxDbs: 8,
    readOnly: options.readOnly ?? false,
    overlappingSync: false,
  });
  // Values are bytes event-batches.ts encodes: no msgpackr on the write path. LZ4 in lmdb's
  // write thread (off the main thread) shrinks the JSON text about 3x, so a commit writes and
  // syncs fewer pages; values written uncompressed (under the threshold) read the same, since
  // lmdb marks compressed values by a first byte JSON never has. Read-only, lmdb gives no
  // database for a name never written (a store with no events yet): read as empty.
  const batches: Database<Uint8Array, BatchKey> | undefined = root.openDB({
    name: 'batches',
    encoding: 'binary',
    compression: { threshold: BATCH_COMPRESSION_THRESHOLD },
  });
  const sessions: Database<SessionIndexEntry, string> = root.openDB({ name: 'sessions' });
  const contentDb: Database<ContentRecord, string> = root.openDB({ name: 'content' });
  const batchRecords: Database<unknown, string> | undefined = root.openDB({ name: 'batch-records' });
  return { root, batches, sessions, contentDb, batchRecords };
}
