/**
 * A line's starting commit read from the repository's files instead of a `git rev-parse`
 * process (a process costs more than the rest of a pooled line's setup). Only the common
 * layout is read here: HEAD detached at a commit, or naming a branch (`refs/heads/...`) stored
 * loose or in `packed-refs`. Anything else (a reftable repository, a symbolic ref chain, an
 * unborn branch, a file that cannot be read) reads as undefined and git answers instead.
 *
 * Where the repository is comes from git once per folder and thread (repository discovery has
 * rules this file does not repeat: ceiling folders, ownership checks); the commit's tree comes
 * from git once per commit (a commit's tree never changes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { dropExpected } from '../debug.js';

/** Where a folder's repository is, as git reported it. */
export interface RepoPlace {
  top: string;
  prefix: string;
  common: string;
  /** The git directory of the checkout the folder is in (its HEAD lives there). */
  gitDir: string;
  /** Its index file. */
  index: string;
}

const OID = /^[0-9a-f]{40}$/;

/** The commit HEAD of `gitDir` names, read from files; undefined when only git can tell. */
export function readHead(place: Pick<RepoPlace, 'gitDir' | 'common'>): string | undefined {
  let head: string;
  try {
    head = fs.readFileSync(path.join(place.gitDir, 'HEAD'), 'utf8').trim();
  } catch (error) {
    dropExpected('batch: reading HEAD', error, 'ENOENT');
    return undefined;
  }
  if (OID.test(head)) return head;
  if (!head.startsWith('ref: refs/heads/')) return undefined;
  const ref = head.slice('ref: '.length);
  // Branches are shared by all worktrees: they live in the common directory.
  try {
    const loose = fs.readFileSync(path.join(place.common, ref), 'utf8').trim();
    return OID.test(loose) ? loose : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
  }
  return packedRef(place.common, ref);
}

/** `ref` from `packed-refs` (`<oid> <ref>` lines); undefined when absent. */
function packedRef(common: string, ref: string): string | undefined {
  let packed: string;
  try {
    packed = fs.readFileSync(path.join(common, 'packed-refs'), 'utf8');
  } catch (error) {
    dropExpected('batch: reading packed-refs', error, 'ENOENT');
    return undefined;
  }
  const suffix = ` ${ref}`;
  for (const line of packed.split('\n')) {
    if (line.endsWith(suffix) && line.length === 40 + suffix.length) {
      const oid = line.slice(0, 40);
      return OID.test(oid) ? oid : undefined;
    }
  }
  return undefined;
}

// Per thread: a batch names few folders and few starting commits.
const places = new Map<string, RepoPlace>();
const trees = new Map<string, string>();
const CACHE_SIZE = 64;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= CACHE_SIZE) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** The place git reported for `folder` before, if any. */
export function knownPlace(folder: string): RepoPlace | undefined {
  return places.get(folder);
}

/** Keep what git reported for `folder` and `commit`. */
export function rememberPlace(folder: string, place: RepoPlace, commit: string, tree: string): void {
  remember(places, folder, place);
  remember(trees, commit, tree);
}

/** The tree of `commit`, if git reported it before. */
export function knownTree(commit: string): string | undefined {
  return trees.get(commit);
}
