/**
 * A local batch on the worker pool starts its lines' subprocesses (here: each line's verify
 * command) from a spawn helper process, not from the pool thread; a helper killed in the middle
 * of a line's command gives that line an error record coded MINICODE_E_SPAWN_HELPER, the batch
 * finishes, and the next line gets a new helper. Real pool threads, helper and subprocesses
 * (the workers and helper are the compiled ones: `npm test` builds first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocalBatch } from '../../lib/batch/batch.js';
import { parseBatchInput } from '../../lib/batch/input.js';
import { createPoolRunners } from '../../lib/batch/pool-runners.js';
import { createProgress } from '../../lib/batch/progress.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { closePoolFixtures, makeWorkdir, readRecords, startPoolFixture } from './helpers.js';

afterAll(closePoolFixtures);

describe('batch lines on the pool and the spawn helper', () => {
  it('run their verify from the helper, and a helper killed mid-command fails only that line, with MINICODE_E_SPAWN_HELPER', async () => {
    const w = makeWorkdir(0);
    const { setup, store } = await startPoolFixture(w.store);
    const runners = createPoolRunners({ storeDir: w.store });
    // One at a time, in order: the first notes who started its verify, the second kills that
    // process (its parent) while running, the third runs after it.
    const lines = [
      { id: 'who', prompt: 'What does README.md say? (1)', verify: 'tr "\\0" " " < /proc/$PPID/cmdline > verify-parent.txt' },
      { id: 'killer', prompt: 'What does README.md say? (2)', verify: 'kill -9 $PPID; sleep 5' },
      { id: 'after', prompt: 'What does README.md say? (3)', verify: 'echo fine' },
    ];
    const summary = await runLocalBatch({
      inputPath: 'spawn-helper',
      input: parseBatchInput(lines.map((l) => JSON.stringify(l)).join('\n')),
      outDir: w.out,
      concurrency: 1,
      progress: createProgress({ mode: 'none', write: () => {} }),
      setup: async () => setup,
      store,
      baseDir: w.dir,
      cwd: w.dir,
      runners,
    });
    await runners.close();

    expect(fs.readFileSync(path.join(w.dir, 'verify-parent.txt'), 'utf8')).toContain('spawn-helper/helper-main.js');
    const results = readRecords<BatchRecord>(w.out, 'results.jsonl');
    const errors = readRecords<BatchRecord>(w.out, 'errors.jsonl');
    expect(results.map((r) => r.id).sort()).toEqual(['after', 'who']);
    expect(results.every((r) => r.verify?.ok === true)).toBe(true);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ id: 'killer', kind: 'error', error: { code: 'MINICODE_E_SPAWN_HELPER' } });
    expect(errors[0]!.verify?.ok).toBe(false);
    expect(errors[0]!.verify?.outputTail).toContain('MINICODE_E_SPAWN_HELPER');
    expect(summary.completed).toBe(2);
  });
});
