import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { redisConnection } from '../../lib/batch/queue.js';
import { RETRY_JOURNAL_FILE } from '../../lib/batch/retry-journal.js';
import { cleanEnv } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';
import { startScriptedProvider, type Answer, type ScriptedProvider } from '../helpers/scripted-provider.js';
import { REDIS_URL, readRecords, redisReachable, startCli } from './helpers.js';
import { lineOf } from './scripted-batch.js';

const HAVE_REDIS = await redisReachable();
const providers: ScriptedProvider[] = [];
const queueName = `minicode-test-retries-${process.pid}-${Date.now()}`;
afterAll(async () => {
  await Promise.all(providers.map((p) => p.close()));
  if (!HAVE_REDIS) return;
  const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL) });
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
});

const ok: Answer = { text: 'done', usage: { inputTokens: 10, outputTokens: 2 } };
const unavailable: Answer = { status: 503, code: 'server_error', message: 'The server is overloaded' };

/** A folder with `prompts.jsonl` (prompt `line:<id>`) and a scripted provider that fails `flaky` while `failing()` says so. */
async function setUp(ids: string[], failing: () => boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-retry-history-'));
  const input = path.join(dir, 'prompts.jsonl');
  fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, prompt: `line:${id}` })).join('\n') + '\n');
  const seen = new Map<string, number>();
  const provider = await startScriptedProvider((request) => {
    const id = lineOf(request.body.messages);
    seen.set(id, (seen.get(id) ?? 0) + 1);
    return id === 'flaky' && failing() ? unavailable : ok;
  });
  providers.push(provider);
  const providerFlags = [
    '--provider',
    'openai-chat',
    '--base-url',
    provider.settings.baseUrl,
    '--model',
    'gpt-4.1',
    '--sandbox',
    'off',
  ];
  const env = cleanEnv(path.join(dir, 'home'), {
    OPENAI_API_KEY: 'sk-test-retries-0123456789',
    MINICODE_RETRY_BACKOFF_MS: '0',
  });
  return { dir, input, out: path.join(dir, 'out'), seen, providerFlags, env };
}

/** Resolves once `check` holds, polling every 20 ms (rejects after `ms`). */
function until(check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = async (): Promise<void> => {
      if (await check()) return resolve();
      if (Date.now() - started > ms) return reject(new Error('condition not met in time'));
      setTimeout(() => void poll(), 20);
    };
    void poll();
  });
}

describe('the history of retried runs', () => {
  it('survives a batch killed while a run waits for its retry: the resume runs it once with the earlier try in its record', async () => {
    let failing = true;
    const w = await setUp(['steady', 'flaky'], () => failing);
    const args = [
      'batch',
      w.input,
      ...w.providerFlags,
      '--store',
      path.join(w.dir, 'store'),
      '--out',
      w.out,
      '--threads',
      '0',
    ];
    // A long wait: the batch is killed during it.
    const first = startCli([...args, '--retry-backoff', '60000'], { cwd: w.dir, env: w.env });
    const journal = path.join(w.out, RETRY_JOURNAL_FILE);
    await until(() => fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').includes('"flaky"'));
    first.kill('SIGKILL');
    await first.exited;
    expect(readRecords(w.out).map((r) => r.id)).toEqual(['steady']);

    failing = false;
    const again = await runCli([...args, '--retry-backoff', '10'], { cwd: w.dir, env: w.env, timeoutMs: 90_000 });
    expect(again.code, again.stderr).toBe(0);
    const flaky = readRecords<Record<string, any>>(w.out).find((r) => r.id === 'flaky')!;
    expect(flaky.retries).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ httpStatus: 503 }), waitedMs: 60_000 }),
    ]);
    // The provider's first request and its three retries, then the resumed run's one.
    expect(w.seen.get('flaky')).toBe(5);
    expect(w.seen.get('steady')).toBe(1);
  }, 120_000);

  it('counts the tries kept from before a crash against --retries', async () => {
    const w = await setUp(['flaky'], () => true);
    const args = [
      'batch',
      w.input,
      ...w.providerFlags,
      '--store',
      path.join(w.dir, 'store'),
      '--out',
      w.out,
      '--threads',
      '0',
    ];
    const first = startCli([...args, '--retries', '1', '--retry-backoff', '60000'], { cwd: w.dir, env: w.env });
    const journal = path.join(w.out, RETRY_JOURNAL_FILE);
    await until(() => fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').includes('"flaky"'));
    first.kill('SIGKILL');
    await first.exited;
    const again = await runCli([...args, '--retries', '1', '--retry-backoff', '10'], {
      cwd: w.dir,
      env: w.env,
      timeoutMs: 90_000,
    });
    expect(again.code).toBe(1);
    const [flaky] = readRecords<Record<string, any>>(w.out, 'errors.jsonl');
    // One retry in all: the resumed run was it, and its failure is the record.
    expect(flaky!.retries).toHaveLength(1);
    expect(w.seen.get('flaky')).toBe(8);
  }, 120_000);

  it.skipIf(!HAVE_REDIS)(
    'a queue worker retries a transient failure, and a worker killed during the wait hands its tries on with the job',
    async () => {
      let failing = true;
      const w = await setUp(['steady', 'flaky'], () => failing);
      const queueFlags = ['--queue', REDIS_URL, '--queue-name', queueName];
      const workerArgs = (n: number) => [
        'batch',
        '--worker',
        ...queueFlags,
        ...w.providerFlags,
        '--store',
        path.join(w.dir, `store-${n}`),
      ];
      // A short lock: the killed worker's job goes back to the queue within about a second.
      const env = { ...w.env, MINICODE_BATCH_LOCK_MS: '1500' };
      const a = startCli(workerArgs(1), { cwd: w.dir, env });
      await until(() => a.output().stderr.includes('taking jobs'));
      const producer = startCli(
        ['batch', w.input, ...queueFlags, '--out', w.out, '--retries', '2', '--retry-backoff', '60000'],
        { cwd: w.dir, env: { ...w.env, MINICODE_PROVIDER: '' } },
      );
      const queue = new Queue(queueName, { connection: redisConnection(REDIS_URL) });
      let b: ReturnType<typeof startCli> | undefined;
      try {
        // Worker A waits for the retry once the job holds its first try.
        await until(async () =>
          (await queue.getJobs(['active'])).some((job) => (job?.data?.retried ?? []).length === 1),
        );
        a.kill('SIGKILL');
        await a.exited;
        failing = false;
        b = startCli(workerArgs(2), { cwd: w.dir, env });
        const done = await producer.exited;
        expect(done.code, producer.output().stderr).toBe(0);
        const flaky = readRecords<Record<string, any>>(w.out).find((r) => r.id === 'flaky')!;
        expect(flaky.worker).toContain(`:${b.pid}`);
        expect(flaky.retries).toEqual([
          expect.objectContaining({ error: expect.objectContaining({ httpStatus: 503 }), waitedMs: 60_000 }),
        ]);
        expect(w.seen.get('flaky')).toBe(5);
      } finally {
        a.kill('SIGKILL');
        b?.kill('SIGTERM');
        producer.kill('SIGKILL');
        await b?.exited;
        await queue.close();
      }
    },
    180_000,
  );
});
