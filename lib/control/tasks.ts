/**
 * The messages between the main thread and the pool's workers, one task type per worker file
 * (`workers/<name>.ts`). Results are plain data: a worker never throws across the boundary,
 * it returns `{ ok: false, error: {code, message, data} }` (an Error subclass would lose its
 * fields in `structuredClone`).
 */
import type { ErrorCode, PlainError } from '../errors.js';
import type { DensityTable } from './density.js';
import type { FoldOptions } from './fold.js';
import type { FixedContext } from './transcript.js';

/** Worker names: `workers/<name>.ts`, compiled to `dist/workers/<name>.js` (`batch-line`: see `lib/batch/pool-task.ts`). */
export type WorkerName = 'count-tokens' | 'estimate-context' | 'compact' | 'batch-line';

/** A worker's answer: a value or a plain coded error. */
export type WorkerResult<T> = { ok: true; value: T } | { ok: false; error: PlainError };

/** Exact token count of one text, given as UTF-8 bytes (large) or a string (small). */
export interface CountTokensTask {
  bytes?: ArrayBuffer;
  text?: string;
}

/** What `count-tokens` returns. */
export interface CountTokensValue {
  tokens: number;
  chars: number;
  encoding: 'o200k_base';
}

/** Estimate a whole transcript (NDJSON bytes, see `wire.ts`) plus its fixed overhead. */
export interface EstimateContextTask {
  bytes: ArrayBuffer;
  fixed?: FixedContext;
  /** `heuristic` (density table) or `exact` (o200k per message); default heuristic. */
  mode?: 'heuristic' | 'exact';
  densities?: DensityTable;
}

/** What `estimate-context` returns. */
export interface EstimateContextValue {
  mode: 'heuristic' | 'exact';
  tokens: number;
  fixedTokens: number;
  messageTokens: number;
  messages: number;
  /** Lines of the input that were not messages (reported, skipped). */
  badLines: number;
}

/** Fold a transcript mechanically (see `fold.ts`). */
export interface CompactTask {
  bytes: ArrayBuffer;
  options?: FoldOptions;
}

/** What `compact` returns: the folded transcript as NDJSON bytes plus the fold's figures. */
export interface CompactValue {
  bytes: ArrayBuffer;
  beforeTokens: number;
  afterTokens: number;
  removedMessages: number;
  removedUnits: number;
  foldedMessages: number;
  removedImages: number;
  changed: boolean;
  badLines: number;
}

/** Build a coded failure result. */
export function failure(code: ErrorCode, message: string, data?: unknown): { ok: false; error: PlainError } {
  return { ok: false, error: data === undefined ? { code, message } : { code, message, data } };
}
