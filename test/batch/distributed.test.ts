import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { redisConnection } from '../../lib/batch/queue.js';
import { CASSETTE, REDIS_URL, makeWorkdir, recordIds, redisReachable, startCli } from './helpers.js';
import { runCli } from '../helpers/cli.js';

const HAVE_REDIS = await redisReachable();
if (!HAVE_REDIS)
  console.warn(
    `skipping distributed batch tests: no Redis answers at ${REDIS_URL} (set MINICODE_TEST_REDIS_URL or start redis-server --port 6390)`,
  );

const queueName = `minicode-test-${process.pid}-${Date.now()}`;
afterAll(async () => {
  if (!HAVE_REDIS) return;
  for (const name of [queueName, `${queueName}-lock`]) {
    const queue = new Queue(name, { connection: redisConnection(REDIS_URL) });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
});

// Several CLI processes and Redis per test: a loaded machine needs longer than the default deadline.
describe.skipIf(!HAVE_REDIS)('minicode batch through BullMQ on Redis', { timeout: 180_000 }, () => {
  it('two workers and a producer finish a batch with every id exactly once, even when one worker is SIGKILLed mid-run', async () => {
    const w = makeWorkdir(60);
    const queueFlags = ['--queue', REDIS_URL, '--queue-name', queueName];
    const workerArgs = (n: number) => [
      'batch',
      '--worker',
      ...queueFlags,
      '--concurrency',
      '3',
      '--provider',
      'replay',
      '--cassette',
      CASSETTE,
      '--store',
      path.join(w.dir, `store-${n}`),
    ];
    // A short lock: the killed worker's jobs go back to the queue within about a second.
    const env = { MINICODE_BATCH_LOCK_MS: '1500' };
    const a = startCli(workerArgs(1), { cwd: w.dir, env });
    const b = startCli(workerArgs(2), { cwd: w.dir, env });
    const ready = (c: typeof a) =>
      new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (c.output().stderr.includes('taking jobs')) {
            clearInterval(poll);
            resolve();
          }
        }, 20);
      });
    try {
      await Promise.all([ready(a), ready(b)]);
      // The producer needs no provider: it runs nothing itself.
      const producer = startCli(['batch', w.input, ...queueFlags, '--out', w.out, '--json'], {
        cwd: w.dir,
        env: { MINICODE_PROVIDER: '' },
      });
      // Kill worker A once it has finished a few jobs (it is running more then: concurrency 3, 60 jobs).
      const byA = (): number => {
        const file = path.join(w.out, 'results.jsonl');
        return fs.existsSync(file)
          ? fs
              .readFileSync(file, 'utf8')
              .split('\n')
              .filter((l) => l.includes(`:${a.pid}"`)).length
          : 0;
      };
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (byA() >= 3) {
            clearInterval(poll);
            a.kill('SIGKILL');
            resolve();
          }
        }, 10);
      });
      const done = await producer.exited;
      expect(done.code, producer.output().stderr).toBe(0);
      const ids = recordIds(w.out);
      expect(ids.errors).toEqual([]);
      expect(ids.all).toHaveLength(60);
      expect(new Set(ids.all).size).toBe(60);
      const records = fs
        .readFileSync(path.join(w.out, 'results.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { worker: string });
      expect(new Set(records.map((r) => r.worker.split(':').at(-1))).size).toBe(2);
      const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as Record<string, unknown>;
      expect(summary).toMatchObject({ ok: true, mode: 'queue', completed: 60, pending: 0 });
      expect(producer.output().stdout.trim().split('\n').at(-1)).toContain('"type":"batch.summary"');

      // Worker A died holding jobs: they stalled and were run again by worker B.
      const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL) });
      const completed = await queue.getCompleted(0, -1);
      await queue.close();
      expect(completed.length).toBe(60);
      expect(
        completed.filter((j) => j.stalledCounter > 0).length,
        'jobs recovered from the killed worker',
      ).toBeGreaterThan(0);

      // Producing again is idempotent: the jobs exist, the records are there, nothing runs twice.
      const again = startCli(['batch', w.input, ...queueFlags, '--out', w.out, '--json'], { cwd: w.dir });
      expect((await again.exited).code).toBe(0);
      expect(recordIds(w.out).all).toHaveLength(60);
    } finally {
      a.kill('SIGKILL');
      b.kill('SIGTERM');
      await b.exited;
    }
  }, 45_000);

  it('refuses a second producer on the same --out with MINICODE_E_BATCH_LOCKED (exit 75) while the first collects', async () => {
    const w = makeWorkdir(3);
    // No worker takes this queue's jobs: the first producer waits for records until interrupted.
    const queueFlags = ['--queue', REDIS_URL, '--queue-name', `${queueName}-lock`];
    const first = startCli(['batch', w.input, ...queueFlags, '--out', w.out], {
      cwd: w.dir,
      env: { MINICODE_PROVIDER: '' },
    });
    try {
      // The lock appears, or the first producer ended before taking it (a failure to show, not to wait on).
      let poll: NodeJS.Timeout | undefined;
      const locked = await Promise.race([
        new Promise<true>((resolve) => {
          poll = setInterval(() => {
            if (fs.existsSync(path.join(w.out, 'batch.lock'))) resolve(true);
          }, 20);
        }),
        first.exited.then(() => false as const),
      ]).finally(() => clearInterval(poll));
      expect(locked, `the first producer exited before locking: ${first.output().stderr}`).toBe(true);
      const second = startCli(['batch', w.input, ...queueFlags, '--out', w.out, '--json'], {
        cwd: w.dir,
        env: { MINICODE_PROVIDER: '' },
      });
      expect((await second.exited).code, second.output().stderr).toBe(75);
      expect(JSON.parse(second.output().stdout.trim())).toMatchObject({
        type: 'batch.summary',
        ok: false,
        error: { code: 'MINICODE_E_BATCH_LOCKED' },
      });
      first.kill('SIGINT');
      expect((await first.exited).code).toBe(130);
      expect(fs.existsSync(path.join(w.out, 'batch.lock'))).toBe(false);
    } finally {
      first.kill('SIGKILL');
    }
  });
});

/** A loopback port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('minicode batch --queue with a Redis that cannot be reached', { timeout: 60_000 }, () => {
  it('ends the producer and a worker with MINICODE_E_NETWORK (exit 1), one message each, the password masked and no stack traces', async () => {
    const w = makeWorkdir(1);
    const url = `redis://:hunter2@127.0.0.1:${await closedPort()}`;
    const flags = ['--queue', url, '--provider', 'replay', '--cassette', CASSETTE, '--store', w.store];
    const [producer, worker] = await Promise.all([
      runCli(['batch', w.input, '--json', '--out', w.out, ...flags], { cwd: w.dir }),
      runCli(['batch', '--worker', ...flags], { cwd: w.dir }),
    ]);
    for (const r of [producer, worker]) {
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot reach Redis at redis://:***@127.0.0.1:');
      expect(r.stderr).toContain('(ECONNREFUSED)');
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout + r.stderr).not.toContain('hunter2');
    }
    expect(JSON.parse(producer.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_NETWORK' },
    });
  });
});
