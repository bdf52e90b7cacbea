/**
 * Bring the work tree from one snapshot to another. The changed paths alone are staged into a
 * copy of the store's index (`update-index --index-info` with the target's modes and objects,
 * so the target's whole tree is never read), written out with `checkout-index -u` (which keeps
 * symlinks and the executable bit and records the new files' stat data in that index; the other
 * permission bits come from the target's recorded modes, modes.ts), and files only the
 * current snapshot has are removed. The copy then becomes the store's index, true to the files
 * just rewritten. A file neither snapshot holds (ignored, skipped, or created after the
 * current snapshot) is never touched.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { runGit } from './git.js';
import { modesOfCommit, writeModeMap } from './modes.js';
import { diffRaw, type RawChange } from './journal.js';
import { replaceSharedIndex, seedIndex, serialInStore, sharedIndexOf } from './snapshot.js';
import type { WorkspaceStore } from './store.js';
import { dropExpected } from '../debug.js';

/** The changes that restoring `target` over `current` makes, as the user sees them. */
export function restoreChanges(store: WorkspaceStore, current: string, target: string): Promise<RawChange[]> {
  return diffRaw(store.gitDir, current, target);
}

/** Remove `dir` and its parents up to `root` while they are empty. */
function pruneEmptyDirs(root: string, dir: string): void {
  let d = dir;
  while (d.startsWith(root + path.sep) && d !== root) {
    try {
      fs.rmdirSync(d);
    } catch (error) {
      dropExpected('checkpoint restore: removing an emptied folder', error, 'ENOTEMPTY', 'EEXIST', 'ENOENT');
      return;
    }
    d = path.dirname(d);
  }
}

const NO_OBJECT = '0'.repeat(40);

/**
 * Apply `changes` (from {@link restoreChanges}, current snapshot to target) to the work tree.
 * The store's index must hold the current snapshot (the caller has just taken it); afterwards it
 * holds `targetTree`.
 */
export function applyRestore(
  store: WorkspaceStore,
  changes: readonly RawChange[],
  target: { commit: string; tree?: string | undefined },
): Promise<void> {
  return changes.length === 0 ? Promise.resolve() : serialInStore(store, () => restoreNow(store, changes, target));
}

/**
 * Run `checkout-index` with umask 077, so a file it creates is never readable by others before
 * its recorded bits are set (a 0600 `.env` is not 0644 for a moment). The child takes the umask
 * at spawn; only the main thread may change it (elsewhere the bits are set afterwards alone).
 */
async function checkoutPrivately(run: () => Promise<unknown>): Promise<void> {
  if (!isMainThread) {
    await run();
    return;
  }
  const previous = process.umask(0o077);
  let running: Promise<unknown>;
  try {
    running = run();
  } finally {
    process.umask(previous);
  }
  await running;
}

async function restoreNow(
  store: WorkspaceStore,
  changes: readonly RawChange[],
  target: { commit: string; tree?: string | undefined },
): Promise<void> {
  const targetTree = target.tree;
  const root = store.workTree;
  const indexFile = `${sharedIndexOf(store)}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const place = { gitDir: store.gitDir, workTree: root, indexFile };
  try {
    // Without a store index (never, after a snapshot) the temporary one starts empty and is dropped.
    const seeded = seedIndex(sharedIndexOf(store), indexFile);
    // Removals first, so a path that turns from a file into a folder (or back) never collides.
    const deletes = changes.filter((c) => c.kind === 'delete');
    const writes = changes.filter((c) => c.kind !== 'delete');
    const info = [
      ...deletes.map((c) => `0 ${NO_OBJECT}\t${c.path}`),
      ...writes.map((c) => `${c.mode} ${c.object}\t${c.path}`),
    ];
    await runGit(['update-index', '-z', '--index-info'], { ...place, input: info.join('\0') + '\0' });
    // Writes first: when the store cannot provide a content (an object pruned from a borrowed
    // repository), the restore stops before anything was deleted. -f replaces what stands in
    // the way (a file where the target has a folder, a symlink).
    const modes = await modesOfCommit(store.gitDir, target.commit);
    if (writes.length > 0) {
      await checkoutPrivately(() =>
        runGit(['checkout-index', '-u', '-f', '-z', '--stdin'], {
          ...place,
          input: writes.map((c) => c.path).join('\0') + '\0',
        }),
      );
      // Every written file gets its recorded bits, else git's (0644, 0755); a symlink has none.
      for (const change of writes) {
        if (change.mode === '120000' || change.mode === '160000') continue;
        const bits = modes.get(change.path);
        fs.chmodSync(
          path.join(root, change.path),
          bits !== undefined ? Number.parseInt(bits, 8) : change.mode === '100755' ? 0o755 : 0o644,
        );
      }
    }
    for (const change of deletes) {
      const file = path.join(root, change.path);
      try {
        // lstat first: a symlink is removed itself, never what it points to.
        const st = fs.lstatSync(file);
        if (st.isDirectory()) continue;
        fs.unlinkSync(file);
      } catch (error) {
        dropExpected('checkpoint restore: deleting a file', error, 'ENOENT');
        continue;
      }
      pruneEmptyDirs(root, path.dirname(file));
    }
    if (seeded) {
      replaceSharedIndex(store, indexFile, targetTree);
      writeModeMap(store.gitDir, modes);
    }
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}
