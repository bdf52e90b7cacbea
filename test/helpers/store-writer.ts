/**
 * Child process of the store crash test (test/store/crash.test.ts): writes a long synthetic run
 * into a store in small batches and, after each `flushed()` resolves, prints the highest durable
 * sequence number acknowledged so far (`ack <seq>`). The parent kills it with SIGKILL at a
 * random moment and checks that every acknowledged event survived.
 *
 * Usage: node <compiledHelper('store-writer')> DIR SESSION_ID STEPS [BATCH]
 */
import { EVENT_REGISTRY } from '../../lib/events/index.js';
import { openStore } from '../../lib/store/index.js';
import { syntheticRun } from '../corpus/synthetic-run.js';

async function main(): Promise<void> {
  const [dir, sessionId, stepsArg, batchArg] = process.argv.slice(2);
  if (!dir || !sessionId || !stepsArg) throw new Error('usage: store-writer DIR SESSION_ID STEPS [BATCH]');
  const batch = Number(batchArg ?? 50);
  const store = openStore({ dir });
  let inBatch = 0;
  let lastDurable = -1;
  process.stdout.write('ready\n');
  for (const event of syntheticRun({ sessionId, steps: Number(stepsArg) })) {
    store.append(event);
    if (EVENT_REGISTRY[event.type].durable) lastDurable = event.seq;
    if (++inBatch >= batch) {
      inBatch = 0;
      await store.flushed();
      process.stdout.write(`ack ${lastDurable}\n`);
    }
  }
  await store.flushed();
  process.stdout.write(`ack ${lastDurable}\n`);
  await store.close();
  process.stdout.write('done\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`store-writer: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
