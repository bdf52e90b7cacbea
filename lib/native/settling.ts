import type { NativeDecoder } from '../decode/types.js';
import type { RunCore } from './run-core.js';

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

/** What a format adds around {@link settlingDecoder}'s defaults. */
export interface SettlingHooks {
  /** Runs after the input's end: settle what the format still holds back. */
  afterEnd?: () => void;
  /** Runs before the exit policy; return true when it already settled the run. */
  beforeExit?: (code: number | null, signal: string | null) => boolean | void;
  /** Passed to {@link RunCore.exit}: the format has no terminal record; default false. */
  cleanExitCompletes?: boolean;
}

/**
 * The decoder every JSONL format returns: bytes to its input, stderr and the exit to the run
 * core's exit policy, cancel settles `task.cancelled {reason:'aborted'}`.
 */
export function settlingDecoder(
  core: RunCore,
  input: { feed(chunk: Uint8Array | string): void; end(): void },
  hooks: SettlingHooks = {},
): SettlingNativeDecoder {
  return {
    feed: (chunk) => input.feed(chunk),
    end() {
      input.end();
      hooks.afterEnd?.();
    },
    stderr: (text) => core.stderr(text),
    exit(code, signal) {
      if (hooks.beforeExit?.(code, signal) === true) return;
      core.exit(code, signal, hooks.cleanExitCompletes ?? false);
    },
    cancel: (message) => core.cancelTask('aborted', message, 'synthetic'),
  };
}
