/**
 * The event store: durable `minicode.output.v1` events in embedded LMDB, one value per session
 * per event-loop turn holding that turn's events as one JSON array, keyed
 * `[sessionId, seq of the first]` so one session replays in order with a range scan
 * (event-batches.ts); a session index; and a content store for large payloads. Stores written
 * with one msgpackr value per event are still read (stored-event.ts).
 *
 * `append` queues the event's JSON text: the JSONL line when the caller printed one (then that
 * text is stored, not made twice), else `JSON.stringify` of the event; at the end of the turn
 * each session's queued events become one put (several when the turn outgrows the batch bound).
 * Writes use lmdb's async `put`, which batches every put of one event-loop turn into one
 * transaction committed off the main thread; `append` never waits. `flushed()` resolves once
 * everything appended so far is committed and synced, `flushed(sessionId)` once that session's
 * events are: that is the acknowledgement a caller may rely on after a crash. A session waits
 * for the transaction holding its last events, not for whatever other sessions wrote since, so
 * concurrent sessions share syncs instead of queueing behind each other's. A batch is one
 * value, so a crash keeps all of it or none. Live events (deltas, progress) are not stored.
 *
 * LMDB allows one writer and many readers across processes: `replay` and `sessions` may read a
 * store while another process writes it, and see every committed transaction.
 */
import fs from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { ContentRef, OutputEvent } from '../events/index.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import { MinicodeError } from '../errors.js';
import { initialState, reduceOwned, type ReducerState } from '../reducer/index.js';
import { decodeBatch, encodeBatch, MAX_BATCH_CHARS, MAX_BATCH_EVENTS, mergeBySeq, type BatchKey, type PendingBatch } from './event-batches.js';
import { createContentStore, type ContentLookup, type ContentRecord } from './content-store.js';
import { effectiveEntry, indexEntryOf, promptDigest, promptOf, type SessionIndexEntry } from './session-index.js';
import { fromStored, type StoredEvent } from './stored-event.js';

/** Options of {@link openStore}. */
export interface StoreOptions {
  /** The store directory (created when missing unless `readOnly`). */
  dir: string;
  /** LZ4 compression of large values (lmdb `compression`); default false. */
  compression?: boolean;
  /** Largest content-store entry in bytes; default 8 MiB. */
  maxContentBytes?: number;
  /** Open for reading only (the directory must exist); default false. */
  readOnly?: boolean;
  /** Pid recorded in the index of sessions this process writes; default `process.pid`. */
  writerPid?: number;
  /** Clock for eviction markers; default `Date.now`. */
  clock?: () => number;
  /**
   * Sessions whose index state the writer keeps in memory; default 1024. Past it, the sessions
   * written longest ago whose writes are committed are dropped (down to half) and folded again
   * from the store if they write again, so a process that writes many sessions which never end
   * does not grow without bound.
   */
  maxOpenSessions?: number;
}

/** Default of {@link StoreOptions.maxOpenSessions}. */
export const DEFAULT_MAX_OPEN_SESSIONS = 1024;

/** An open store. */
export interface EventStore {
  readonly dir: string;
  /**
   * Queue a durable event for writing; returns false (and stores nothing) for a live event.
   * `line`, when given, must be `jsonLine(event)` (the line `--json` printed): it is stored as is.
   */
  append(event: OutputEvent, line?: string): boolean;
  /**
   * Resolves when everything appended so far (with `sessionId`: every event of that session
   * appended so far) is committed and flushed to disk; rejects on a write error.
   */
  flushed(sessionId?: string): Promise<void>;
  /** Stored events of one session, in sequence order (reads committed data only). */
  iterateSession(sessionId: string): Iterable<OutputEvent>;
  readSession(sessionId: string): OutputEvent[];
  /** One stored event of a session, or undefined (reads committed data only). */
  getEvent(sessionId: string, seq: number): OutputEvent | undefined;
  /** The index entry of one session, as a reader should show it (see `effectiveEntry`). */
  getSession(sessionId: string): SessionIndexEntry | undefined;
  /** Every session in the index, most recently started first. */
  listSessions(): SessionIndexEntry[];
  putContent(content: Uint8Array | string, options?: { mediaType?: string; preview?: string }): Promise<ContentRef>;
  getContent(ref: ContentRef | string): ContentLookup;
  evictContent(ref: ContentRef): Promise<ContentRef>;
  /** Flush and close; the store must not be used afterwards. */
  close(): Promise<void>;
}

