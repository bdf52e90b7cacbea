import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CASSETTE, makeWorkdir, recordIds, startCli } from './helpers.js';

/** Seeded random source (mulberry32), so a failing kill schedule can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('minicode batch after SIGKILL', () => {
  it('resumes to every id exactly once across results.jsonl and errors.jsonl, killed at random points six times', async () => {
    const seed = Number(process.env.MINICODE_TEST_SEED ?? 20261130);
    const rand = random(seed);
    const w = makeWorkdir(250);
    const args = ['batch', w.input, '--concurrency', '8', '--provider', 'replay', '--cassette', CASSETTE, '--store', w.store, '--out', w.out];
    const kills: { afterMs: number; records: number }[] = [];
    for (let i = 0; i < 6; i++) {
      const child = startCli(args, { cwd: w.dir });
      // A random point: during start-up (no record yet), or after a random number of new
      // records plus a random few milliseconds (mid-run, mid-write, mid-commit).
      const before = recordIds(w.out).all.length;
      const wantMore = i === 0 ? 0 : Math.floor(rand() * 30);
      const jitterMs = Math.round(rand() * 60);
      const afterMs = Date.now();
      const poll = setInterval(() => {
        if (wantMore === 0 || recordIds(w.out).all.length >= before + wantMore) {
          clearInterval(poll);
          setTimeout(() => child.kill('SIGKILL'), wantMore === 0 ? 100 + jitterMs * 5 : jitterMs);
        }
      }, 10);
      const exit = await child.exited;
      clearInterval(poll);
      const ids = recordIds(w.out).all;
      kills.push({ afterMs: Date.now() - afterMs, records: ids.length });
      // Between kills: never a second record for one id.
      expect(new Set(ids).size, `seed ${seed}, kills ${JSON.stringify(kills)}`).toBe(ids.length);
      if (exit.signal !== 'SIGKILL') {
        // It finished before the kill: fine, but only if it finished cleanly.
        expect(exit.code, child.output().stderr).toBe(0);
        break;
      }
    }
    const final = await runCli(args, { cwd: w.dir, timeoutMs: 45_000 });
    expect(final.code, final.stderr).toBe(0);
    const ids = recordIds(w.out);
    expect(ids.errors).toEqual([]);
    expect(ids.all).toHaveLength(250);
    expect(new Set(ids.all).size).toBe(250);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as { completed: number; pending: number };
    expect(summary).toMatchObject({ completed: 250, pending: 0 });
    expect(kills.length).toBe(6);
    // Kills landed both before the first record and between records.
    expect(kills.some((k, i) => k.records > (kills[i - 1]?.records ?? 0))).toBe(true);
  }, 60_000);
});
