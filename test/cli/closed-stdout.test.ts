/**
 * A reader that goes away (`minicode exec --json | head -1`) must not stop the work: the run
 * goes on to its end, is stored, and exits with the code of its outcome. Each test closes the
 * read end of the child's stdout at a point where the child still has output to write, so the
 * child's next write fails with EPIPE: the provider's answer is held by the loopback server (or
 * the input held back on stdin) until our end of the pipe is closed.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { CASSETTE, makeWorkdir, recordIds } from '../batch/helpers.js';
import { cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';
import { CLI, ROOT, runCli } from '../helpers/cli.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A loopback provider that sends the first chunk of each answer, then holds the rest until `open()`. */
async function heldProvider(): Promise<{ flags: string[]; env: NodeJS.ProcessEnv; open: () => void }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const server = await startReplayServer(CASSETTE, {
    order: 'by-turn',
    chunkSize: 64,
    delayMs: 1,
    sleep: () => gate,
    recordRequests: false,
  });
  servers.push(server);
  return {
    flags: [
      '--provider',
      'openai-chat',
      '--model',
      'gpt-4.1-mini',
      '--base-url',
      baseUrlForOrigin('openai-chat', server.origin),
    ],
    env: { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' },
    open,
  };
}

interface Spawned {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once a first line arrived on stdout and our read end of the pipe is closed. */
  closedAfterFirstLine: Promise<void>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

/** Start the CLI; close our end of its stdout as soon as its first line arrives. */
function spawnAndCloseStdout(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const err: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => err.push(b));
  const closedAfterFirstLine = new Promise<void>((resolve) => {
    const onData = (b: Buffer): void => {
      if (!b.includes(10)) return;
      child.stdout.off('data', onData);
      child.stdout.once('close', () => resolve());
      child.stdout.destroy();
    };
    child.stdout.on('data', onData);
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: Buffer.concat(err).toString('utf8') }));
  });
  return { child, closedAfterFirstLine, exited };
}

async function storedSessions(
  env: NodeJS.ProcessEnv,
  store?: string,
): Promise<{ sessionId: string; outcome: string; eventCount: number }[]> {
  const r = await runCli(['sessions', '--json', ...(store ? ['--store', store] : [])], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('a reader that closes stdout early', () => {
  it.each([
    ['exec --json', ['--json']],
    ['exec (linear)', []],
  ])('does not stop %s: the run completes, is stored as completed and exits 0', async (_label, mode) => {
    const provider = await heldProvider();
    const home = tempDir('minicode-home-');
    const env = cleanEnv(home, provider.env);
    const run = spawnAndCloseStdout(
      ['exec', 'Read the README and tell me what it says', ...mode, '--cwd', scratchProject(), ...provider.flags],
      { env },
    );
    run.child.stdin.end();
    await run.closedAfterFirstLine;
    provider.open();
    const { code, stderr } = await run.exited;
    expect(stderr).not.toContain('internal error');
    expect(code, stderr).toBe(0);
    const sessions = await storedSessions(env);
    expect(sessions.map((s) => s.outcome)).toEqual(['completed']);
  });

  it('does not stop batch --json: every id runs, summary.json is written, exit 0', async () => {
    const provider = await heldProvider();
    const w = makeWorkdir(6);
    const run = spawnAndCloseStdout(
      [
        'batch',
        w.input,
        '--json',
        '--concurrency',
        '2',
        '--threads',
        '0',
        '--store',
        w.store,
        '--out',
        w.out,
        ...provider.flags,
      ],
      { cwd: w.dir, env: provider.env },
    );
    run.child.stdin.end();
    await run.closedAfterFirstLine;
    provider.open();
    const { code, stderr } = await run.exited;
    expect(code, stderr).toBe(0);
    expect(recordIds(w.out).results.sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary).toMatchObject({ ok: true, completed: 6, pending: 0 });
  });

  it('does not stop ingest --json --store: the whole input is stored, as with an open stdout', async () => {
    const input = fs.readFileSync(path.join(ROOT, 'test/streams/native/codex-all-items.jsonl'));
    const firstLineEnd = input.indexOf(10) + 1;
    const store = tempDir('minicode-ingest-store-');
    const reference = await runCli(
      ['ingest', '--from', 'codex', '--json', '--store', store, '--session', 'ses_reference', '-'],
      { input },
    );
    expect(reference.code, reference.stderr).toBe(0);

    const run = spawnAndCloseStdout([
      'ingest',
      '--from',
      'codex',
      '--json',
      '--store',
      store,
      '--session',
      'ses_closed',
      '-',
    ]);
    run.child.stdin.write(input.subarray(0, firstLineEnd));
    await run.closedAfterFirstLine;
    run.child.stdin.end(input.subarray(firstLineEnd));
    const { code, stderr } = await run.exited;
    expect(code, stderr).toBe(0);
    const byId = new Map((await storedSessions({}, store)).map((s) => [s.sessionId, s]));
    expect(byId.get('ses_closed')).toMatchObject({
      outcome: byId.get('ses_reference')!.outcome,
      eventCount: byId.get('ses_reference')!.eventCount,
    });
  });

  it.each([['schema'], ['sessions'], ['replay']])(
    'lets %s end quietly with exit 0 and no stack trace',
    async (command) => {
      const store = tempDir('minicode-closed-store-');
      const ingest = await runCli([
        'ingest',
        '--from',
        'codex',
        '--store',
        store,
        '--session',
        'ses_listed',
        path.join(ROOT, 'test/streams/native/codex-all-items.jsonl'),
      ]);
      expect(ingest.code, ingest.stderr).toBe(0);
      const args =
        command === 'schema'
          ? ['schema']
          : command === 'sessions'
            ? ['sessions', '--store', store]
            : ['replay', 'ses_listed', '--linear', '--store', store];
      // Our end closes before the child has started, so its first write meets a closed pipe.
      const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      const err: Buffer[] = [];
      child.stderr.on('data', (b: Buffer) => err.push(b));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(Buffer.concat(err).toString('utf8')).toBe('');
      expect(code).toBe(0);
    },
  );
});
