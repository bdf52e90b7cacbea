/**
 * The event store: durable `minicode.output.v1` events in embedded LMDB, one value per session
 * per event-loop turn holding that turn's events as one JSON array, keyed
 * `[sessionId, seq of the first]` so one session replays in order with a range scan
 * (event-batches.ts); a session index; and a content store for large payloads.
 *
 * `append` queues the event's JSON text: the JSONL line when the caller printed one (then that
 * text is stored, not made twice), else `JSON.stringify` of the event; at the end of the turn
 * each session's queued events become one put (several when the turn outgrows the batch bound:
 * a value sealed at the bound is put at once).
 * Writes use lmdb's async `put`, which batches every put of one event-loop turn into one
 * transaction committed off the main thread; `append` never waits. `flushed()` resolves once
 * everything appended so far is committed and synced, `flushed(sessionId)` once that session's
 * events are: that is the acknowledgement a caller may rely on after a crash. A session waits
 * for the transaction holding its last events, not for whatever other sessions wrote since, so
 * concurrent sessions share syncs instead of queueing behind each other's. A batch is one
 * value, so a crash keeps all of it or none. Live events (deltas, progress) are not stored.
 *
 * LMDB allows one writer and many readers across processes: `replay` and `sessions` may read a
 * store while another process writes it, and see every committed transaction. Opening and
 * committing exclude each other across processes (open-lock.ts): an open that overlaps another
 * process's commit can undo that commit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from 'lmdb';
import type { ContentRef, OutputEvent } from '../events/index.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import { MinicodeError } from '../errors.js';
import { initialState, reduceOwned, type ReducerState } from '../reducer/index.js';
import {
  decodeBatch,
  encodeBatch,
  MAX_BATCH_CHARS,
  MAX_BATCH_EVENTS,
  type BatchKey,
  type PendingBatch,
} from './event-batches.js';
import { openDatabases } from './databases.js';
import { writerLock, type WriterLock } from './open-lock.js';
import { noteCommitFailure, storeWriteError } from './commit-failure.js';
import { createContentStore, type ContentLookup, type ContentRecord } from './content-store.js';
import {
  effectiveEntry,
  indexEntryOf,
  promptDigest,
  promptOf,
  titleOf,
  type SessionIndexEntry,
} from './session-index.js';

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
  /** Stored events of one session, in sequence order, from `fromSeq` on (default 0; reads committed data only). */
  iterateSession(sessionId: string, fromSeq?: number): Iterable<OutputEvent>;
  readSession(sessionId: string): OutputEvent[];
  /** One stored event of a session, or undefined (reads committed data only). */
  getEvent(sessionId: string, seq: number): OutputEvent | undefined;
  /** The index entry of one session, as a reader should show it (see `effectiveEntry`). */
  getSession(sessionId: string): SessionIndexEntry | undefined;
  /** Every session in the index, most recently started first. */
  listSessions(): SessionIndexEntry[];
  /**
   * Take `sessionId` for a new session written by this process: true when the index held no
   * session with that id, and now holds it (running, this writer's pid); false when it already
   * did. The check and the write are one transaction, so of two processes claiming one id at
   * once exactly one gets it.
   */
  claimSession(sessionId: string): Promise<boolean>;
  putContent(content: Uint8Array | string, options?: { mediaType?: string; preview?: string }): Promise<ContentRef>;
  getContent(ref: ContentRef | string): ContentLookup;
  evictContent(ref: ContentRef): Promise<ContentRef>;
  /**
   * Keep a batch line's record (plain JSON, already scrubbed) under `key`; resolves once it is
   * committed and synced. A batch whose output directory lost it takes it from here on resume
   * (lib/batch/record-links.ts).
   */
  putBatchRecord(key: string, record: unknown): Promise<void>;
  /** The batch record kept under `key`, or undefined. */
  getBatchRecord(key: string): unknown;
  /** Flush and close; the store must not be used afterwards. */
  close(): Promise<void>;
}

const noop = (): void => undefined;

