/**
 * `minicode undo` and `minicode checkpoints` over a workspace's journal. Undo picks the newest
 * turn of the session (default: the session that ran last here) whose checkpoint differs from
 * the state after it, checkpoints the current workspace first (a record of kind `undo` in the
 * same session, so the next undo takes the undo back), then restores the chosen checkpoint.
 */
import { MinicodeError } from '../errors.js';
import type { FileChange } from '../events/payloads.js';
import { GitError, runGit } from './git.js';
import { pidAlive } from '../pid-alive.js';
import { displayId } from '../ids.js';
import { diffCommits, listRecords, newRecordKey, recordSubject, setRecordRef, type TurnRecord } from './journal.js';
import { applyRestore, restoreChanges } from './restore.js';
import { pruneStore, stampPruned, type PruneReport } from './prune.js';
import { DEFAULT_CHECKPOINT_RETENTION, type CheckpointSettings } from './settings.js';
import { takeSnapshot } from './snapshot.js';
import { existingStoreDir, openWorkspaceStore, type WorkspaceStore } from './store.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link undoWorkspace}. */
export interface UndoOptions {
  settings: CheckpointSettings;
  cwd: string;
  /** Undo within this session; default the session of the newest record. */
  sessionId?: string;
  /** Restore this checkpoint (a commit id or a prefix of one) instead. */
  to?: string;
  /** List the changes, change nothing. */
  dryRun?: boolean;
  /** Undo even while the session's run is still going (another live process); default false. */
  force?: boolean;
  /** Default `Date.now`. */
  clock?: () => number;
}

/** What an undo did (or, with `dryRun`, would do). */
export interface UndoReport {
  /** The checkpoint restored. */
  restored: string;
  sessionId: string;
  /** The turn whose changes were taken back (a turn number, or the key of an undone undo). */
  turn?: string;
  /** The checkpoint of the state before the undo (undo it with `minicode undo` again); absent on a dry run. */
  undoCheckpoint?: string;
  changes: FileChange[];
  dryRun: boolean;
}

/** One listed checkpoint. */
export interface CheckpointListing {
  checkpointId: string;
  sessionId: string;
  turn: string;
  kind: TurnRecord['kind'];
  createdAt: string;
  /** Files the turn changed after this checkpoint (to the current state when the turn never finished). */
  changes: FileChange[];
  finished: boolean;
}

function noCheckpoints(cwd: string): MinicodeError {
  return new MinicodeError('MINICODE_E_NO_CHECKPOINT', `no checkpoints for ${cwd}`, {
    action: 'checkpoints are taken before a run changes files; run minicode exec or chat in this folder first',
  });
}

/** The store of `cwd`, or a coded error when none was ever made. */
async function storeOf(settings: CheckpointSettings, cwd: string): Promise<WorkspaceStore> {
  if (!existingStoreDir(settings.home, cwd)) throw noCheckpoints(cwd);
  return openWorkspaceStore(settings.home, cwd, settings.limits);
}

/** The commit `to` names in the store (full id or unique prefix), or a coded error. */
async function resolveCheckpoint(
  store: WorkspaceStore,
  records: readonly TurnRecord[],
  to: string,
): Promise<{ commit: string; record?: TurnRecord }> {
  const lower = to.toLowerCase();
  const record = records.find((r) => r.before.startsWith(lower));
  if (record && /^[0-9a-f]{4,40}$/.test(lower)) return { commit: record.before, record };
  if (/^[0-9a-f]{4,40}$/.test(lower)) {
    try {
      const { stdout } = await runGit(['rev-parse', '--verify', '--quiet', `${lower}^{commit}`], {
        gitDir: store.gitDir,
        cwd: store.gitDir,
      });
      return { commit: stdout.trim() };
    } catch (error) {
      // Not a commit of the store: the error below says so.
      if (!(error instanceof GitError)) throw error;
    }
  }
  throw new MinicodeError('MINICODE_E_CHECKPOINT_NOT_FOUND', `no checkpoint ${to} in this workspace`, {
    action: 'list them with minicode checkpoints',
  });
}

