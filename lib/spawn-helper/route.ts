/**
 * Where a subprocess of a tool or of the batch harness is spawned from: this process (the
 * default, every single `exec` run), or a spawn helper process when the caller runs inside
 * {@link runWithSpawner} (a batch line on a pool thread). The choice travels with the async
 * context, so the many runs one pool thread carries each keep their own, and nothing on the
 * exec path loads the helper's client.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';

/** How to start a command (a subset of `child_process.spawn`'s options; stdout and stderr are always pipes). */
export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Its own process group, for {@link SpawnedChild.killGroup}; default false. */
  detached?: boolean;
  /** A pipe to its stdin; default: stdin is /dev/null. */
  stdin?: boolean;
}

/**
 * A started command, as much of `ChildProcess` as our callers use: `error` and `close (code,
 * signal)` events, the output streams, and a kill of its process group.
 */
export interface SpawnedChild extends EventEmitter {
  /** Known once started (through a helper: once the helper answered). */
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Signal its process group (detached) or the process itself; a gone process is no error. */
  killGroup(signal: NodeJS.Signals): void;
}

/** Something that starts commands. */
export type Spawner = (command: string, args: string[], options: SpawnOptions) => SpawnedChild;

const scope = new AsyncLocalStorage<Spawner>();

/** Run `fn` with every {@link spawnChild} inside it (and its async continuations) going through `spawner`. */
export function runWithSpawner<T>(spawner: Spawner, fn: () => T): T {
  return scope.run(spawner, fn);
}

/** Start a command from here, or through the spawner of the current {@link runWithSpawner} scope. */
export function spawnChild(command: string, args: string[], options: SpawnOptions): SpawnedChild {
  return (scope.getStore() ?? spawnDirect)(command, args, options);
}

/** Signal `pid`'s group (when `group`) or `pid`; a gone process is no error. */
export function signalProcess(pid: number | undefined, signal: NodeJS.Signals, group: boolean): void {
  if (pid === undefined) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Already gone: nothing to signal.
  }
}

/** `child_process.spawn` from this process. */
export const spawnDirect: Spawner = (command, args, options) => {
  const detached = options.detached ?? false;
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached, stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  // stdout and stderr are pipes (the stdio above), never null.
  return Object.assign(child, { killGroup: (signal: NodeJS.Signals) => signalProcess(child.pid, signal, detached) }) as SpawnedChild;
};
