/**
 * Bring the work tree from one snapshot to another. The changed paths alone are staged into a
 * copy of the store's index (`update-index --index-info` with the target's modes and objects,
 * so the target's whole tree is never read), written out with `checkout-index -u` (which keeps
 * modes and symlinks and records the new files' stat data in that index), and files only the
 * current snapshot has are removed. The copy then becomes the store's index, true to the files
 * just rewritten. A file neither snapshot holds (ignored, skipped, or created after the
 * current snapshot) is never touched.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runGit } from './git.js';
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
export function applyRestore(store: WorkspaceStore, changes: readonly RawChange[], targetTree?: string): Promise<void> {
  return changes.length === 0 ? Promise.resolve() : serialInStore(store, () => restoreNow(store, changes, targetTree));
}

async function restoreNow(store: WorkspaceStore, changes: readonly RawChange[], targetTree: string | undefined): Promise<void> {
  const root = store.workTree;
  const indexFile = `${sharedIndexOf(store)}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const place = { gitDir: store.gitDir, workTree: root, indexFile };
  try {
    // Without a store index (never, after a snapshot) the temporary one starts empty and is dropped.
    const seeded = seedIndex(sharedIndexOf(store), indexFile);
    // Removals first, so a path that turns from a file into a folder (or back) never collides.
    const deletes = changes.filter((c) => c.kind === 'delete');
    const writes = changes.filter((c) => c.kind !== 'delete');
    const info = [...deletes.map((c) => `0 ${NO_OBJECT}\t${c.path}`), ...writes.map((c) => `${c.mode} ${c.object}\t${c.path}`)];
    await runGit(['update-index', '-z', '--index-info'], { ...place, input: info.join('\0') + '\0' });
    // Writes first: when the store cannot provide a content (an object pruned from a borrowed
    // repository), the restore stops before anything was deleted. -f replaces what stands in
    // the way (a file where the target has a folder, a symlink).
    if (writes.length > 0) await runGit(['checkout-index', '-u', '-f', '-z', '--stdin'], { ...place, input: writes.map((c) => c.path).join('\0') + '\0' });
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
    if (seeded) replaceSharedIndex(store, indexFile, targetTree);
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}
