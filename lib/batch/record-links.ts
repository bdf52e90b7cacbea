/**
 * The store's copy of a batch's records, so a resumed batch takes a finished run from there
 * when its output directory lost the record (a full disk stopped the batch after the run was
 * paid for, or `results.jsonl` was cut) instead of running it again.
 *
 * A record is linked to its batch by the output directory's batch id (`OUT/batch-id`, made once
 * when the directory is first opened: a fresh `--out` is a fresh batch, whose lines all run) and
 * to its line by the line id. The key is that id and a digest of the line id (a line id may be
 * longer than an LMDB key). The record is scrubbed as every artefact is before it is kept: the
 * store holds no secret a line's metadata carried. The store is kept on its own folder, which a
 * full output disk usually is not on; when it cannot take the record either, the run's record is
 * simply written to the output as without a store.
 */
import { createHash } from 'node:crypto';
import { scrubArtefactValue } from '../artefacts.js';
import type { EventStore } from '../store/index.js';
import type { BatchRecord } from './records.js';
import { runKey } from './attempts.js';

/** A batch's records in the store. */
export interface RecordLinks {
  /** The record kept for a run (a line's attempt), or undefined (none, or not a record of that run). */
  get(run: { id: string; attempt?: number | undefined }): BatchRecord | undefined;
  /** Keep `record` (scrubbed); resolves once it is synced, rejects with the store's write error. */
  put(record: BatchRecord): Promise<void>;
}

/** The store key of a run: its batch, and a digest of its run key (the id alone for attempt 1). */
function keyOf(batchId: string, run: { id: string; attempt?: number | undefined }): string {
  return `${batchId}/${createHash('sha256').update(runKey(run)).digest('hex')}`;
}

/** The links of the batch `batchId` in `store`. */
export function recordLinks(store: EventStore, batchId: string): RecordLinks {
  return {
    get(run) {
      const record = store.getBatchRecord(keyOf(batchId, run)) as Partial<BatchRecord> | undefined;
      if (!record || record.id !== run.id || (record.kind !== 'result' && record.kind !== 'error')) return undefined;
      if (runKey(record as BatchRecord) !== runKey(run)) return undefined;
      return record as BatchRecord;
    },
    put: (record) => store.putBatchRecord(keyOf(batchId, record), scrubArtefactValue(record)),
  };
}
