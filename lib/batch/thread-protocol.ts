/**
 * Messages between the batch coordinator (main thread) and its runner threads. Plain data
 * only (structured clone): a line, its provider setup without functions, and the record.
 */
import type { BatchLine } from './input.js';
import type { BatchRecord } from './records.js';
import type { LineSetup } from './run-line.js';

/** A setup that crosses a thread boundary (no custom `fetch`). */
export type PlainLineSetup = Omit<LineSetup, 'fetch'>;

/** Coordinator -> runner. */
export type ToRunner =
  | { type: 'run'; seq: number; line: BatchLine; setup: PlainLineSetup; baseDir: string; cwd: string }
  | { type: 'abort' }
  | { type: 'close' };

/** Runner -> coordinator. */
export type FromRunner =
  | { type: 'ready' }
  | { type: 'record'; seq: number; record: BatchRecord }
  | { type: 'rate-limit'; seq: number; retryAfterMs?: number }
  | { type: 'quota'; seq: number; message?: string }
  /** `lagP99Ms`/`lagMaxMs`: the runner's own event-loop delay over its life (monitorEventLoopDelay). */
  | { type: 'closed'; lagP99Ms: number; lagMaxMs: number };

/** What a runner thread is started with. */
export interface RunnerData {
  /** The shared store directory (every thread opens the same LMDB environment); none: not stored. */
  storeDir?: string;
}
