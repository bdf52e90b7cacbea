import type { NativeDecoder } from '../pipeline/types.js';

/**
 * A native decoder the supervisor can settle as cancelled: when minicode itself aborts the
 * child (AbortSignal), the run ends `task.cancelled {reason:'aborted'}` rather than failing on
 * the signal the child died of. Every decoder in `lib/native/` implements it.
 */
export interface SettlingNativeDecoder extends NativeDecoder {
  stderr(text: string): void;
  exit(code: number | null, signal: string | null): void;
  /** Settle the run as cancelled (aborted by minicode); open tools and approvals close first. */
  cancel(message?: string): void;
}
