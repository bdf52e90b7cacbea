/**
 * Worker thread: runs batch lines for the coordinator (lib/batch/threads.ts). Each runner has
 * its own event loop, so the runs' HTTP, decoding, scrubbing and reduction are spread over the
 * cores and the coordinator's loop (scheduling, records, progress, signals) stays responsive
 * at high concurrency. All runners open the same LMDB store (lmdb-js shares one environment
 * between the threads of a process). Never throws across the boundary: a failed run is a
 * record.
 */
import { setMaxListeners } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { runLine } from '../lib/batch/run-line.js';
import type { FromRunner, RunnerData, ToRunner } from '../lib/batch/thread-protocol.js';
import { openStore, type EventStore } from '../lib/store/index.js';

const port = parentPort!;
const data = workerData as RunnerData;
const store: EventStore | undefined = data.storeDir ? openStore({ dir: data.storeDir }) : undefined;
// Every run of this thread listens on one signal.
const newAbort = (): AbortController => {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
};
let abort = newAbort();
let active = 0;
let closing = false;
const post = (message: FromRunner): void => port.postMessage(message);

// The runner's own loop carries the runs: its delay is reported, not hidden behind the coordinator's.
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();

async function close(): Promise<void> {
  await store?.close();
  lag.disable();
  post({ type: 'closed', lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6 });
  port.close();
}

port.on('message', (message: ToRunner) => {
  switch (message.type) {
    case 'run': {
      active++;
      const { seq } = message;
      void runLine({
        line: message.line,
        setup: async () => message.setup,
        baseDir: message.baseDir,
        cwd: message.cwd,
        signal: abort.signal,
        ...(store ? { store } : {}),
        onRateLimit: (retryAfterMs) => post(retryAfterMs === undefined ? { type: 'rate-limit', seq } : { type: 'rate-limit', seq, retryAfterMs }),
        onQuota: (text) => post(text === undefined ? { type: 'quota', seq } : { type: 'quota', seq, message: text }),
      }).then((record) => {
        post({ type: 'record', seq, record });
        active--;
        if (closing && active === 0) void close();
      });
      break;
    }
    case 'abort':
      abort.abort({ kind: 'aborted', code: 'MINICODE_E_ABORTED', message: 'interrupted' });
      abort = newAbort();
      break;
    case 'close':
      closing = true;
      if (active === 0) void close();
      break;
  }
});
post({ type: 'ready' });
