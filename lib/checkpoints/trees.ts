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
import { modeAt, nameAt, oidAt, type CacheTree, type IndexView } from './index-file.js';

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
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`);
  // Level 1, as git writes loose objects by default (core.looseCompression).
  fs.writeFileSync(temp, deflateSync(raw, { level: 1 }), { mode: 0o400 });
  fs.renameSync(temp, file);
  return id;
}

/** Octal mode text of a tree entry (git writes folders as `40000`). */
const modeText = (mode: number): string => mode.toString(8);

/**
 * Write the tree of the entries of `view` (sorted, stage 0) into `gitDir`, reusing every folder `cache`
 * holds as valid; returns the root tree's id and the complete cache tree of the result.
 */
export function writeTrees(gitDir: string, view: IndexView, cache: CacheTree | undefined): { tree: string; cache: CacheTree } {
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
    let entryName: string;
    while (i < view.count && (entryName = nameAt(view, i)).startsWith(prefix)) {
      const rest = entryName.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) {
        body.push(Buffer.from(`${modeText(modeAt(view, i))} ${rest}\0`, 'latin1'), Buffer.from(oidAt(view, i), 'hex'));
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
  if (i !== view.count) throw new Error('index entries out of order');
  return { tree: root.oid!, cache: root };
}
