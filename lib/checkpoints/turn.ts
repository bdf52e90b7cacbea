/**
 * Checkpoints of one agent turn. The first workspace-changing tool call of the turn takes the
 * checkpoint (`checkpoint.created`, durable, linked to the turn) before it runs; after every
 * such call a new snapshot is diffed against the previous one, which gives that call's
 * `file.changed` whatever wrote the files (edit tools, bash, MCP servers). A checkpoint that
 * cannot be taken becomes one warning diagnostic and the run goes on without checkpoints.
 */
import { draft } from '../events/draft.js';
import type { EventDraft } from '../events/index.js';
import type { FileChange } from '../events/payloads.js';
import { newRecordKey, recordRef, recordSubject, setRecordRef, diffCommits } from './journal.js';
import { pruneIfDue } from './prune.js';
import { DEFAULT_CHECKPOINT_RETENTION, type CheckpointSettings } from './settings.js';
import { takeSnapshot, type SkippedPath } from './snapshot.js';
import { openWorkspaceStore, type WorkspaceStore } from './store.js';
import { mark } from '../timeline.js';
import { reportDropped } from '../debug.js';

/** Most skipped paths listed in one `checkpoint.created` (the count says how many in all). */
export const MAX_SKIPPED_LISTED = 50;

/** What the tool executor calls around a workspace-changing tool. */
export interface WorkspaceCheckpoints {
  /** Before the tool runs; the turn's first call takes the checkpoint. Never rejects. */
  beforeChange(): Promise<void>;
  /** After it ran: the files it changed, or undefined when there is no checkpoint to compare with. Never rejects. */
  afterChange(): Promise<FileChange[] | undefined>;
  /**
   * The turn settled (whatever its outcome): its record is marked ended, so `undo` no longer takes
   * the live process that ran it (an idle chat or ACP session) for a turn still writing. Nothing
   * when the turn took no checkpoint. Never rejects.
   */
  turnEnded(): Promise<void>;
}

/** Options of {@link createTurnCheckpoints}. */
export interface TurnCheckpointOptions {
  settings: CheckpointSettings;
  cwd: string;
  sessionId: string;
  turn: number;
  emit: (event: EventDraft) => void;
  /** Default `Date.now`. */
  clock?: () => number;
}

/** The checkpoint hooks of one turn. */
export function createTurnCheckpoints(options: TurnCheckpointOptions): WorkspaceCheckpoints {
  const clock = options.clock ?? Date.now;
  let store: WorkspaceStore | undefined;
  let key = '';
  let before = '';
  let last = '';
  let lastTree = '';
  let failed = false;
  let started: Promise<void> | undefined;
  // Snapshots of one turn run one at a time (parallel tool calls share the store's index).
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const fail = (error: unknown): void => {
    failed = true;
    options.emit(
      draft(
        'diagnostic.raised',
        {
          code: 'MINICODE_E_CHECKPOINT',
          message: `no checkpoint for this turn: ${(error as Error).message ?? String(error)}`,
          category: 'FILESYSTEM_ERROR',
          action: 'changes of this turn cannot be undone; check git is installed, or pass --no-checkpoint',
        },
        { severity: 'warning' },
      ),
    );
  };
  const subject = (): string =>
    recordSubject({
      sessionId: options.sessionId,
      turn: String(options.turn),
      kind: 'turn',
      at: clock(),
      writerPid: process.pid,
    });

  const start = async (): Promise<void> => {
    try {
      mark('checkpoint: before the first change');
      store = await openWorkspaceStore(options.settings.home, options.cwd, options.settings.limits);
      mark('checkpoint: store opened');
      const at = clock();
      key = newRecordKey(at);
      const snap = await takeSnapshot(store, { message: subject() });
      before = snap.commit;
      last = snap.commit;
      lastTree = snap.tree;
      await setRecordRef(store.gitDir, key, 'before', before);
      mark('checkpoint: taken');
      options.emit(
        draft('checkpoint.created', {
          checkpointId: before,
          ref: recordRef(key, 'before'),
          ...skippedFields(snap.skipped),
        }),
      );
      // Once a day per workspace, old checkpoints go (gc detached; the turn does not wait).
      void pruneIfDue(store.gitDir, options.settings.retention ?? DEFAULT_CHECKPOINT_RETENTION);
    } catch (error) {
      fail(error);
    }
  };

  return {
    beforeChange() {
      started ??= serial(start);
      return started;
    },
    afterChange() {
      return serial(async () => {
        if (failed || !store || !before) return undefined;
        try {
          const snap = await takeSnapshot(store, { message: subject(), parent: before, reportSkippedDirs: false });
          // Same tree, same files: no diff to run.
          const changes = snap.tree === lastTree ? [] : await diffCommits(store.gitDir, last, snap.commit);
          last = snap.commit;
          lastTree = snap.tree;
          await setRecordRef(store.gitDir, key, 'after', snap.commit);
          mark('checkpoint: after the change');
          return changes;
        } catch (error) {
          fail(error);
          return undefined;
        }
      });
    },
    turnEnded() {
      return serial(async () => {
        if (failed || !store || !before) return;
        try {
          await setRecordRef(store.gitDir, key, 'ended', last);
        } catch (error) {
          // Only undo's live check reads the mark: without it the session's next undo needs --force.
          reportDropped('marking the turn ended in the checkpoint journal', error);
        }
      });
    },
  };
}

/** The `skipped` fields of `checkpoint.created`, bounded. */
function skippedFields(skipped: readonly SkippedPath[]): { skipped?: SkippedPath[]; skippedCount?: number } {
  if (skipped.length === 0) return {};
  return { skipped: skipped.slice(0, MAX_SKIPPED_LISTED), skippedCount: skipped.length };
}
