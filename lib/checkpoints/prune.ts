/**
 * Dropping old checkpoints. A record (a turn's `before`/`after` refs) goes when it is older
 * than `maxAgeDays` or beyond the newest `maxCheckpoints` of the workspace; then `git gc` in the
 * store removes what no kept record reaches. gc only ever works on the store's own objects:
 * objects borrowed from the user's repository (alternates) are read, never packed or pruned
 * (`repack -l`, which gc runs, leaves borrowed objects alone). Objects younger than an hour are
 * kept, so a snapshot another process is taking right now never loses its blobs.
 *
 * Automatically: once a day per workspace, when a run opens the store, the expired records
 * are dropped and gc starts detached (the run never waits for it). On demand:
 * `minicode checkpoints --prune`, which waits for gc.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runGit, spawnGitDetached } from './git.js';
import { listRecords, type TurnRecord } from './journal.js';
import type { CheckpointRetention } from './settings.js';
import { dropExpected, reportDropped } from '../debug.js';

/** What a prune did. */
export interface PruneReport {
  /** Records dropped (each a checkpoint and the state after its turn). */
  dropped: number;
  kept: number;
  /** How gc ran: waited for, started in the background, or not at all (nothing dropped). */
  gc: 'done' | 'background' | 'none';
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Objects younger than this survive gc (a concurrent snapshot's blobs are not yet in a commit). */
const PRUNE_GRACE = '1.hour.ago';
/** gc settings: refs stay loose files (the journal writes and drops them as files). */
const GC_ARGS = ['-c', 'gc.packRefs=false', '-c', 'gc.reflogExpire=now', 'gc', '--quiet', `--prune=${PRUNE_GRACE}`];

/** The records `retention` drops, oldest first (pure). */
export function recordsToDrop(
  records: readonly TurnRecord[],
  retention: CheckpointRetention,
  now: number,
): TurnRecord[] {
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const overCount = Math.max(0, sorted.length - retention.maxCheckpoints);
  const oldest = now - retention.maxAgeDays * DAY_MS;
  return sorted.filter((r, i) => i < overCount || r.at < oldest);
}

/** Remove the refs of `records` (loose ref files: the store never packs them). */
function dropRecords(gitDir: string, records: readonly TurnRecord[]): void {
  for (const r of records)
    fs.rmSync(path.join(gitDir, 'refs', 'minicode', 'turns', r.key), { recursive: true, force: true });
}

/** Drop what `retention` says and gc the store; `gc: 'wait'` waits for gc, `'background'` starts it detached. */
export async function pruneStore(
  gitDir: string,
  retention: CheckpointRetention,
  options: { now?: number; gc: 'wait' | 'background' },
): Promise<PruneReport> {
  const records = await listRecords(gitDir);
  const drop = recordsToDrop(records, retention, options.now ?? Date.now());
  dropRecords(gitDir, drop);
  const report = { dropped: drop.length, kept: records.length - drop.length };
  if (drop.length === 0 && options.gc === 'background') return { ...report, gc: 'none' };
  if (options.gc === 'wait') {
    await runGit(GC_ARGS, { gitDir, cwd: gitDir });
    return { ...report, gc: 'done' };
  }
  spawnGitDetached(GC_ARGS, { gitDir, cwd: gitDir });
  return { ...report, gc: 'background' };
}

/** The file whose mtime says when the store was last pruned. */
function stampOf(gitDir: string): string {
  return path.join(gitDir, 'minicode-pruned-at');
}

/** Note that the store was pruned (or created) now. */
export function stampPruned(gitDir: string): void {
  fs.writeFileSync(stampOf(gitDir), `${new Date().toISOString()}\n`, { mode: 0o600 });
}

/**
 * Prune in the background when the last prune is a day old (or never happened). The stamp is
 * renewed first, so concurrent runs of the same workspace do not all prune. Never rejects.
 */
export async function pruneIfDue(
  gitDir: string,
  retention: CheckpointRetention,
  now: number = Date.now(),
): Promise<PruneReport | undefined> {
  try {
    let last = 0;
    try {
      last = fs.statSync(stampOf(gitDir)).mtimeMs;
    } catch (error) {
      dropExpected('checkpoint prune: reading the last-prune stamp', error, 'ENOENT');
      last = 0;
    }
    if (now - last < DAY_MS) return undefined;
    stampPruned(gitDir);
    return await pruneStore(gitDir, retention, { now, gc: 'background' });
  } catch (error) {
    reportDropped('checkpoint prune', error);
    return undefined;
  }
}
