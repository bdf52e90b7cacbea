/**
 * The machine's own event-loop lag floor: a worker thread that does nothing but wake on the
 * same 10 ms resolution as the measured loop. Its p99 is what scheduling alone costs a thread
 * of this process while the benchmark runs (on a shared, loaded machine, tens of ms); a loop's
 * lag above it is what the loop's own work adds. Started from the coordinator (main) thread, it
 * runs at the coordinator's priority, not at the batch pool threads' (lib/batch/nice.ts).
 */
import { Worker } from 'node:worker_threads';

const CODE = `
const { parentPort } = require('node:worker_threads');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const os = require('node:os');
const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
parentPort.on('message', () => {
  h.disable();
  let nice;
  try { nice = os.getPriority(0); } catch {}
  parentPort.postMessage({ p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6, nice });
});
parentPort.postMessage('ready');
`;

/** The idle thread's lag figures. */
export interface IdleLag {
  p99Ms: number;
  maxMs: number;
  /** The idle thread's nice value (a thread starts at its creator's: the coordinator's); absent where unreadable. */
  nice?: number;
}

/** Start the idle thread; `stop` ends it and returns its lag since the start. */
export async function startIdleLag(): Promise<{ stop(): Promise<IdleLag> }> {
  const worker = new Worker(CODE, { eval: true });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    async stop() {
      const result = new Promise<IdleLag>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage('stop');
      const lag = await result;
      await worker.terminate();
      return lag;
    },
  };
}
