import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EVENT_REGISTRY, type OutputEvent } from '../../lib/events/index.js';
import { openStore } from '../../lib/store/index.js';
import { MAX_BATCH_CHARS } from '../../lib/store/event-batches.js';
import { withOpenLock, writerLock } from '../../lib/store/open-lock.js';
import { syntheticRun } from '../corpus/synthetic-run.js';
import { ROOT } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';
import { waitFor } from '../helpers/wait.js';
import { compiledHelper } from '../helpers/compiled.js';

const tmpDir = scratchDirs('minicode-open-lock-');
// Compiled JS (`npm test` builds first): a writer in a process of its own, as `exec` would be.
const WRITER = compiledHelper('store-writer');
const OPEN_LOCK = path.join(ROOT, 'dist/lib/store/open-lock.js');

/** The holder files of writers in `dir`. */
function writerFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('open.w.'))
    .sort();
}

/**
 * An opener in a process of its own (as `replay` would be): it prints `opened`, or the code and
 * message of its error, and exits.
 */
function openerProcess(dir: string, timeoutMs: number): { child: ChildProcess; result: Promise<string> } {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(OPEN_LOCK).href)});
try { m.withOpenLock(${JSON.stringify(dir)}, () => undefined, ${timeoutMs}); console.log('opened'); }
catch (error) { console.log(error.code + ' ' + error.message); }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return { child, result: new Promise((resolve) => child.on('close', () => resolve(out.trim()))) };
}

/** Whether the opener process `child` has asked for the lock (its request file exists). */
function asked(dir: string, child: ChildProcess): boolean {
  try {
    return fs.readFileSync(path.join(dir, 'open.want'), 'latin1').split(' ')[0] === String(child.pid);
  } catch {
    return false;
  }
}

/** A running process that is not this one (a stand-in for a writer with a commit in flight). */
function otherProcess(): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  return { child, exited: new Promise((resolve) => child.on('exit', resolve)) };
}

