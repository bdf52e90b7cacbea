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

const HEADER = 12;
const ENTRY_FIXED = 62;
const NAME_MASK = 0xfff;
const STAGE_MASK = 0x3000;
/** Extensions a copy of the index may drop: only cached data, rebuilt by git when absent. */
const DROPPABLE = new Set(['TREE', 'UNTR', 'FSMN', 'REUC', 'EOIE', 'IEOT']);

/**
 * An index read without making an object per entry: the file's bytes and where each entry
 * starts. A snapshot touches a handful of entries out of tens of thousands, so the others are
 * copied as bytes and only looked at when a folder's tree is rebuilt.
 */
export interface IndexView {
  data: Buffer;
  /** Start of each entry, then the end of the last one. */
  offsets: Uint32Array;
  count: number;
  tree?: CacheTree;
}

/** Where the entries of `data` start (and end), from `start`; undefined when malformed. */
function entryOffsets(data: Buffer, start: number, count: number, end: number): Uint32Array | undefined {
  const offsets = new Uint32Array(count + 1);
  let offset = start;
  for (let i = 0; i < count; i++) {
    if (offset + ENTRY_FIXED > end) return undefined;
    offsets[i] = offset;
    const flags = data.readUInt16BE(offset + 60);
    if (flags & (STAGE_MASK | 0x4000)) return undefined;
    let nameLength = flags & NAME_MASK;
    if (nameLength === NAME_MASK) {
      const nul = data.indexOf(0, offset + ENTRY_FIXED);
      if (nul < 0) return undefined;
      nameLength = nul - offset - ENTRY_FIXED;
    }
    offset += (ENTRY_FIXED + nameLength + 8) & ~7;
  }
  offsets[count] = offset;
  return offset <= end ? offsets : undefined;
}

/** Read a version-2 SHA-1 index as a view; undefined for anything the store does not write itself. */
export function viewIndex(data: Buffer): IndexView | undefined {
  if (data.length < HEADER + 20 || data.toString('latin1', 0, 4) !== 'DIRC' || data.readUInt32BE(4) !== 2) return undefined;
  const end = data.length - 20;
  if (!createHash('sha1').update(data.subarray(0, end)).digest().equals(data.subarray(end))) return undefined;
  const count = data.readUInt32BE(8);
  const offsets = entryOffsets(data, HEADER, count, end);
  if (!offsets) return undefined;
  let offset = offsets[count]!;
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
  return offset === end ? { data, offsets, count, ...(tree ? { tree } : {}) } : undefined;
}

/** The name of entry `i` (a byte string). */
export function nameAt(view: IndexView, i: number): string {
  const offset = view.offsets[i]!;
  const nameLength = view.data.readUInt16BE(offset + 60) & NAME_MASK;
  const end = nameLength === NAME_MASK ? view.data.indexOf(0, offset + ENTRY_FIXED) : offset + ENTRY_FIXED + nameLength;
  return view.data.toString('latin1', offset + ENTRY_FIXED, end);
}

/** Entry `i` in full. */
export function entryAt(view: IndexView, i: number): IndexEntry {
  const d = view.data;
  const o = view.offsets[i]!;
  return {
    name: nameAt(view, i),
    ctimeS: d.readUInt32BE(o),
    ctimeNs: d.readUInt32BE(o + 4),
    mtimeS: d.readUInt32BE(o + 8),
    mtimeNs: d.readUInt32BE(o + 12),
    dev: d.readUInt32BE(o + 16),
    ino: d.readUInt32BE(o + 20),
    mode: d.readUInt32BE(o + 24),
    uid: d.readUInt32BE(o + 28),
    gid: d.readUInt32BE(o + 32),
    size: d.readUInt32BE(o + 36),
    oid: d.toString('hex', o + 40, o + 60),
    flags: d.readUInt16BE(o + 60) & ~NAME_MASK,
  };
}

/** The mode of entry `i`. */
export const modeAt = (view: IndexView, i: number): number => view.data.readUInt32BE(view.offsets[i]! + 24);
/** The object id of entry `i`. */
export const oidAt = (view: IndexView, i: number): string => view.data.toString('hex', view.offsets[i]! + 40, view.offsets[i]! + 60);
/** The recorded size of entry `i` (0 when smudged). */
export const sizeAt = (view: IndexView, i: number): number => view.data.readUInt32BE(view.offsets[i]! + 36);

