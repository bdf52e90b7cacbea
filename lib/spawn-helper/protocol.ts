/**
 * The messages between a process and its spawn helper (`helper-main.ts`), over the helper's
 * IPC channel with `serialization: 'advanced'` (structured clone: output travels as bytes, not
 * base64). Every message names the command it is about by `id`, unique per helper. The channel
 * keeps order, so a command's output messages always arrive before its `close`.
 */

/** Parent -> helper: start a command (the same fields `child_process.spawn` takes). */
export interface SpawnRequest {
  type: 'spawn';
  id: number;
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment of the command: the helper's own is empty, nothing is inherited. */
  env: Record<string, string>;
  /** Its own process group (killed as a whole with `kill -PGID`). */
  detached: boolean;
  /** Keep a pipe to its stdin (else stdin is /dev/null). */
  stdin: boolean;
}

/** Parent -> helper: bytes for a command's stdin, its end, or a signal to it or its group. */
export type CommandInput = { type: 'stdin'; id: number; data: Uint8Array } | { type: 'stdin-end'; id: number } | { type: 'signal'; id: number; signal: NodeJS.Signals; group: boolean };

/** Everything the parent sends. */
export type ToHelper = SpawnRequest | CommandInput;

/** Helper -> parent: what happened to a command, in the order `ChildProcess` reports it. */
export type FromHelper =
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'output'; id: number; fd: 1 | 2; data: Uint8Array }
  | { type: 'error'; id: number; message: string; errno?: string }
  | { type: 'close'; id: number; code: number | null; signal: NodeJS.Signals | null };
