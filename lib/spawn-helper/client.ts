/**
 * The parent's side of a spawn helper (`helper-main.ts`): a {@link Spawner} whose commands
 * run as children of one small helper process, started on the first command, so the forks
 * copy the helper's page tables, not this (large, many-threaded) process's.
 *
 * What a direct spawn gives is kept: the output streams, `error` and `close (code, signal)`,
 * a kill of the process group (sent to the helper in order with the spawn, or, once the pid is
 * known and the helper is gone, sent from here), the command's environment passed whole with
 * each command (the helper's own is empty). The helper is unref'd while it runs nothing, so it
 * never holds this process open, and dies with it (its channel closes).
 *
 * If the helper dies, every command it was running gets an `error` coded
 * `MINICODE_E_SPAWN_HELPER` and its `close`; their processes (or groups) are SIGKILLed from
 * here, since a dead helper cannot; the next command starts a new helper. A command the helper
 * had started but not yet reported (its pid unknown here: a window between the helper's fork
 * and its next message) cannot be found after the helper's death and is left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MinicodeError } from '../errors.js';
import type { FromHelper, ToHelper } from './protocol.js';
import { signalProcess, type SpawnedChild, type SpawnOptions, type Spawner } from './route.js';

/** Options of {@link createSpawnHelper}. */
export interface SpawnHelperOptions {
  /** The compiled helper script; default: `helper-main.js` beside this module, or under `dist/` when run from source. */
  helperPath?: string;
}

/** A spawn helper process and the spawner that uses it. */
export interface SpawnHelper {
  spawn: Spawner;
  /** The helper's pid while it runs (tests kill it to check what its death does). */
  readonly pid: number | undefined;
  /** Commands started and not yet closed. */
  readonly running: number;
  /** Let the helper go (it kills what it still runs and exits); resolves once it has exited. */
  close(): Promise<void>;
}

/** The compiled helper: beside this module in dist/, or dist/lib/spawn-helper from the sources (vitest). */
export function defaultHelperPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = path.join(here, 'helper-main.js');
  return fs.existsSync(beside) ? beside : path.resolve(here, '../../dist/lib/spawn-helper/helper-main.js');
}

/** One command run through the helper. */
class HelperChild extends EventEmitter implements SpawnedChild {
  pid: number | undefined;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: Writable | null;
  closed = false;

  constructor(
    readonly id: number,
    readonly detached: boolean,
    private readonly helper: Connection,
    withStdin: boolean,
  ) {
    super();
    this.stdin = withStdin
      ? new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            helper.send({ type: 'stdin', id, data: chunk });
            done();
          },
          final: (done) => {
            helper.send({ type: 'stdin-end', id });
            done();
          },
        })
      : null;
  }

  killGroup(signal: NodeJS.Signals): void {
    // Once closed the helper has forgotten the command, but its group may outlive it (a
    // background job with its output redirected): signalled from here, as a direct spawn's is.
    if (this.helper.alive && !this.closed) this.helper.send({ type: 'signal', id: this.id, signal, group: true });
    else signalProcess(this.pid, signal, this.detached);
  }

  /** Its end: the output streams end first (as a ChildProcess's do), then `close`. */
  finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.closed) return;
    this.closed = true;
    // Wait for a stream's `end` only when someone reads it: an unread stream never ends.
    const ended = [this.stdout, this.stderr].map((s) => (s.readableFlowing ? new Promise<void>((resolve) => s.once('end', () => resolve())) : Promise.resolve()));
    this.stdout.end();
    this.stderr.end();
    void Promise.all(ended).then(() => this.emit('close', code, signal));
  }
}

/** One helper process and its commands in flight. */
interface Connection {
  process: ChildProcess;
  alive: boolean;
  children: Map<number, HelperChild>;
  send(message: ToHelper): void;
}

/** A spawner backed by a helper process, started lazily and again after a death. */
export function createSpawnHelper(options: SpawnHelperOptions = {}): SpawnHelper {
  const helperPath = options.helperPath ?? defaultHelperPath();
  let connection: Connection | undefined;
  let nextId = 0;

  // Referenced only while a command runs: an idle helper never keeps this thread alive.
  const updateRef = (c: Connection): void => {
    const channel = c.process.channel as { ref(): void; unref(): void } | undefined;
    if (c.children.size > 0) {
      c.process.ref();
      channel?.ref();
    } else {
      c.process.unref();
      channel?.unref();
    }
  };

  const connect = (): Connection => {
    // No environment at all: the commands' environments come with each request.
    const child = spawn(process.execPath, [helperPath], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'advanced', env: {} });
    const c: Connection = {
      process: child,
      alive: true,
      children: new Map(),
      send(message) {
        if (c.alive && child.connected) child.send(message);
      },
    };
    child.on('message', (message: FromHelper) => onMessage(c, message));
    // `error` (a failed start or send) and `exit` both end it; the first one wins.
    child.on('error', (error) => died(c, error.message));
    // `exit` can come before the channel's last messages are read (a `spawned` among them, whose
    // pid the orphan kill needs): a death is handled once the channel is drained and closed.
    child.on('exit', (code, signal) => {
      const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
      if (child.connected) child.once('disconnect', () => died(c, how));
      else died(c, how);
    });
    return c;
  };

  const onMessage = (c: Connection, message: FromHelper): void => {
    const command = c.children.get(message.id);
    if (!command) return;
    switch (message.type) {
      case 'spawned':
        command.pid = message.pid;
        break;
      case 'output': {
        const bytes = Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength);
        (message.fd === 1 ? command.stdout : command.stderr).write(bytes);
        break;
      }
      case 'error': {
        const error = new Error(message.message) as NodeJS.ErrnoException;
        if (message.errno) error.code = message.errno;
        command.emit('error', error);
        break;
      }
      case 'close':
        c.children.delete(message.id);
        updateRef(c);
        command.finish(message.code, message.signal);
        break;
    }
  };

  const died = (c: Connection, how: string): void => {
    if (!c.alive) return;
    c.alive = false;
    if (connection === c) connection = undefined;
    for (const command of c.children.values()) {
      // The dead helper cannot kill them; an orphan would keep running (and writing) unseen.
      signalProcess(command.pid, 'SIGKILL', command.detached);
      command.emit('error', new MinicodeError('MINICODE_E_SPAWN_HELPER', `the spawn helper ${how} while the command ran`));
      command.finish(null, 'SIGKILL');
    }
    c.children.clear();
  };

  const spawnThrough: Spawner = (command: string, args: string[], spawnOptions: SpawnOptions): SpawnedChild => {
    connection ??= connect();
    const c = connection;
    const id = ++nextId;
    const detached = spawnOptions.detached ?? false;
    const child = new HelperChild(id, detached, c, spawnOptions.stdin ?? false);
    c.children.set(id, child);
    updateRef(c);
    c.send({ type: 'spawn', id, command, args, cwd: spawnOptions.cwd, env: plainEnv(spawnOptions.env), detached, stdin: spawnOptions.stdin ?? false });
    return child;
  };

  return {
    spawn: spawnThrough,
    get pid() {
      return connection?.process.pid;
    },
    get running() {
      return connection?.children.size ?? 0;
    },
    async close() {
      const c = connection;
      if (!c) return;
      connection = undefined;
      if (c.process.exitCode !== null || c.process.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => c.process.once('exit', () => resolve()));
      c.process.ref();
      if (c.process.connected) c.process.disconnect();
      else c.process.kill('SIGKILL');
      await exited;
    },
  };
}

/** An environment as plain strings (`process.env` has no undefined values, an assembled one may). */
function plainEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