describe('the open lock keeps opens and commits of different processes apart', () => {
  it('makes an opener wait while a running process holds the lock, report it busy, and take a lock whose holder died', async () => {
    const dir = tmpDir();
    const { child, exited } = otherProcess();
    fs.writeFileSync(path.join(dir, `open.w.${child.pid}.1.0`), '');
    let opened = false;
    expect(() => withOpenLock(dir, () => (opened = true), 50)).toThrow(
      expect.objectContaining({ code: 'MINICODE_E_STORE', message: expect.stringContaining(`process ${child.pid}`) }),
    );
    expect(opened).toBe(false);
    child.kill('SIGKILL');
    await exited;
    expect(withOpenLock(dir, () => (opened = true), 50)).toBe(true);
    // Released after the open, request included.
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('takes a request left empty by a process killed between creating and filling it in, once it is older than a second', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'open.want');
    fs.writeFileSync(file, '');
    expect(() => withOpenLock(dir, () => 'opened', 50)).toThrow(expect.objectContaining({ code: 'MINICODE_E_STORE' }));
    const past = new Date(Date.now() - 5_000);
    fs.utimesSync(file, past, past);
    expect(withOpenLock(dir, () => 'opened', 50)).toBe('opened');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('never makes a process wait for a lock it holds itself (one process shares one environment)', () => {
    const dir = tmpDir();
    const lock = writerLock(dir);
    expect(lock.acquire()).toBe(true);
    expect(withOpenLock(dir, () => 'opened', 50)).toBe('opened');
    lock.done();
    lock.close();
    expect(writerFiles(dir)).toEqual([]);
  });

  it('lets a writer start no new write while another running process waits to open, and keeps the lock until its last commit is done', async () => {
    const dir = tmpDir();
    const lock = writerLock(dir);
    expect(lock.acquire()).toBe(true);
    expect(lock.acquire()).toBe(true);
    const { child, exited } = otherProcess();
    fs.writeFileSync(path.join(dir, 'open.want'), String(child.pid));
    expect(lock.acquire()).toBe(false);
    lock.done();
    expect(writerFiles(dir)).toHaveLength(1);
    lock.done();
    // No commit in flight: the next write gives the lock up to the waiting opener.
    expect(lock.acquire()).toBe(false);
    expect(writerFiles(dir)).toEqual([]);
    child.kill('SIGKILL');
    await exited;
    // A request whose process died is cleared, and the writer goes on.
    expect(lock.acquire()).toBe(true);
    lock.done();
    lock.close();
  });

  it('makes an opener of another process wait until the last of several writers of one process is done, not the first', async () => {
    const dir = tmpDir();
    // Two writers of this process, as two worker threads of a batch would be.
    const first = writerLock(dir, 'thread-1');
    const second = writerLock(dir, 'thread-2');
    expect(first.acquire()).toBe(true);
    expect(second.acquire()).toBe(true);
    expect(writerFiles(dir)).toEqual([`open.w.${process.pid}.thread-1`, `open.w.${process.pid}.thread-2`]);
    first.done();
    first.close();
    expect(writerFiles(dir)).toEqual([`open.w.${process.pid}.thread-2`]);
    // The second writer's commit is still in flight: an opener elsewhere cannot open, and names it.
    const blocked = openerProcess(dir, 300);
    expect(await blocked.result).toBe(
      `MINICODE_E_STORE the store at ${dir} stayed busy for 0 s: process ${process.pid} holds ${path.join(dir, `open.w.${process.pid}.thread-2`)}`,
    );
    const opener = openerProcess(dir, 60_000);
    await waitFor(() => asked(dir, opener.child), { what: 'the opener to ask for the lock' });
    second.done();
    second.close();
    expect(await opener.result).toBe('opened');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('makes every writer of a process drain and start no new write while an opener of another process waits', async () => {
    const dir = tmpDir();
    const first = writerLock(dir, 'thread-1');
    const second = writerLock(dir, 'thread-2');
    expect(first.acquire()).toBe(true);
    expect(second.acquire()).toBe(true);
    const opener = openerProcess(dir, 60_000);
    await waitFor(() => asked(dir, opener.child), { what: 'the opener to ask for the lock' });
    expect(first.acquire()).toBe(false);
    expect(second.acquire()).toBe(false);
    first.done();
    // Idle now: its next attempt gives its file up; the other still has a commit in flight.
    expect(first.acquire()).toBe(false);
    expect(writerFiles(dir)).toEqual([`open.w.${process.pid}.thread-2`]);
    second.done();
    expect(second.acquire()).toBe(false);
    expect(await opener.result).toBe('opened');
    // The request is gone with the opener: both write again.
    expect(first.acquire()).toBe(true);
    expect(second.acquire()).toBe(true);
    first.done();
    second.done();
    first.close();
    second.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('holds the batches a long turn seals while an opener of another process waits, and writes them in order once it is gone', async () => {
    const dir = tmpDir();
    const store = openStore({ dir });
    const { child, exited } = otherProcess();
    fs.writeFileSync(path.join(dir, 'open.want'), String(child.pid));
    // ~20 KB of text per event, 60 events in one turn: several batches sealed at the bound.
    const events = [...syntheticRun({ sessionId: 'sealed', steps: 12 })]
      .filter((e) => EVENT_REGISTRY[e.type].durable)
      .map((e, i) => ({ ...e, payload: { ...e.payload, note: `${i}:`.padEnd(20_000, 'x') } }) as OutputEvent);
    expect(events.length * 20_000).toBeGreaterThan(3 * MAX_BATCH_CHARS);
    for (const e of events) store.append(e);
    await nextTurn();
    // Nothing was put under the lock: the writer holds no file while the opener waits.
    expect(writerFiles(dir)).toEqual([]);
    child.kill('SIGKILL');
    await exited;
    await store.close();
    const reader = openStore({ dir, readOnly: true });
    expect(reader.readSession('sealed')).toEqual(events);
    await reader.close();
  });

  it('takes nothing and leaves no file when a request of another process exists', () => {
    const dir = tmpDir();
    const { child } = otherProcess();
    try {
      // The request exists before the writer looks: it takes nothing and leaves no file.
      fs.writeFileSync(path.join(dir, 'open.want'), String(child.pid));
      const lock = writerLock(dir, 'late');
      expect(lock.acquire()).toBe(false);
      expect(writerFiles(dir)).toEqual([]);
      lock.close();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('clears the files of writers whose process died, and ignores those of its own process', async () => {
    const dir = tmpDir();
    const { child, exited } = otherProcess();
    child.kill('SIGKILL');
    await exited;
    fs.writeFileSync(path.join(dir, `open.w.${child.pid}.1.0`), '');
    fs.writeFileSync(path.join(dir, `open.w.${child.pid}.2.0`), '');
    const own = writerLock(dir, 'another-thread');
    expect(own.acquire()).toBe(true);
    expect(withOpenLock(dir, () => 'opened', 50)).toBe('opened');
    expect(writerFiles(dir)).toEqual([`open.w.${process.pid}.another-thread`]);
    own.done();
    own.close();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('lets openers of different processes take turns on the request', async () => {
    const dir = tmpDir();
    const { child, exited } = otherProcess();
    fs.writeFileSync(path.join(dir, 'open.want'), String(child.pid));
    expect(() => withOpenLock(dir, () => 'opened', 50)).toThrow(
      expect.objectContaining({
        code: 'MINICODE_E_STORE',
        message: expect.stringContaining(`process ${child.pid} is opening it`),
      }),
    );
    child.kill('SIGKILL');
    await exited;
    expect(withOpenLock(dir, () => 'opened', 50)).toBe('opened');
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('keeps every acknowledged event of a writer killed while this process opened and closed its store a hundred times or more', async () => {
    // Unlocked, this loop lost acknowledged events or broke the writer (MDB_BAD_TXN) in about one run in six.
    await openWhileWriting(tmpDir(), 1);
  }, 120_000);

  it('keeps every acknowledged event of three writer threads of one process killed while this process opened and closed the store', async () => {
    await openWhileWriting(tmpDir(), 3);
  }, 120_000);
});

/**
 * Writers in a process of their own (`threads` > 1: one store per worker thread of that process,
 * as a batch has) commit small acknowledged turns while this process opens and closes the store
 * read-only in a loop; then the writer process is killed and every acknowledged event of every
 * session must be stored.
 */
async function openWhileWriting(dir: string, threads: number): Promise<void> {
  const sessions = Array.from({ length: threads }, (_, i) => `opened-while-written-${i}`);
  // Small turns, each acknowledged: many commits for the opens to fall between.
  const child =
    threads === 1
      ? spawn(process.execPath, [WRITER, dir, sessions[0] as string, '100000', '10'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, ['--input-type=module', '-e', threadedWriters(dir, sessions)], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  const acked = new Map<string, number>();
  let acks = 0;
  let stderr = '';
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      // `ack SEQ` from the single writer, `SESSION ack SEQ` from a thread.
      const words = line.split(' ');
      if (words.length === 2 ? words[0] !== 'ack' : words[1] !== 'ack') continue;
      acked.set(words.length === 2 ? (sessions[0] as string) : (words[0] as string), Number(words[words.length - 1]));
      acks++;
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let ended = false;
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      ended = true;
      resolve();
    }),
  );
  await waitFor(() => ended || acked.size === threads, { what: 'a first acknowledged flush of every writer' });
  let opens = 0;
  while (!ended && (acks < 150 * threads || opens < 100)) {
    const reader = openStore({ dir, readOnly: true });
    await reader.close();
    opens++;
    await nextTurn();
  }
  expect(ended, `the writers ended before their kill: ${stderr}`).toBe(false);
  const last = new Map(acked);
  child.kill('SIGKILL');
  await exited;
  const store = openStore({ dir });
  const missing: string[] = [];
  for (const sessionId of sessions) {
    const seqs = new Set(store.readSession(sessionId).map((e) => e.seq));
    const upTo = last.get(sessionId) ?? -1;
    for (const event of syntheticRun({ sessionId, steps: 100_000 })) {
      if (event.seq > upTo) break;
      if (EVENT_REGISTRY[event.type].durable && !seqs.has(event.seq)) missing.push(`${sessionId}#${event.seq}`);
    }
  }
  await store.close();
  expect(missing).toEqual([]);
}

/** A script that runs the store writer once per session, each on a worker thread of one process, prefixing its lines with the session. */
function threadedWriters(dir: string, sessions: string[]): string {
  return `import { Worker } from 'node:worker_threads';
for (const session of ${JSON.stringify(sessions)}) {
  const worker = new Worker(${JSON.stringify(WRITER)}, { argv: [${JSON.stringify(dir)}, session, '100000', '10'], execArgv: [], stdout: true });
  let buffered = '';
  worker.stdout.on('data', (chunk) => {
    const lines = (buffered + chunk).split('\\n');
    buffered = lines.pop();
    for (const line of lines) process.stdout.write(session + ' ' + line + '\\n');
  });
  worker.on('error', (error) => process.stderr.write(session + ': ' + error.message + '\\n'));
}`;
}
