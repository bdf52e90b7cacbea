/**
 * A batch's pool threads run at the batch's nice value (lib/batch/nice.ts), the subprocesses
 * they start inherit it, and the coordinator keeps its own. Real
 * pool threads and verify commands; the thread's value is read where the kernel keeps
 * it, /proc/self/task/<tid>/stat (Linux only: elsewhere the test is skipped, saying so).
 */
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { MAX_NICE } from '../../lib/batch/nice.js';
import { createPoolRunners } from '../../lib/batch/pool-runners.js';
import { createProgress } from '../../lib/batch/progress.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { holdPool } from '../../lib/control/pool.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTE, closePoolFixtures, makeWorkdir, readRecords, startPoolFixture } from './helpers.js';

afterAll(closePoolFixtures);

/** Nice value of every thread of this process, by thread id (field 19 of its stat line). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The command name may hold spaces: the fields count from after its closing parenthesis.
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended while listed.
    }
  }
  return out;
}

const linux = process.platform === 'linux' && fs.existsSync('/proc/self/task');
const base = os.getPriority(0);
if (!linux)
  console.warn('test/batch/nice.test.ts: skipped, nice values per thread are read from /proc/self/task (Linux)');
if (base >= MAX_NICE)
  console.warn(`test/batch/nice.test.ts: skipped, this process already runs at nice ${base}: nothing to raise`);

describe.skipIf(!linux || base >= MAX_NICE)('batch pool threads and their nice value', () => {
  it("run the lines' subprocesses at the coordinator's priority with nice 0, then raised to the batch's value, the coordinator unchanged", async () => {
    const want = Math.min(MAX_NICE, base + 5);
    const w = makeWorkdir(0);
    const { setup, store } = await startPoolFixture(w.store);
    // `nice` (coreutils) prints the nice value it runs at: the verify command's, inherited from the pool thread.
    // Held across both batches: the second can meet the thread the first left at the lower value.
    const release = holdPool();
    const batch = async (
      name: string,
      nice: number,
    ): Promise<{
      records: BatchRecord[];
      threads: Awaited<ReturnType<ReturnType<typeof createPoolRunners>['close']>>;
      seen: Map<number, number>;
    }> => {
      const runners = createPoolRunners({ storeDir: w.store, nice });
      const progress = createProgress({ mode: 'none', write: () => {} });
      const record = progress.record.bind(progress);
      // The kernel's account, read while the pool thread carries the batch (after each record).
      let seen = new Map<number, number>();
      progress.record = (r) => {
        seen = threadNices();
        record(r);
      };
      const lines = [1, 2].map((i) => ({
        id: `${name}-${i}`,
        prompt: `What does README.md say? (${name} ${i})`,
        verify: 'nice',
      }));
      await runLocalBatch({
        inputPath: name,
        input: parseBatchInput(lines.map((l) => JSON.stringify(l)).join('\n')),
        outDir: `${w.out}-${name}`,
        concurrency: 2,
        progress,
        setup: async () => setup,
        store,
        baseDir: w.dir,
        cwd: w.dir,
        runners,
      });
      const threads = await runners.close();
      return { records: readRecords<BatchRecord>(`${w.out}-${name}`, 'results.jsonl'), threads, seen };
    };

    const same = await batch('same', 0);
    expect(same.records).toHaveLength(2);
    for (const r of same.records) expect(r.verify?.outputTail.trim(), JSON.stringify(r.verify)).toBe(String(base));
    expect(same.threads.map((t) => t.nice)).toEqual([base]);

    // The same pool thread, raised.
    const lowered = await batch('lowered', want);
    expect(lowered.records).toHaveLength(2);
    for (const r of lowered.records) expect(r.verify?.outputTail.trim(), JSON.stringify(r.verify)).toBe(String(want));
    expect(lowered.threads.map((t) => t.nice)).toEqual([want]);

    await release();
    // The kernel's own account: one thread of this process (the pool's) at the batch's value, and this (the coordinator's) thread unchanged.
    expect([...lowered.seen.values()].filter((n) => n === want)).toHaveLength(1);
    expect(lowered.seen.get(process.pid)).toBe(base);
    expect(os.getPriority(0)).toBe(base);
  });
});

describe('minicode batch --nice', () => {
  it.each(['20', '-1', '2.5', 'high'])(
    'refuses --nice %s as a usage error (exit 2) before running anything',
    async (value) => {
      const w = makeWorkdir(2);
      const r = await runCli(
        [
          'batch',
          w.input,
          '--nice',
          value,
          '--provider',
          'replay',
          '--cassette',
          CASSETTE,
          '--store',
          w.store,
          '--out',
          w.out,
        ],
        { cwd: w.dir, timeoutMs: 30_000 },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('--nice must be a whole number from 0 to 19');
      expect(fs.existsSync(`${w.out}/results.jsonl`)).toBe(false);
    },
  );
});