interface OpenSession {
  state: ReducerState;
  digest?: string;
  /** The first prompt, cut (`sessions` shows it). */
  title?: string;
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

/** Open (or create) a store. Throws MINICODE_E_STORE when the directory cannot be opened. */
export function openStore(options: StoreOptions): EventStore {
  const { dir } = options;
  if (!dir) throw new TypeError('openStore: dir is required');
  const maxOpenSessions = options.maxOpenSessions ?? DEFAULT_MAX_OPEN_SESSIONS;
  if (!Number.isInteger(maxOpenSessions) || maxOpenSessions < 1)
    throw new TypeError('openStore: maxOpenSessions must be an integer >= 1');
  const { root, batches, sessions, contentDb, batchRecords } = openDatabases(options);
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
  // Batches of this turn that reached the bound, encoded, written with the rest at its end.
  const sealed: [BatchKey, Buffer][] = [];
  let turnScheduled = false;
  // The end of a turn that waits for the open lock (another process is opening the store).
  let retry: Promise<void> | undefined;
  const lock = options.readOnly ? undefined : writerLock(dir);
  let lastPut: Promise<unknown> | undefined;
  // Per session with writes not yet known synced: when the transaction of its last turn is synced.
  const synced = new Map<string, Promise<void>>();
  // Write batches (one per event-loop turn) numbered in order; lmdb commits them in that order.
  let batch = 0;
  let committedBatch = 0;
  let writeError: unknown;
  let writeErrorReported = false;
  const onWriteError = (error: unknown) => {
    noteCommitFailure(error);
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
        if (stored.title !== undefined) s.title = stored.title;
      }
      open_.set(sessionId, s);
    }
    return s;
  }

  function putBatch(key: BatchKey, value: Buffer): void {
    track((batches as Database<Uint8Array, BatchKey>).put(key, value));
  }

  /**
   * Resolves once every put made so far is committed and synced. lmdb's `flushed` is read when
   * `then` is called, so it is taken now: later puts (other sessions) are not waited for.
   */
  function syncedNow(): Promise<void> {
    const put = lastPut?.then(noop, noop);
    return Promise.all([put, root.flushed]).then(noop);
  }

  /**
   * End of a turn: each session's events as one value (several when the turn outgrew the
   * bound), then the index entries, in one transaction. Every put is made here, under the
   * writer's open lock, so no other process opens the store while this commit is in flight
   * (open-lock.ts); while an opener holds the lock the turn waits and its events keep queueing.
   */
  function writeTurn(): void {
    if (pending.size === 0 && sealed.length === 0 && dirty.size === 0) {
      turnScheduled = false;
      return;
    }
    if (!(lock as WriterLock).acquire()) {
      retry ??= new Promise<void>((resolve) =>
        setTimeout(() => {
          retry = undefined;
          writeTurn();
          resolve();
        }, 1),
      );
      return;
    }
    turnScheduled = false;
    for (const [key, value] of sealed) putBatch(key, value);
    sealed.length = 0;
    for (const [id, p] of pending) putBatch([id, p.firstSeq], encodeBatch(p.lines));
    pending.clear();
    const ids = [...dirty];
    dirty.clear();
    for (const id of ids) {
      const s = open_.get(id);
      if (!s) continue;
      track(
        sessions.put(
          id,
          indexEntryOf(s.state, {
            digest: s.digest,
            title: s.title,
            writerPid,
            eventCount: s.count,
            lastSeq: s.lastSeq,
          }),
        ),
      );
      s.batch = batch;
      if (s.state.session.endedAt !== undefined) open_.delete(id);
    }
    const turnSynced = syncedNow();
    const unlock = (lock as WriterLock).done;
    turnSynced.then(unlock, unlock);
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
   * Put the batches sealed so far now, under the writer's open lock, rather than with the rest
   * of the turn: the same keys and values, in the transaction lmdb is filling for this
   * event-loop turn (lmdb starts another within a long turn, as it does for a turn's own
   * puts), but its LZ4 compression and write thread take them while the turn goes on. A
   * producer that runs a whole session without a microtask checkpoint (a stream read from
   * memory runs on process.nextTick alone) otherwise holds every batch until its end, then
   * waits for all of them to be compressed and written. While an opener holds the lock they
   * stay sealed and go with the turn.
   */
  function writeSealed(): void {
    if (retry || !(lock as WriterLock).acquire()) return;
    for (const [key, value] of sealed) putBatch(key, value);
    sealed.length = 0;
    const unlock = (lock as WriterLock).done;
    syncedNow().then(unlock, unlock);
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

  /** A write outside the turn (the content store), under the writer's open lock. */
  async function underLock<T>(write: () => Promise<T>): Promise<T> {
    if (!lock) return write();
    while (!lock.acquire()) await sleep(1);
    try {
      return await write();
    } finally {
      lock.done();
    }
  }

  /** A content write's failure, as `flushed` reports the events' own. */
  function failedWrite(error: unknown): never {
    noteCommitFailure(error);
    throw storeWriteError(dir, error);
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

  function* iterate(sessionId: string, fromSeq = 0): Generator<OutputEvent> {
    if (!batches) return;
    // Start at the batch holding `fromSeq` (the last one starting at or before it), not at the session's first.
    let first = 0;
    if (fromSeq > 0)
      for (const { key } of batches.getRange({
        start: [sessionId, fromSeq],
        end: [sessionId, -1],
        reverse: true,
        limit: 1,
      }))
        if (key[0] === sessionId) first = key[1] as number;
    for (const { value } of batches.getRange({ start: [sessionId, first], end: [sessionId, Number.MAX_SAFE_INTEGER] }))
      for (const e of decodeBatch(value)) if (e.seq >= fromSeq) yield e;
  }

  function getEvent(sessionId: string, seq: number): OutputEvent | undefined {
    if (!batches) return undefined;
    // The batch holding `seq` is the last one of the session starting at or before it.
    for (const { key, value } of batches.getRange({
      start: [sessionId, seq],
      end: [sessionId, -1],
      reverse: true,
      limit: 1,
    })) {
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
        sealed.push([[id, p.firstSeq], encodeBatch(p.lines)]);
        p = undefined;
        writeSealed();
      }
      if (!p) {
        pending.set(id, (p = { firstSeq: event.seq, lines: [], chars: 0 }));
        // Cleared with `pending` at the end of the turn, so once per session per turn is enough.
        dirty.add(id);
      }
      p.lines.push(text);
      p.chars += text.length;
      foldForIndex(s, event);
      if (s.digest === undefined || s.title === undefined) {
        const prompt = promptOf(event);
        if (prompt !== undefined) {
          s.digest ??= promptDigest(prompt);
          s.title ??= titleOf(prompt);
        }
      }
      if (!turnScheduled) {
        turnScheduled = true;
        // Same event-loop turn, so the batches and index entries join one transaction.
        queueMicrotask(writeTurn);
      }
      return true;
    },
    async flushed(sessionId) {
      while (turnScheduled) {
        if (retry) await retry;
        else writeTurn();
      }
      if (sessionId === undefined) await syncedNow();
      else await synced.get(sessionId);
      if (writeError !== undefined) {
        writeErrorReported = true;
        throw storeWriteError(dir, writeError);
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
      return out.sort(
        (a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || a.sessionId.localeCompare(b.sessionId),
      );
    },
    async claimSession(sessionId) {
      if (options.readOnly) throw new MinicodeError('MINICODE_E_STORE', 'the store is open read-only');
      const entry: SessionIndexEntry = { sessionId, outcome: 'running', eventCount: 0, writerPid };
      return underLock(() => sessions.ifNoExists(sessionId, () => sessions.put(sessionId, entry))).catch(failedWrite);
    },
    putContent: (c, o) => underLock(() => content.put(c, o)).catch(failedWrite),
    getContent: (ref) => content.get(ref),
    evictContent: (ref) => underLock(() => content.evict(ref)).catch(failedWrite),
    async putBatchRecord(key, record) {
      if (options.readOnly || !batchRecords) throw new MinicodeError('MINICODE_E_STORE', 'the store is open read-only');
      await underLock(() => batchRecords.put(key, record)).catch(failedWrite);
    },
    getBatchRecord: (key) => batchRecords?.get(key),
    async close() {
      // A write error `flushed` already reported is not thrown again: the caller has it.
      let error: unknown;
      if (!options.readOnly) {
        try {
          await this.flushed();
        } catch (e) {
          if (!writeErrorReported) error = e;
        }
      }
      lock?.close();
      await root.close();
      if (error !== undefined) throw error;
    },
  };
}
