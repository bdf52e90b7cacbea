/**
 * Git's index file, version 2 with SHA-1 ids, read and written in-process: the entries with
 * their stat data and object ids, and the cache tree (`TREE` extension) that lets a tree be
 * written again without reading every unchanged folder. Only what the store's own index ever
 * holds is accepted (stage-0 entries, no other version, no split or sparse index); anything
 * else reads as undefined and the caller lets git handle it.
 *
 * Paths are kept as "byte strings" (one char per byte, latin1): JavaScript's string order then
 * is git's byte order, and `/` splits them as git does.
 */
import { createHash } from 'node:crypto';

/** One index entry (stat fields as git stores them: 32-bit, truncated). */
export interface IndexEntry {
  /** The path as a byte string (latin1). */
  name: string;
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Object id, 40 hex digits. */
  oid: string;
  /** Flags without the name length (assume-valid, stage). */
  flags: number;
}

/** A folder of the cache tree: how many entries it covers (-1 when invalid) and its tree id. */
export interface CacheTree {
  /** The folder's own name (a byte string; empty for the root). */
  name: string;
  entryCount: number;
  oid?: string;
  children: CacheTree[];
}

/** A parsed index. */
export interface IndexFile {
  entries: IndexEntry[];
  tree?: CacheTree;
}

const HEADER = 12;
const ENTRY_FIXED = 62;
const NAME_MASK = 0xfff;
const STAGE_MASK = 0x3000;
/** Extensions a copy of the index may drop: only cached data, rebuilt by git when absent. */
const DROPPABLE = new Set(['TREE', 'UNTR', 'FSMN', 'REUC', 'EOIE', 'IEOT']);

/** Parse a version-2 SHA-1 index; undefined when the file is anything the store does not write itself. */
export function parseIndex(data: Buffer): IndexFile | undefined {
  if (data.length < HEADER + 20 || data.toString('latin1', 0, 4) !== 'DIRC' || data.readUInt32BE(4) !== 2) return undefined;
  const end = data.length - 20;
  if (!createHash('sha1').update(data.subarray(0, end)).digest().equals(data.subarray(end))) return undefined;
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = new Array(count);
  let offset = HEADER;
  for (let i = 0; i < count; i++) {
    if (offset + ENTRY_FIXED > end) return undefined;
    const flags = data.readUInt16BE(offset + 60);
    if (flags & STAGE_MASK || flags & 0x4000) return undefined;
    let nameLength = flags & NAME_MASK;
    if (nameLength === NAME_MASK) {
      const nul = data.indexOf(0, offset + ENTRY_FIXED);
      if (nul < 0) return undefined;
      nameLength = nul - offset - ENTRY_FIXED;
    }
    entries[i] = {
      ctimeS: data.readUInt32BE(offset),
      ctimeNs: data.readUInt32BE(offset + 4),
      mtimeS: data.readUInt32BE(offset + 8),
      mtimeNs: data.readUInt32BE(offset + 12),
      dev: data.readUInt32BE(offset + 16),
      ino: data.readUInt32BE(offset + 20),
      mode: data.readUInt32BE(offset + 24),
      uid: data.readUInt32BE(offset + 28),
      gid: data.readUInt32BE(offset + 32),
      size: data.readUInt32BE(offset + 36),
      oid: data.toString('hex', offset + 40, offset + 60),
      flags: flags & ~NAME_MASK,
      name: data.toString('latin1', offset + ENTRY_FIXED, offset + ENTRY_FIXED + nameLength),
    };
    offset += (ENTRY_FIXED + nameLength + 8) & ~7;
  }
  let tree: CacheTree | undefined;
  while (offset + 8 <= end) {
    const signature = data.toString('latin1', offset, offset + 4);
    const size = data.readUInt32BE(offset + 4);
    if (offset + 8 + size > end) return undefined;
    if (signature === 'TREE') {
      tree = parseCacheTree(data.subarray(offset + 8, offset + 8 + size));
      if (!tree) return undefined;
    } else if (!DROPPABLE.has(signature)) return undefined;
    offset += 8 + size;
  }
  return offset === end ? { entries, ...(tree ? { tree } : {}) } : undefined;
}

/** The `TREE` extension: nodes in pre-order, each "name NUL count SP subtrees LF [oid]". */
function parseCacheTree(data: Buffer): CacheTree | undefined {
  let offset = 0;
  const node = (): CacheTree | undefined => {
    const nul = data.indexOf(0, offset);
    const lf = nul < 0 ? -1 : data.indexOf(0x0a, nul);
    if (nul < 0 || lf < 0) return undefined;
    const name = data.toString('latin1', offset, nul);
    const [countText, subtreesText] = data.toString('latin1', nul + 1, lf).split(' ');
    const entryCount = Number(countText);
    const subtrees = Number(subtreesText);
    if (!Number.isInteger(entryCount) || !Number.isInteger(subtrees) || subtrees < 0) return undefined;
    offset = lf + 1;
    let oid: string | undefined;
    if (entryCount >= 0) {
      if (offset + 20 > data.length) return undefined;
      oid = data.toString('hex', offset, offset + 20);
      offset += 20;
    }
    const children: CacheTree[] = [];
    for (let i = 0; i < subtrees; i++) {
      const child = node();
      if (!child) return undefined;
      children.push(child);
    }
    return { name, entryCount, ...(oid ? { oid } : {}), children };
  };
  const root = node();
  return root && offset === data.length ? root : undefined;
}

function serializeCacheTree(root: CacheTree): Buffer {
  const parts: Buffer[] = [];
  const visit = (n: CacheTree): void => {
    parts.push(Buffer.from(`${n.name}\0${n.entryCount} ${n.children.length}\n`, 'latin1'));
    if (n.entryCount >= 0 && n.oid) parts.push(Buffer.from(n.oid, 'hex'));
    for (const c of n.children) visit(c);
  };
  visit(root);
  return Buffer.concat(parts);
}

/** The bytes of a version-2 index holding `index` (entries must be sorted by name), checksum included. */
export function serializeIndex(index: IndexFile): Buffer {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(HEADER);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(index.entries.length, 8);
  parts.push(header);
  for (const e of index.entries) {
    const nameLength = Buffer.byteLength(e.name, 'latin1');
    const entry = Buffer.alloc((ENTRY_FIXED + nameLength + 8) & ~7);
    const fields = [e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
    for (let i = 0; i < fields.length; i++) entry.writeUInt32BE(fields[i]! >>> 0, i * 4);
    entry.write(e.oid, 40, 'hex');
    entry.writeUInt16BE((e.flags & ~NAME_MASK) | Math.min(nameLength, NAME_MASK), 60);
    entry.write(e.name, ENTRY_FIXED, 'latin1');
    parts.push(entry);
  }
  if (index.tree) {
    const tree = serializeCacheTree(index.tree);
    const head = Buffer.alloc(8);
    head.write('TREE', 0, 'latin1');
    head.writeUInt32BE(tree.length, 4);
    parts.push(head, tree);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** Mark every folder on the way to `name` as changed in the cache tree. */
export function invalidatePath(root: CacheTree, name: string): void {
  root.entryCount = -1;
  delete root.oid;
  let node = root;
  const parts = name.split('/');
  for (let i = 0; i < parts.length - 1; i++) {
    const child = node.children.find((c) => c.name === parts[i]);
    if (!child) return;
    child.entryCount = -1;
    delete child.oid;
    node = child;
  }
}
