/**
 * The content store: large payloads (full tool output, diffs, raw bytes) kept outside events
 * and addressed by `ContentRef` (I-A06). Keyed by `sha256:<hex>`, so the same bytes are stored
 * once. Content over the size cap is not stored and its ref carries an eviction marker
 * (`size-cap`); evicting stored content leaves a tombstone, so a ref never dangles silently.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import type { ContentRef } from '../events/index.js';
import { definedOnly } from '../defined-only.js';

/** Largest content stored, in bytes (default 8 MiB). */
export const DEFAULT_MAX_CONTENT_BYTES = 8 * 1024 * 1024;
const PREVIEW_CHARS = 512;

/** What is stored under a content key: the bytes, or a tombstone once evicted. */
export interface ContentRecord {
  size: number;
  mediaType?: string;
  bytes?: Uint8Array;
  evicted?: { reason: 'eviction'; at: string };
}

/** Result of reading a ref back. */
export type ContentLookup =
  | { status: 'present'; bytes: Uint8Array; mediaType?: string }
  | { status: 'evicted'; reason: 'size-cap' | 'eviction' | 'not-stored'; at?: string }
  | { status: 'missing' };

/** Options of {@link createContentStore}. */
export interface ContentStoreOptions {
  /** Default {@link DEFAULT_MAX_CONTENT_BYTES}. */
  maxContentBytes?: number;
  /** Clock for eviction markers; default `Date.now`. */
  clock?: () => number;
}

/** Content-addressed blob storage over one LMDB database. */
export interface ContentStore {
  put(content: Uint8Array | string, options?: { mediaType?: string; preview?: string }): Promise<ContentRef>;
  get(ref: ContentRef | string): ContentLookup;
  /** Drop the bytes and leave a tombstone; returns the ref with its eviction marker. */
  evict(ref: ContentRef): Promise<ContentRef>;
}

/** `sha256:<hex>` of some bytes. */
export function contentDigest(bytes: Uint8Array): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

export function createContentStore(
  db: Database<ContentRecord, string>,
  options: ContentStoreOptions = {},
): ContentStore {
  const max = options.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES;
  if (!(max >= 0)) throw new TypeError('createContentStore: maxContentBytes must be >= 0');
  const clock = options.clock ?? Date.now;
  return {
    async put(content, opts = {}) {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const ref: ContentRef = { ref: contentDigest(bytes), size: bytes.byteLength };
      if (opts.mediaType !== undefined) ref.mediaType = opts.mediaType;
      const preview = opts.preview ?? (typeof content === 'string' ? content.slice(0, PREVIEW_CHARS) : undefined);
      if (preview !== undefined) ref.preview = preview.slice(0, PREVIEW_CHARS);
      if (bytes.byteLength > max) {
        ref.evicted = { reason: 'size-cap' };
        return ref;
      }
      const existing = db.get(ref.ref);
      if (existing?.bytes) return ref;
      const record: ContentRecord = { size: bytes.byteLength, bytes };
      if (opts.mediaType !== undefined) record.mediaType = opts.mediaType;
      await db.put(ref.ref, record);
      return ref;
    },
    get(ref) {
      const key = typeof ref === 'string' ? ref : ref.ref;
      if (typeof ref !== 'string' && ref.evicted?.reason === 'size-cap')
        return { status: 'evicted', reason: 'size-cap' };
      const record = db.get(key);
      if (!record) return { status: 'missing' };
      if (record.evicted || !record.bytes)
        return definedOnly({
          status: 'evicted',
          reason: 'eviction',
          at: record.evicted ? record.evicted.at : undefined,
        });
      return record.mediaType === undefined
        ? { status: 'present', bytes: record.bytes }
        : { status: 'present', bytes: record.bytes, mediaType: record.mediaType };
    },
    async evict(ref) {
      const at = new Date(clock()).toISOString();
      const tombstone: ContentRecord = { size: ref.size, evicted: { reason: 'eviction', at } };
      if (ref.mediaType !== undefined) tombstone.mediaType = ref.mediaType;
      await db.put(ref.ref, tombstone);
      return { ...ref, evicted: { reason: 'eviction', at } };
    },
  };
}
