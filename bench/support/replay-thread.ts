/**
 * A replay server on its own thread, for bench/batch: a real provider does not share the
 * client's event loop, so the benchmark keeps the server's HTTP parsing and writing off the
 * thread it measures. Started with `workerData: { dir }`; posts `{ origin }` once listening and
 * closes on any message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startReplayServer } from '../../lib/replay/server.js';

const { dir } = workerData as { dir: string };
const server = await startReplayServer(dir, { order: 'by-turn', recordRequests: false });
parentPort!.postMessage({ origin: server.origin });
parentPort!.once('message', () => {
  void server.close().then(() => process.exit(0));
});
