/**
 * The pooled worktree's reset without a git process, for the common case: the line edited or
 * deleted regular files and left the index as the tree has it. Each file is written back from
 * its blob (blob-reader.ts) with its mode, as `git restore` would write it; the index is not
 * touched (its entries already hold those blobs; their stat data no longer matches, so git
 * hashes those few files again next time and finds them unchanged).
 *
 * Declined (false: the caller runs `git restore`) whenever checkout could write something
 * other than the blob's bytes: attributes anywhere (a `.gitattributes` in the tree,
 * `info/attributes`, a global attributes file), `core.autocrlf`, a symlink or submodule among
 * the paths, or an index entry that is not the tree's (the line staged something).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findEntry, modeAt, oidAt, type IndexView } from '../checkpoints/index-file.js';
import { readBlobs } from './blob-reader.js';
import { git } from './workspace-git.js';
import type { Tracked } from './worktree-state.js';

const REGULAR = 0o100644;
const EXECUTABLE = 0o100755;

// Per thread and repository: whether its configuration lets checkout write blobs as they are.
const plainRepos = new Map<string, Promise<boolean>>();

function globalAttributesFile(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'git', 'attributes');
}

async function checkoutIsPlain(root: string, common: string): Promise<boolean> {
  if (fs.existsSync(path.join(common, 'info', 'attributes')) || fs.existsSync(globalAttributesFile())) return false;
  // Exit 1 (no such setting) reads as none.
  const settings = await git(['config', '-z', '--get-regexp', '^core\\.(autocrlf|attributesfile)$'], root).catch(() => '');
  return settings === '' || settings.split('\0').every((entry) => entry === '' || /^core\.autocrlf\n(false|input)$/i.test(entry));
}

/** Write the line's changed `paths` back from the starting tree in-process; false when git must. */
export async function writeBack(root: string, common: string, paths: readonly string[], tracked: Tracked, index: IndexView): Promise<boolean> {
  if (tracked.attributes || tracked.gitlinks) return false;
  const blobs: { abs: string; mode: number; oid: string }[] = [];
  for (const rel of paths) {
    const blob = tracked.blobs.get(rel);
    if (!blob || (blob.mode !== REGULAR && blob.mode !== EXECUTABLE)) return false;
    const at = findEntry(index, Buffer.from(rel, 'utf8').toString('latin1'));
    if (at < 0 || modeAt(index, at) !== blob.mode || oidAt(index, at) !== blob.oid) return false;
    blobs.push({ abs: path.join(root, rel), ...blob });
  }
  let plain = plainRepos.get(common);
  if (!plain) plainRepos.set(common, (plain = checkoutIsPlain(root, common)));
  if (!(await plain)) return false;
  const contents = await readBlobs(
    common,
    blobs.map((b) => b.oid),
  );
  await Promise.all(
    blobs.map(async (blob, i) => {
      // As checkout does: a new file (a symlink the line put there goes), with the permissions umask leaves.
      await fs.promises.rm(blob.abs, { force: true });
      await fs.promises.mkdir(path.dirname(blob.abs), { recursive: true });
      await fs.promises.writeFile(blob.abs, contents[i]!, { mode: blob.mode === EXECUTABLE ? 0o777 : 0o666 });
    }),
  );
  return true;
}