/** Take back the last turn that changed files (or restore `to`). */
export async function undoWorkspace(options: UndoOptions): Promise<UndoReport> {
  const clock = options.clock ?? Date.now;
  const store = await storeOf(options.settings, options.cwd);
  // The journal is read while the current state is snapshotted; the snapshot is labelled with
  // the session once the journal says which (the label is the commit message, written last).
  const recordsRead = listRecords(store.gitDir);
  const snapshotAt = clock();
  const [records, current] = await Promise.all([
    recordsRead,
    recordsRead.then(
      (rs) =>
        takeSnapshot(store, {
          message: recordSubject({
            sessionId: options.sessionId ?? rs.at(-1)?.sessionId ?? '',
            turn: 'undo',
            kind: 'undo',
            at: snapshotAt,
          }),
          reportSkippedDirs: false,
        }),
      () => undefined,
    ),
  ]);
  if (records.length === 0 || !current) throw noCheckpoints(store.workTree);
  const sessionId = options.sessionId ?? records.at(-1)!.sessionId;
  let target: string | undefined;
  let targetTree: string | undefined;
  let undone: TurnRecord | undefined;
  if (options.to !== undefined) {
    const resolved = await resolveCheckpoint(store, records, options.to);
    target = resolved.commit;
    undone = resolved.record;
    targetTree = resolved.record?.beforeTree;
  } else {
    const ofSession = records.filter((r) => r.sessionId === sessionId);
    if (ofSession.length === 0)
      throw new MinicodeError(
        'MINICODE_E_CHECKPOINT_NOT_FOUND',
        `no checkpoints of session ${sessionId} in this workspace`,
        { action: 'list them with minicode checkpoints' },
      );
    // The newest turn whose checkpoint differs from the state after it (trees are content ids).
    undone = ofSession.reverse().find((r) => r.beforeTree !== (r.afterTree ?? current.tree));
    if (!undone)
      throw new MinicodeError('MINICODE_E_NOTHING_TO_UNDO', `no turn of session ${sessionId} changed files here`, {
        action: 'list checkpoints with minicode checkpoints',
      });
    target = undone.before;
    targetTree = undone.beforeTree;
  }
  if (!options.dryRun && !options.force) refuseLive(records, undone?.sessionId ?? sessionId);
  const changes = await restoreChanges(store, current.commit, target);
  const base = definedOnly({
    restored: target,
    sessionId,
    turn: undone ? (undone.kind === 'undo' ? undone.key : undone.turn) : undefined,
    changes: changes.map((c) => ({ path: c.path, kind: c.kind })),
  });
  if (options.dryRun) return { ...base, dryRun: true };
  const key = newRecordKey(clock());
  await setRecordRef(store.gitDir, key, 'before', current.commit);
  await applyRestore(store, changes, { commit: target, tree: targetTree });
  // Every path either snapshot holds now matches the target, so the state after the undo is
  // the target's tree: no second snapshot needed.
  await setRecordRef(store.gitDir, key, 'after', target);
  return { ...base, undoCheckpoint: current.commit, dryRun: false };
}

/**
 * Refuse to undo a session whose run is still going: a turn of it not marked ended whose process
 * (the pid its turn records carry) is alive and is not this one (chat's own /undo). A chat or
 * ACP session between turns has every turn ended and is undone. Restoring under a run that is still
 * writing leaves a mix of both, and the run then reports changes that are no longer there.
 */
function refuseLive(records: TurnRecord[], sessionId: string): void {
  const live = records.find(
    (r) =>
      r.sessionId === sessionId &&
      !r.ended &&
      r.writerPid !== undefined &&
      r.writerPid !== process.pid &&
      pidAlive(r.writerPid),
  );
  if (!live) return;
  throw new MinicodeError(
    'MINICODE_E_UNDO_LIVE',
    `session ${displayId(sessionId)} is still running (process ${live.writerPid}): undoing now would mix its changes with the restore`,
    {
      action: 'wait for that run to end (or stop it), then undo; --force undoes anyway',
    },
  );
}

/** How many checkpoint diffs a listing runs at once. */
const LIST_DIFFS_AT_ONCE = 4;

/** Every checkpoint of the workspace (of one session when asked), newest first, with the files each turn changed. */
export async function listCheckpoints(options: {
  settings: CheckpointSettings;
  cwd: string;
  sessionId?: string;
}): Promise<CheckpointListing[]> {
  const found = existingStoreDir(options.settings.home, options.cwd);
  if (!found) return [];
  const records = (await listRecords(found.gitDir)).filter(
    (r) => options.sessionId === undefined || r.sessionId === options.sessionId,
  );
  // A few diffs at a time: one git process each.
  const listings: CheckpointListing[] = [];
  const newestFirst = records.reverse();
  for (let i = 0; i < newestFirst.length; i += LIST_DIFFS_AT_ONCE) {
    listings.push(...(await Promise.all(newestFirst.slice(i, i + LIST_DIFFS_AT_ONCE).map(listingOf))));
  }
  return listings;

  async function listingOf(r: TurnRecord): Promise<CheckpointListing> {
    return {
      checkpointId: r.before,
      sessionId: r.sessionId,
      turn: r.turn,
      kind: r.kind,
      createdAt: new Date(r.at).toISOString(),
      changes: r.after && r.afterTree !== r.beforeTree ? await diffCommits(found!.gitDir, r.before, r.after) : [],
      finished: r.after !== undefined,
    };
  }
}

/** `minicode checkpoints --prune`: drop the checkpoints the retention settings expire, then gc the store (waited for). */
export async function pruneCheckpoints(options: {
  settings: CheckpointSettings;
  cwd: string;
  now?: number;
}): Promise<PruneReport> {
  const found = existingStoreDir(options.settings.home, options.cwd);
  if (!found) return { dropped: 0, kept: 0, gc: 'none' };
  const report = await pruneStore(
    found.gitDir,
    options.settings.retention ?? DEFAULT_CHECKPOINT_RETENTION,
    definedOnly({ gc: 'wait', now: options.now }),
  );
  stampPruned(found.gitDir);
  return report;
}
