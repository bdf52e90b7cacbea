/**
 * A batch on the pool against a provider that takes every request and never answers, interrupted
 * once the given number of requests are held: what the pool-abort tests share.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { promptSettings } from '../../lib/agent/prompt-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createPoolRunners } from '../../lib/batch/pool-runners.js';
import { createProgress } from '../../lib/batch/progress.js';
import type { LineSetup } from '../../lib/batch/run-line.js';
import { configurePool } from '../../lib/control/pool.js';
import { makeWorkdir } from './helpers.js';

export interface HeldBatchOptions {
  /** Lines in the batch (all started at once: the batch's concurrency). */
  runs: number;
  /** Prefix of the line ids. */
  idPrefix: string;
  /** Requests the provider holds before the batch is interrupted. */
  interruptAfter: number;
  /** The pool's shape for this batch. */
  pool: Parameters<typeof configurePool>[0];
}

/** Runs the batch, interrupts it, and returns its summary, the pool's lags, the held requests and the output folder. */
export async function interruptHeldBatch(options: HeldBatchOptions) {
  const held: http.ServerResponse[] = [];
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    held.push(res);
    if (held.length === options.interruptAfter) reached();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const w = makeWorkdir(0);
    const setup: LineSetup = {
      provider: providerSettings({
        format: 'openai-chat',
        model: 'gpt-4.1-mini',
        baseUrl: baseUrlForOrigin('openai-chat', origin),
        apiKey: 'sk-test-held-0123456789',
      }),
      limits: runLimits(),
      environment: toolEnvironment(process.cwd()),
      prompting: promptSettings(),
    };
    configurePool(options.pool);
    const runners = createPoolRunners();
    const abort = new AbortController();
    const lines = Array.from({ length: options.runs }, (_, i) =>
      JSON.stringify({ id: `${options.idPrefix}${i}`, prompt: `Wait for me (${i})` }),
    ).join('\n');
    const batch = runLocalBatch({
      inputPath: options.idPrefix,
      input: parseBatchInput(lines),
      outDir: w.out,
      concurrency: options.runs,
      progress: createProgress({ mode: 'none', write: () => {} }),
      setup: async () => setup,
      baseDir: w.dir,
      cwd: w.dir,
      signal: abort.signal,
      runners,
    });
    await arrived;
    abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' });
    const summary = await batch;
    // Each aborted run came back from its thread as a result (a thread ended under it would have failed the task).
    const lags = await runners.close();
    return { summary, lags, held: held.length, out: w.out };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
