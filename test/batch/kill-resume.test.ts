import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../lib/random.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { CASSETTE, makeWorkdir, recordIds, startCli } from './helpers.js';

const IDS = 250;
const KILLS = 6;
/** Most new records a round waits for: the six rounds together stay far below IDS, so no round can finish the batch before its kill. */
const MAX_NEW_RECORDS = 30;

describe('minicode batch after SIGKILL', () => {
  it('resumes to every id exactly once across results.jsonl and errors.jsonl after six kills at seeded points', async () => {
    const seed = Number(process.env.MINICODE_TEST_SEED ?? 20261130);
    // Seeded, so a failing kill schedule can be replayed.
    const rand = mulberry32(seed);
    const w = makeWorkdir(IDS);
    const args = [
      'batch',
      w.input,
      '--concurrency',
      '8',
      '--provider',
      'replay',
      '--cassette',
      CASSETTE,
      '--store',
      w.store,
      '--out',
      w.out,
    ];
    const kills: { wanted: number; records: number }[] = [];
    for (let i = 0; i < KILLS; i++) {
      const before = recordIds(w.out).all.length;
      // The first kill lands during start-up (as soon as the output directory exists); each later
      // one once 1..MAX_NEW_RECORDS new records are complete, so the kill falls mid-run, often
      // mid-write or mid-commit of the next records.
      const wanted = i === 0 ? 0 : 1 + Math.floor(rand() * MAX_NEW_RECORDS);
      const child = startCli(args, { cwd: w.dir });
      let ended = false;
      void child.exited.then(() => (ended = true));
      await waitFor(() => ended || (i === 0 ? fs.existsSync(w.out) : recordIds(w.out).all.length >= before + wanted), {
        what: `round ${i}: ${wanted} new records (seed ${seed})`,
      });
      child.kill('SIGKILL');
      const exit = await child.exited;
      expect(exit.signal, `round ${i} ended on its own before the kill (seed ${seed}): ${child.output().stderr}`).toBe(
        'SIGKILL',
      );
      const ids = recordIds(w.out).all;
      kills.push({ wanted, records: ids.length });
      // Between kills: never a second record for one id, and never a record lost.
      expect(new Set(ids).size, `seed ${seed}, kills ${JSON.stringify(kills)}`).toBe(ids.length);
      expect(ids.length).toBeGreaterThanOrEqual(before + wanted);
    }
    expect(kills.at(-1)!.records).toBeLessThan(IDS);
    const final = await runCli(args, { cwd: w.dir, timeoutMs: 150_000 });
    expect(final.code, final.stderr).toBe(0);
    const ids = recordIds(w.out);
    expect(ids.errors).toEqual([]);
    expect(ids.all).toHaveLength(IDS);
    expect(new Set(ids.all).size).toBe(IDS);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as {
      completed: number;
      pending: number;
    };
    expect(summary).toMatchObject({ completed: IDS, pending: 0 });
    // Seven start-ups and 250 runs: over 90 s on a 2-core machine at load 17 (the deadline only turns a hang into a failure).
  }, 300_000);
});
