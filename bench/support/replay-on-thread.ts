/**
 * Start the replay server of `cassetteDir` on its own thread (see replay-thread.ts) and wait
 * until it listens: a real provider does not share the measured client's event loop.
 */
import { Worker } from 'node:worker_threads';

/** A replay server running on a worker thread. */
export interface ReplayThread {
  origin: string;
  /** Close the server and wait for its thread to end. */
  close(): Promise<void>;
}

/** Start the server; resolves once it listens. */
export async function startReplayThread(cassetteDir: string): Promise<ReplayThread> {
  const server = new Worker(new URL('./replay-thread.js', import.meta.url), { workerData: { dir: cassetteDir } });
  const { origin } = await new Promise<{ origin: string }>((resolve, reject) => {
    server.once('message', resolve);
    server.once('error', reject);
  });
  return {
    origin,
    async close() {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.postMessage('close');
      await exited;
    },
  };
}