/** The position of the entry named `name` (a byte string), or -1. */
export function findEntry(view: IndexView, name: string): number {
  const key = Buffer.from(name, 'latin1');
  let lo = 0;
  let hi = view.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cmp = Buffer.compare(Buffer.from(nameAt(view, mid), 'latin1'), key);
    if (cmp === 0) return mid;
    if (cmp < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The bytes of one entry. */
function entryBytes(e: IndexEntry): Buffer {
  const nameLength = Buffer.byteLength(e.name, 'latin1');
  const out = Buffer.alloc((ENTRY_FIXED + nameLength + 8) & ~7);
  const fields = [e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
  for (let k = 0; k < fields.length; k++) out.writeUInt32BE(fields[k]! >>> 0, k * 4);
  out.write(e.oid, 40, 'hex');
  out.writeUInt16BE((e.flags & ~NAME_MASK) | Math.min(nameLength, NAME_MASK), 60);
  out.write(e.name, ENTRY_FIXED, 'latin1');
  return out;
}

/**
 * The entries of `view` with some replaced (`replaced`: position to new entry, or null to
 * remove it) and some added (`added`, any order; names not in the view), as a new view whose
 * bytes hold only the entries (header, extensions and checksum come with {@link indexBytes}).
 */
export function editIndex(view: IndexView, replaced: ReadonlyMap<number, IndexEntry | null>, added: readonly IndexEntry[]): IndexView {
  const inserts = [...added].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts: Buffer[] = [];
  let runStart = 0;
  let k = 0;
  const flush = (upTo: number): void => {
    if (upTo > runStart) parts.push(view.data.subarray(view.offsets[runStart]!, view.offsets[upTo]!));
  };
  for (let i = 0; i <= view.count; i++) {
    const name = i < view.count && (k < inserts.length || replaced.has(i)) ? nameAt(view, i) : undefined;
    while (k < inserts.length && (i === view.count || inserts[k]!.name < name!)) {
      flush(i);
      runStart = i;
      parts.push(entryBytes(inserts[k++]!));
    }
    if (i < view.count && replaced.has(i)) {
      flush(i);
      runStart = i + 1;
      const entry = replaced.get(i);
      if (entry) parts.push(entryBytes(entry));
    }
  }
  flush(view.count);
  const data = Buffer.concat(parts);
  const count = view.count + inserts.length - [...replaced.values()].filter((e) => e === null).length;
  const offsets = entryOffsets(data, 0, count, data.length);
  if (!offsets || offsets[count] !== data.length) throw new Error('index edit produced malformed entries');
  return { data, offsets, count, ...(view.tree ? { tree: view.tree } : {}) };
}

/** Smudge (size 0) every entry of `view` recorded at or after `time` (ns), in place; true when any was. */
export function smudgeRacy(view: IndexView, time: bigint): boolean {
  const seconds = Number(time / 1_000_000_000n);
  const nanos = Number(time % 1_000_000_000n);
  let any = false;
  for (let i = 0; i < view.count; i++) {
    const offset = view.offsets[i]!;
    if (view.data.readUInt32BE(offset + 36) === 0) continue;
    const s = view.data.readUInt32BE(offset + 8);
    if (s > seconds || (s === seconds && view.data.readUInt32BE(offset + 12) >= nanos)) {
      view.data.writeUInt32BE(0, offset + 36);
      any = true;
    }
  }
  return any;
}

/** The whole index file of an edited view (entries from offset 0): header, entries, cache tree, checksum. */
export function indexBytes(view: IndexView): Buffer {
  const start = view.offsets[0] ?? 0;
  const entriesLength = view.offsets[view.count]! - start;
  const tree = view.tree ? serializeCacheTree(view.tree) : undefined;
  // One buffer, written in place: the index of a large workspace is megabytes.
  const out = Buffer.allocUnsafe(HEADER + entriesLength + (tree ? 8 + tree.length : 0) + 20);
  out.write('DIRC', 0, 'latin1');
  out.writeUInt32BE(2, 4);
  out.writeUInt32BE(view.count, 8);
  view.data.copy(out, HEADER, start, start + entriesLength);
  let offset = HEADER + entriesLength;
  if (tree) {
    out.write('TREE', offset, 'latin1');
    out.writeUInt32BE(tree.length, offset + 4);
    tree.copy(out, offset + 8);
    offset += 8 + tree.length;
  }
  createHash('sha1').update(out.subarray(0, offset)).digest().copy(out, offset);
  return out;
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