type EventKey = [string, number];

const noop = (): void => undefined;

interface OpenSession {
  state: ReducerState;
  digest?: string;
  count: number;
  lastSeq?: number;
  /** Write batch of the session's latest put: it may be dropped once that batch is committed. */
  batch: number;
}

/**
 * Event types that can change an index entry (identity, start, end, run outcome: see the rule
 * in lib/reducer/run.ts). Folding only these keeps the writer's hot path cheap while applying
 * the reducer's own outcome rule; counts are kept beside it.
 */
const INDEX_TYPES = new Set<string>([
  'session.started',
  'session.ended',
  'agent.session.identified',
  'task.started',
  'task.completed',
  'task.failed',
  'task.cancelled',
  'model.response.started',
  'model.response.completed',
]);

function foldForIndex(s: OpenSession, event: OutputEvent): void {
  s.count += 1;
  s.lastSeq = event.seq;
  if (INDEX_TYPES.has(event.type)) reduceOwned(s.state, event);
}

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

/** Open (or create) a store. Throws MINICODE_E_STORE when the directory cannot be opened. */
export function openStore(options: StoreOptions): EventStore {
  const { dir } = options;
  if (!dir) throw new TypeError('openStore: dir is required');
  const maxOpenSessions = options.maxOpenSessions ?? DEFAULT_MAX_OPEN_SESSIONS;
  if (!Number.isInteger(maxOpenSessions) || maxOpenSessions < 1) throw new TypeError('openStore: maxOpenSessions must be an integer >= 1');
  let root: RootDatabase;
  try {
    // lmdb would take a plain file for a single-file environment (and may crash reading it).
    if (fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: it is not a directory`, { action: 'pass --store a directory (created when missing)' });
    }
    if (!options.readOnly) fs.mkdirSync(dir, { recursive: true });
    else if (!fs.existsSync(dir)) throw new MinicodeError('MINICODE_E_STORE', `no store at ${dir}`);
    // overlappingSync off: with it on (lmdb's default on Linux), a writer killed while another
    // process had read the store could reopen with a committed, synced batch missing and a later
    // one present (1-3 in 100 kills under disk load; test/store/crash.test.ts). Classic LMDB
    // commits sync inside the commit, so a later transaction never outlives an earlier one.
    root = open({ path: dir, compression: options.compression ?? false, maxDbs: 8, readOnly: options.readOnly ?? false, overlappingSync: false });
  } catch (error) {
    if (error instanceof MinicodeError) throw error;
    throw new MinicodeError('MINICODE_E_STORE', `cannot open the store at ${dir}: ${(error as Error).message}`, {
      action: 'check the path and its permissions, or pass --store DIR',
      cause: error,
    });
  }
  // The per-event database of older stores, opened as they wrote it so that they still read.
  // lmdb passes `maxSharedStructures` on to msgpackr but its typings omit it, hence the variable.
  const eventsOptions = { name: 'events', sharedStructuresKey: Symbol.for('structures'), maxSharedStructures: MAX_SHARED_STRUCTURES };
  // Read-only, lmdb gives no database for a name never written (an older store has no
  // batches; a store from this build may have no per-event values): read such a one as empty.
  const events: Database<StoredEvent, EventKey> | undefined = root.openDB(eventsOptions);
  // Values are bytes this module encodes (event-batches.ts): no msgpackr on the write path.
  // LZ4 in lmdb's write thread (off the main thread) shrinks the JSON text about 3x, so a commit
  // writes and syncs fewer pages; values written uncompressed (by older builds, or under the
  // threshold) read the same, since lmdb marks compressed values by a first byte JSON never has.
  const batches: Database<Uint8Array, BatchKey> | undefined = root.openDB({ name: 'batches', encoding: 'binary', compression: { threshold: BATCH_COMPRESSION_THRESHOLD } });
  const sessions: Database<SessionIndexEntry, string> = root.openDB({ name: 'sessions' });
  const contentDb: Database<ContentRecord, string> = root.openDB({ name: 'content' });
  const contentOptions: { maxContentBytes?: number; clock?: () => number } = {};
  if (options.maxContentBytes !== undefined) contentOptions.maxContentBytes = options.maxContentBytes;
  if (options.clock !== undefined) contentOptions.clock = options.clock;
  const content = createContentStore(contentDb, contentOptions);
  const writerPid = options.writerPid ?? process.pid;

  // Per open session: the reducer state (for the index entry), the prompt digest and counts.
  const open_ = new Map<string, OpenSession>();
  const dirty = new Set<string>();
  // Events of the current turn, per session, written as one value at its end.
  const pending = new Map<string, PendingBatch>();
  let turnScheduled = false;
  let lastPut: Promise<unknown> | undefined;
  // Per session with writes not yet known synced: when the transaction of its last turn is synced.
  const synced = new Map<string, Promise<void>>();
  // Write batches (one per event-loop turn) numbered in order; lmdb commits them in that order.
  let batch = 0;
  let committedBatch = 0;
  let writeError: unknown;
  const onWriteError = (error: unknown) => {
    writeError ??= error;
  };

  function sessionState(sessionId: string, seq: number) {
    let s = open_.get(sessionId);
    if (!s) {
      // A session resumed by this process: fold what is stored so the index stays truthful.
      // Sequence numbers start at 0 and a resumed session continues its own, so an event with
      // seq 0 opens a new session: nothing can be stored before it, and the index read (an LMDB
      // read transaction renewed after every commit) is skipped.
      const stored = seq === 0 ? undefined : sessions.get(sessionId);
      // Fold without settling: the session goes on, it is not interrupted.
      s = { state: initialState(sessionId), count: 0, batch };
      if (stored) {
        for (const e of iterate(sessionId)) foldForIndex(s, e);
        if (stored.promptDigest !== undefined) s.digest = stored.promptDigest;
      }
      open_.set(sessionId, s);
    }
    return s;
  }

  function putBatch(sessionId: string, p: PendingBatch): void {
    track((batches as Database<Uint8Array, BatchKey>).put([sessionId, p.firstSeq], encodeBatch(p.lines)));
  }

  /**
   * Resolves once every put made so far is committed and synced. lmdb's `flushed` is read when
   * `then` is called, so it is taken now: later puts (other sessions) are not waited for.
   */
  function syncedNow(): Promise<void> {
    const put = lastPut?.then(noop, noop);
    return Promise.all([put, root.flushed]).then(noop);
  }

  /** End of a turn: each session's events as one value, then the index entries, in one transaction. */
  function writeTurn(): void {
    turnScheduled = false;
    for (const [id, p] of pending) putBatch(id, p);
    pending.clear();
    if (dirty.size === 0) return;
    const ids = [...dirty];
    dirty.clear();
    for (const id of ids) {
      const s = open_.get(id);
      if (!s) continue;
      track(sessions.put(id, indexEntryOf(s.state, { digest: s.digest, writerPid, eventCount: s.count, lastSeq: s.lastSeq })));
      s.batch = batch;
      if (s.state.session.endedAt !== undefined) open_.delete(id);
    }
    const turnSynced = syncedNow();
    for (const id of ids) synced.set(id, turnSynced);
    // Forget the sessions this turn acknowledged, unless a later turn wrote them again.
    // On failure too: `flushed()` reports the error; here only the map is cleaned.
    const forget = (): void => {
      for (const id of ids) if (synced.get(id) === turnSynced) synced.delete(id);
    };
    turnSynced.then(forget, forget);
    if (open_.size > maxOpenSessions) dropCommitted();
  }

  /**
   * Drop sessions down to half the limit, written longest ago first. Only a session whose
   * writes are all committed may go: `sessionState` folds it again from committed data alone.
   */
  function dropCommitted(): void {
    const idle: [string, OpenSession][] = [];
    for (const entry of open_) if (entry[1].batch <= committedBatch) idle.push(entry);
    idle.sort((a, b) => a[1].batch - b[1].batch);
    const excess = Math.min(idle.length, open_.size - (maxOpenSessions >> 1));
    for (let i = 0; i < excess; i++) open_.delete((idle[i] as [string, OpenSession])[0]);
  }

  function track(p: Promise<unknown>): void {
    // Every put of one batch shares one promise: attach the error handler once per batch.
    if (p !== lastPut) {
      lastPut = p;
      const b = ++batch;
      p.then(() => {
        if (b > committedBatch) committedBatch = b;
      }, onWriteError);
    }
  }

  /** Events of the per-event format (older stores). */
  function* iterateOld(sessionId: string): Generator<OutputEvent> {
    if (!events) return;
    for (const { key, value } of events.getRange({ start: [sessionId, 0], end: [sessionId, Number.MAX_SAFE_INTEGER] })) yield fromStored(sessionId, key[1], value);
  }

  function* iterateBatches(sessionId: string): Generator<OutputEvent> {
    if (!batches) return;
    for (const { value } of batches.getRange({ start: [sessionId, 0], end: [sessionId, Number.MAX_SAFE_INTEGER] })) yield* decodeBatch(value);
  }

  function iterate(sessionId: string): Iterable<OutputEvent> {
    // Only a session an older build began has per-event values; the merge is for it alone.
    if (events) for (const _ of events.getKeys({ start: [sessionId, 0], end: [sessionId, Number.MAX_SAFE_INTEGER], limit: 1 })) return mergeBySeq(iterateOld(sessionId), iterateBatches(sessionId));
    return iterateBatches(sessionId);
  }

  function getEvent(sessionId: string, seq: number): OutputEvent | undefined {
    const old = events?.get([sessionId, seq]);
    if (old !== undefined) return fromStored(sessionId, seq, old);
    if (!batches) return undefined;
    // The batch holding `seq` is the last one of the session starting at or before it.
    for (const { key, value } of batches.getRange({ start: [sessionId, seq], end: [sessionId, -1], reverse: true, limit: 1 })) {
      if (key[0] !== sessionId) break;
      for (const e of decodeBatch(value)) if (e.seq === seq) return e;
    }
    return undefined;
  }

  return {
    dir,
    append(event, line) {
      if (!EVENT_REGISTRY[event.type]?.durable) return false;
      if (options.readOnly) throw new MinicodeError('MINICODE_E_STORE', 'the store is open read-only');
      // The event's JSON text now, not at the end of the turn: the batch bound counts it, and
      // per-event text costs less than one stringify of the whole batch (a two-byte character
      // anywhere makes a batch's text two-byte, and its UTF-8 encode slower; bench/store.ts).
      let text = line;
      if (text === undefined) {
        try {
          text = JSON.stringify(event);
        } catch (error) {
          // An event JSON cannot hold (a BigInt, a cycle): fail the acknowledgement, not the process.
          onWriteError(error);
          return true;
        }
      }
      const id = event.sessionId;
      const s = sessionState(id, event.seq);
      let p = pending.get(id);
      // A batch holds at most MAX_BATCH_CHARS of text unless one event alone is larger.
      if (p && (p.lines.length >= MAX_BATCH_EVENTS || p.chars + text.length > MAX_BATCH_CHARS)) {
        putBatch(id, p);
        p = undefined;
      }
      if (!p) {
        pending.set(id, (p = { firstSeq: event.seq, lines: [], chars: 0 }));
        // Cleared with `pending` at the end of the turn, so once per session per turn is enough.
        dirty.add(id);
      }
      p.lines.push(text);
      p.chars += text.length;
      foldForIndex(s, event);
      if (s.digest === undefined) {
        const prompt = promptOf(event);
        if (prompt !== undefined) s.digest = promptDigest(prompt);
      }
      if (!turnScheduled) {
        turnScheduled = true;
        // Same event-loop turn, so the batches and index entries join one transaction.
        queueMicrotask(writeTurn);
      }
      return true;
    },
    async flushed(sessionId) {
      if (turnScheduled) writeTurn();
      if (sessionId === undefined) await syncedNow();
      else await synced.get(sessionId);
      if (writeError !== undefined) {
        throw new MinicodeError('MINICODE_E_STORE', `store write failed: ${(writeError as Error).message ?? String(writeError)}`, { cause: writeError });
      }
    },
    iterateSession: iterate,
    getEvent,
    readSession(sessionId) {
      return [...iterate(sessionId)];
    },
    getSession(sessionId) {
      const entry = sessions.get(sessionId);
      return entry && effectiveEntry(entry);
    },
    listSessions() {
      const out: SessionIndexEntry[] = [];
      for (const { value } of sessions.getRange({})) out.push(effectiveEntry(value));
      return out.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || a.sessionId.localeCompare(b.sessionId));
    },
    putContent: (c, o) => content.put(c, o),
    getContent: (ref) => content.get(ref),
    evictContent: (ref) => content.evict(ref),
    async close() {
      if (!options.readOnly) await this.flushed();
      await root.close();
    },
  };
}
