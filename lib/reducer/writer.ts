/**
 * Copy-on-write access to the reducer state. `reduce()` never mutates its input: the first write
 * to a collection within one event copies that collection (shallow), so an event costs the size
 * of what it touches, not of the whole state. `rebuild()` owns the state it folds (nobody else
 * sees the intermediate states), so it mutates collections in place and stays linear over a
 * long session. Objects inside collections (a tool, a task) are replaced, never edited, unless
 * the state is owned: then they are edited in place too (no copy of a tool per terminal).
 */
import { KEEP_RECENT, MAX_ANOMALIES, type Anomaly, type RecentListKey, type ReducerState } from './state.js';

type RecordKey = 'tasks' | 'tools' | 'approvals' | 'fileIndex' | 'findingsBySeverity';
type ListKey =
  | 'taskOrder'
  | 'openTasks'
  | 'toolOrder'
  | 'approvalOrder'
  | 'userMessages'
  | 'messages'
  | 'reasoning'
  | 'providerToolCalls'
  | 'files'
  | 'tests'
  | 'findings'
  | 'results'
  | 'checkpoints'
  | 'compactions'
  | 'limits'
  | 'errors'
  | 'anomalies';
type LiveKey = 'messages' | 'reasoning' | 'toolProgress';

/** Set an own property, including the key `__proto__` (ids are untrusted strings). */
export function putKey<V>(record: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** Read an own property only (never the prototype chain). */
export function getKey<V>(record: Record<string, V>, key: string): V | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Copy-on-write view of one state for the duration of one event. */
export class StateWriter {
  /** The state being built; a shallow copy of the input unless owned. */
  readonly s: ReducerState;
  /** Collections already copied for this event; created on the first copy (most events copy none or one). */
  private copied: Set<string> | undefined;
  private liveCopied = false;

  constructor(
    base: ReducerState,
    /** True when the caller owns the state: collections and the items in them are edited in place. */
    readonly owned: boolean,
  ) {
    this.s = owned ? base : { ...base };
  }

  /** A record of the state, writable for this event. */
  record<K extends RecordKey>(key: K): ReducerState[K] {
    if (!this.owned && !this.copied?.has(key)) {
      (this.s as unknown as Record<K, unknown>)[key] = copyRecord(this.s[key] as Record<string, unknown>);
      (this.copied ??= new Set()).add(key);
    }
    return this.s[key];
  }

  /** A list of the state, writable for this event (append with push). */
  list<K extends ListKey>(key: K): ReducerState[K] {
    if (!this.owned && !this.copied?.has(key)) {
      (this.s as unknown as Record<K, unknown>)[key] = [...(this.s[key] as unknown[])];
      (this.copied ??= new Set()).add(key);
    }
    return this.s[key];
  }

  /**
   * Append to a recent list: counted in `counts`, and the list keeps its latest
   * {@link KEEP_RECENT} entries (the rest are in the events, not in memory).
   */
  recent<K extends RecentListKey>(key: K, item: ReducerState[K][number]): void {
    const list = this.list(key) as unknown[];
    list.push(item);
    if (list.length > KEEP_RECENT) list.shift();
    if (!this.owned && !this.copied?.has('counts')) {
      this.s.counts = { ...this.s.counts };
      (this.copied ??= new Set()).add('counts');
    }
    this.s.counts[key] += 1;
  }

  /** One of the live records, writable for this event. */
  live(key: LiveKey): Record<string, string> {
    if (!this.owned && !this.liveCopied) {
      this.s.live = { ...this.s.live };
      this.liveCopied = true;
    }
    if (!this.owned && !this.copied?.has('live.' + key)) {
      this.s.live[key] = copyRecord(this.s.live[key]);
      (this.copied ??= new Set()).add('live.' + key);
    }
    return this.s.live[key];
  }

  /** Replace a live scalar field. */
  setLive<K extends 'taskProgress' | 'capped'>(key: K, value: ReducerState['live'][K] | undefined): void {
    if (!this.owned && !this.liveCopied) {
      this.s.live = { ...this.s.live };
      this.liveCopied = true;
    }
    if (value === undefined) delete this.s.live[key];
    else this.s.live[key] = value;
  }

  /** Record an anomaly, bounded by {@link MAX_ANOMALIES}. */
  anomaly(a: Anomaly): void {
    if (this.s.anomalies.length >= MAX_ANOMALIES) {
      this.s.anomaliesDropped += 1;
      return;
    }
    this.list('anomalies').push(a);
  }
}

// Spread defines own data properties (CreateDataProperty), so an own `__proto__` key survives.
function copyRecord<V>(record: Record<string, V>): Record<string, V> {
  return { ...record };
}

/** Delete an own property. */
export function deleteKey(record: Record<string, unknown>, key: string): void {
  if (Object.prototype.hasOwnProperty.call(record, key)) delete record[key];
}
