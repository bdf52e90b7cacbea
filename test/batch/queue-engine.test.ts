import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadQueueEngine, runProducer, runWorker, shownRedisUrl, type QueueEngine } from '../../lib/batch/queue.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createProgress } from '../../lib/batch/progress.js';
import { MinicodeError } from '../../lib/errors.js';
import { ROOT } from '../helpers/cli.js';
import { makeWorkdir } from './helpers.js';

/** A loader that fails exactly as `import('bullmq')` does on an install without optional dependencies. */
const absent = (): Promise<QueueEngine> => import('minicode-test-no-such-package' as string) as Promise<QueueEngine>;

async function codedError(promise: Promise<unknown>): Promise<MinicodeError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MinicodeError);
  return error as MinicodeError;
}

describe('the queue engine (bullmq, ioredis) as optional dependencies', () => {
  it('loads when installed', async () => {
    const engine = await loadQueueEngine();
    expect(typeof engine.Queue).toBe('function');
  });

  it('is MINICODE_E_MISSING_DEPENDENCY with exit 1 and the pinned install command when the import fails', async () => {
    const error = await codedError(loadQueueEngine(absent));
    expect(error.code).toBe('MINICODE_E_MISSING_DEPENDENCY');
    expect(error.exitCode).toBe(1);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>;
    };
    expect(error.action).toContain(
      `npm install --no-save bullmq@${pkg.optionalDependencies.bullmq} ioredis@${pkg.optionalDependencies.ioredis}`,
    );
  });

  it('passes other load failures through unchanged', async () => {
    const boom = new Error('bullmq exploded while loading');
    await expect(loadQueueEngine(() => Promise.reject(boom))).rejects.toBe(boom);
  });

  it('stops a producer with the coded error before it writes any output', async () => {
    const w = makeWorkdir(2);
    const input = parseBatchInput(fs.readFileSync(w.input, 'utf8'));
    const progress = createProgress({ mode: 'plain', write: () => undefined, writeOut: () => undefined });
    const producer = runProducer({
      inputPath: w.input,
      input,
      outDir: w.out,
      retryErrors: false,
      progress,
      queueUrl: 'redis://127.0.0.1:1',
      baseDir: w.dir,
      cwd: w.dir,
      loadEngine: absent,
    });
    expect((await codedError(producer)).code).toBe('MINICODE_E_MISSING_DEPENDENCY');
    expect(fs.existsSync(w.out)).toBe(false);
  });

  it('stops a worker with the coded error before it connects', async () => {
    const worker = runWorker({
      queueUrl: 'redis://127.0.0.1:1',
      concurrency: 1,
      setup: () => Promise.reject(new Error('never called')),
      loadEngine: absent,
    });
    expect((await codedError(worker)).code).toBe('MINICODE_E_MISSING_DEPENDENCY');
  });
});

describe('a Redis URL in a message', () => {
  it('shows no user info: a password, a user name (which may be a token) or both are masked', () => {
    expect(shownRedisUrl('redis://:hunter2@127.0.0.1:6379')).toBe('redis://:***@127.0.0.1:6379');
    expect(shownRedisUrl('redis://tok_0123456789abcdef@redis.example:6380/2')).toBe('redis://***@redis.example:6380/2');
    expect(shownRedisUrl('redis://admin:s3cret-pass@10.0.0.5:6379/1')).toBe('redis://***:***@10.0.0.5:6379/1');
    expect(shownRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(shownRedisUrl('redis//admin:s3cret-pass@host')).toBe('(invalid URL)');
  });
});
