/**
 * Blobs and trees written into the store as loose objects, the way `git hash-object -w` and
 * `git write-tree` write them: a tree is rebuilt only for folders the cache tree marks as
 * changed, the others keep their recorded id, and the cache tree comes back complete so the
 * next snapshot (in-process or git's) reuses it.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { CacheTree, IndexEntry } from './index-file.js';

/** The id of the empty blob: an entry of size 0 with another id was smudged (see `racy git`). */
export const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/** The id of an object of `type` holding `body`, and its loose-object bytes (header + body). */
function objectOf(type: string, body: Buffer): { id: string; raw: Buffer } {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`, 'latin1'), body]);
  return { id: createHash('sha1').update(raw).digest('hex'), raw };
}

/** Write an object into `gitDir` unless it is there already; returns its id. */
export function writeObject(gitDir: string, type: 'blob' | 'tree', body: Buffer): string {
  const { id, raw } = objectOf(type, body);
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (fs.existsSync(file)) return id;
  fs.mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`);
  // Level 1, as git writes loose objects by default (core.looseCompression).
  fs.writeFileSync(temp, deflateSync(raw, { level: 1 }), { mode: 0o444 });
  fs.renameSync(temp, file);
  return id;
}

/** Octal mode text of a tree entry (git writes folders as `40000`). */
const modeText = (mode: number): string => mode.toString(8);

/**
 * Write the tree of `entries` (sorted, stage 0) into `gitDir`, reusing every folder `cache`
 * holds as valid; returns the root tree's id and the complete cache tree of the result.
 */
export function writeTrees(gitDir: string, entries: readonly IndexEntry[], cache: CacheTree | undefined): { tree: string; cache: CacheTree } {
  let i = 0;
  // Build the folder whose entries start at `i` and share `prefix` (empty, or ending in '/').
  const build = (name: string, prefix: string, cached: CacheTree | undefined): CacheTree => {
    const start = i;
    if (cached && cached.entryCount >= 0 && cached.oid) {
      // Still valid: the same entries as when it was written (the caller invalidated every changed path).
      i += cached.entryCount;
      return { name, entryCount: cached.entryCount, oid: cached.oid, children: cached.children };
    }
    const body: Buffer[] = [];
    const children: CacheTree[] = [];
    while (i < entries.length && entries[i]!.name.startsWith(prefix)) {
      const e = entries[i]!;
      const rest = e.name.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) {
        body.push(Buffer.from(`${modeText(e.mode)} ${rest}\0`, 'latin1'), Buffer.from(e.oid, 'hex'));
        i++;
        continue;
      }
      const sub = rest.slice(0, slash);
      const child = build(
        sub,
        `${prefix}${sub}/`,
        cached?.children.find((c) => c.name === sub),
      );
      children.push(child);
      body.push(Buffer.from(`40000 ${sub}\0`, 'latin1'), Buffer.from(child.oid!, 'hex'));
    }
    const oid = writeObject(gitDir, 'tree', Buffer.concat(body));
    return { name, entryCount: i - start, oid, children };
  };
  const root = build('', '', cache);
  if (i !== entries.length) throw new Error('index entries out of order');
  return { tree: root.oid!, cache: root };
}
