/**
 * Bring the work tree from one snapshot to another: files the target has are written from the
 * store (`read-tree` into a temporary index, then `checkout-index`, which keeps modes and
 * symlinks), files only the current snapshot has are removed. A file neither snapshot holds
 * (ignored, skipped, or created after the current snapshot) is never touched.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileChange } from '../tools/types.js';
import { runGit } from './git.js';
import { diffCommits } from './journal.js';
import type { WorkspaceStore } from './store.js';

/** The changes that restoring `target` over `current` makes, as the user sees them. */
export function restoreChanges(store: WorkspaceStore, current: string, target: string): Promise<FileChange[]> {
  return diffCommits(store.gitDir, current, target);
}

/** Remove `dir` and its parents up to `root` while they are empty. */
function pruneEmptyDirs(root: string, dir: string): void {
  let d = dir;
  while (d.startsWith(root + path.sep) && d !== root) {
    try {
      fs.rmdirSync(d);
    } catch {
      return;
    }
    d = path.dirname(d);
  }
}

/** Apply `changes` (from {@link restoreChanges}) to the work tree, taking contents from `target`. */
export async function applyRestore(store: WorkspaceStore, target: string, changes: readonly FileChange[]): Promise<void> {
  const root = store.workTree;
  // Writes first: when the store cannot provide a content (an object pruned from a borrowed
  // repository), the restore stops before anything was deleted.
  const writes = changes.filter((c) => c.kind !== 'delete').map((c) => c.path);
  if (writes.length > 0) {
    const indexFile = path.join(store.gitDir, `restore-index.${process.pid}.${randomBytes(4).toString('hex')}`);
    const place = { gitDir: store.gitDir, workTree: root, indexFile };
    try {
      await runGit(['read-tree', target], place);
      // -f replaces what stands in the way (a file where the target has a folder, a symlink).
      await runGit(['checkout-index', '-f', '-z', '--stdin'], { ...place, input: writes.join('\0') + '\0' });
    } finally {
      fs.rmSync(indexFile, { force: true });
    }
  }
  for (const change of changes) {
    if (change.kind !== 'delete') continue;
    const file = path.join(root, change.path);
    try {
      // lstat first: a symlink is removed itself, never what it points to.
      const st = fs.lstatSync(file);
      if (st.isDirectory()) continue;
      fs.unlinkSync(file);
    } catch {
      continue;
    }
    pruneEmptyDirs(root, path.dirname(file));
  }
}
