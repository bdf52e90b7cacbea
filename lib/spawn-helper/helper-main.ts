/**
 * The spawn helper: a small Node process that spawns commands for a large one (a batch's pool
 * thread) and relays their output over its IPC channel. On Linux, libuv's `uv_spawn` (Node 20,
 * libuv 1.46) forks: the kernel copies the whole parent's page tables while holding its memory
 * map lock, and every thread of the parent that touches memory in that window waits. Forking
 * from this process copies a few MB instead of hundreds (measured: bench/spawn-helper.ts).
 *
 * Only Node built-ins here: it starts in tens of ms. Its own environment is empty (the parent
 * sends each command's environment), so it holds no secret. It ignores SIGINT (a terminal's
 * Ctrl+C goes to the whole foreground group: the batch decides what an interrupt does, and the
 * commands get the signal themselves), and when the channel closes (the parent ended or died)
 * it kills what it still runs and exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { FromHelper, ToHelper } from './protocol.js';

const running = new Map<number, { child: ChildProcess; detached: boolean }>();

function send(message: FromHelper): void {
  if (process.connected) process.send!(message);
}

// A send after the parent let go fails (EPIPE, emitted here) before this process sees the
// `disconnect`, which comes next and kills what runs: not a reason to die without that.
process.on('error', () => undefined);

/** Signal a command, or its whole process group when it has one; a gone process is no error. */
function signalCommand(id: number, signal: NodeJS.Signals, group: boolean): void {
  const entry = running.get(id);
  const pid = entry?.child.pid;
  if (pid === undefined) return;
  try {
    process.kill(group && entry!.detached ? -pid : pid, signal);
  } catch {
    // Already gone.
  }
}

function start(request: Extract<ToHelper, { type: 'spawn' }>): void {
  let child: ChildProcess;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: request.detached,
      stdio: [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    send({ type: 'error', id: request.id, message: (error as Error).message, ...errnoOf(error) });
    send({ type: 'close', id: request.id, code: null, signal: null });
    return;
  }
  const { id } = request;
  running.set(id, { child, detached: request.detached });
  if (child.pid !== undefined) send({ type: 'spawned', id, pid: child.pid });
  child.stdout!.on('data', (data: Buffer) => send({ type: 'output', id, fd: 1, data }));
  child.stderr!.on('data', (data: Buffer) => send({ type: 'output', id, fd: 2, data }));
  // A command that exits without reading its stdin makes writes fail with EPIPE: as with a direct spawn, not an error of the command.
  child.stdin?.on('error', () => undefined);
  child.on('error', (error) => send({ type: 'error', id, message: error.message, ...errnoOf(error) }));
  child.on('close', (code, signal) => {
    running.delete(id);
    send({ type: 'close', id, code, signal });
  });
}

function errnoOf(error: unknown): { errno?: string } {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? { errno: code } : {};
}

process.on('message', (message: ToHelper) => {
  switch (message.type) {
    case 'spawn':
      start(message);
      break;
    case 'stdin':
      running.get(message.id)?.child.stdin?.write(message.data);
      break;
    case 'stdin-end':
      running.get(message.id)?.child.stdin?.end();
      break;
    case 'signal':
      signalCommand(message.id, message.signal, message.group);
      break;
  }
});

process.on('SIGINT', () => undefined);

process.on('disconnect', () => {
  for (const id of running.keys()) signalCommand(id, 'SIGKILL', true);
  process.exit(0);
});
