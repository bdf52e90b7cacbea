/**
 * Where project instructions may live: the folders from the repository root down to the working
 * directory (the nearest last), and the user's own folder. A repository root is the nearest
 * ancestor holding `.git` (a folder, or a file in a worktree or submodule); without one only the
 * working directory itself is searched, so instructions never leak in from an unrelated parent.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The folders to search, root first, and the repository root they hang from. */
export interface InstructionFolders {
  /** The repository root, or the working directory when it is in no repository. */
  root: string;
  /** `root` .. `cwd`, each absolute, the working directory last. */
  folders: string[];
}

/** The nearest ancestor of `cwd` (itself included) holding `.git`, or undefined. */
export function repositoryRootOf(cwd: string): string | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The folders searched for `cwd`, from its repository root down to it. */
export function instructionFolders(cwd: string): InstructionFolders {
  const here = path.resolve(cwd);
  const root = repositoryRootOf(here) ?? here;
  const folders: string[] = [];
  for (let dir = here; ; dir = path.dirname(dir)) {
    folders.push(dir);
    if (dir === root || path.dirname(dir) === dir) break;
  }
  return { root, folders: folders.reverse() };
}
