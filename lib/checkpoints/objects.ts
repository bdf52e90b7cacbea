/**
 * Objects and index files of the store, handled without a git subprocess where the format is
 * small and fixed: a checkpoint's commit object (a few hundred bytes, written as a loose object
 * the way git writes one), and a read of a version-2 index file's header and extension names,
 * enough to tell whether the user's index can seed the store's first one.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';

/** What a checkpoint commit records. */
export interface CommitFields {
  tree: string;
  parent?: string;
  message: string;
  /** Commit time, ms since the epoch. */
  at: number;
}

const IDENT = 'minicode <checkpoints@minicode.invalid>';

/** The bytes of a commit object's body, as `git commit-tree` would write them (UTC, fixed identity). */
export function commitBody(fields: CommitFields): Buffer {
  const when = `${Math.floor(fields.at / 1000)} +0000`;
  const lines = [
    `tree ${fields.tree}`,
    ...(fields.parent ? [`parent ${fields.parent}`] : []),
    `author ${IDENT} ${when}`,
    `committer ${IDENT} ${when}`,
    '',
    fields.message.endsWith('\n') ? fields.message : fields.message + '\n',
  ];
  return Buffer.from(lines.join('\n'), 'utf8');
}

/**
 * Write a commit as a loose object in `gitDir` and return its id. Only for SHA-1 stores (the
 * store is created by `git init` with the default format); a longer tree id throws, and the
 * caller falls back to `git commit-tree`.
 */
export function writeCommit(gitDir: string, fields: CommitFields): string {
  if (!/^[0-9a-f]{40}$/.test(fields.tree) || (fields.parent !== undefined && !/^[0-9a-f]{40}$/.test(fields.parent))) throw new Error('not a SHA-1 store');
  const body = commitBody(fields);
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`, 'utf8'), body]);
  const id = createHash('sha1').update(object).digest('hex');
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (fs.existsSync(file)) return id;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(temp, deflateSync(object), { mode: 0o400 });
  fs.renameSync(temp, file);
  return id;
}

/** Extensions that make an index depend on files of its own repository, or hold a partial one. */
const FOREIGN_EXTENSIONS = new Set(['link', 'sdir']);

/**
 * True when `data` is a version-2 index of SHA-1 entries with no split-index or sparse-index
 * extension: a copy of such a file is self-contained and every entry is a plain tracked path.
 * (Version 2 has no room for intent-to-add or skip-worktree flags.)
 */
export function isPlainIndex(data: Buffer): boolean {
  if (data.length < 32 || data.toString('latin1', 0, 4) !== 'DIRC' || data.readUInt32BE(4) !== 2) return false;
  const count = data.readUInt32BE(8);
  const end = data.length - 20;
  let offset = 12;
  for (let i = 0; i < count; i++) {
    if (offset + 62 > end) return false;
    let nameLength = data.readUInt16BE(offset + 60) & 0xfff;
    if (nameLength === 0xfff) {
      const nul = data.indexOf(0, offset + 62);
      if (nul < 0) return false;
      nameLength = nul - offset - 62;
    }
    // Entry: 62 fixed bytes, the name, then 1 to 8 NULs up to a multiple of 8.
    offset += (62 + nameLength + 8) & ~7;
  }
  while (offset + 8 <= end) {
    if (FOREIGN_EXTENSIONS.has(data.toString('latin1', offset, offset + 4))) return false;
    offset += 8 + data.readUInt32BE(offset + 4);
  }
  return offset === end;
}
