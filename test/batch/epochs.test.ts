import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { CASSETTE, makeWorkdir, readRecords, startCli } from './helpers.js';

const replayFlags = (w: { store: string; out: string }) => [
  '--provider',
  'replay',
  '--cassette',
  CASSETTE,
  '--store',
  w.store,
  '--out',
  w.out,
];

/** Every record's `id#attempt` in results.jsonl and errors.jsonl (complete lines only). */
function runKeys(out: string): string[] {
  const read = (f: string): string[] => {
    const file = path.join(out, f);
    if (!fs.existsSync(file)) return [];
    const text = fs.readFileSync(file, 'utf8');
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const r = JSON.parse(l) as { id: string; attempt: number };
        return `${r.id}#${r.attempt}`;
      });
  };
  return [...read('results.jsonl'), ...read('errors.jsonl')];
}

describe('minicode batch --epochs', () => {
  it('runs each line N times, each attempt its own session and record, a line with its own epochs that many times', async () => {
    const w = makeWorkdir(4);
    fs.appendFileSync(w.input, `${JSON.stringify({ id: 'once', prompt: 'What does README.md say?', epochs: 1 })}\n`);
    const r = await runCli(['batch', w.input, '--epochs', '3', '--concurrency', '4', ...replayFlags(w)], {
      cwd: w.dir,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const records = readRecords<{ id: string; attempt: number; sessionId: string; passed: boolean }>(w.out);
    expect(records).toHaveLength(13);
    expect(records.map((x) => `${x.id}#${x.attempt}`).sort()).toEqual(
      ['once#1', ...['p0', 'p1', 'p2', 'p3'].flatMap((id) => [1, 2, 3].map((a) => `${id}#${a}`))].sort(),
    );
    expect(new Set(records.map((x) => x.sessionId)).size).toBe(13);
    expect(records.every((x) => x.passed === true)).toBe(true);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary).toMatchObject({ ok: true, total: 13, lines: 5, completed: 13, pending: 0 });
    expect(summary.evaluation).toMatchObject({
      epochs: 3,
      runs: 13,
      passed: 13,
      passRate: 1,
      passAtK: { '1': 1, '2': 1, '3': 1 },
      spread: { min: 1, max: 1, stdev: 0 },
    });
    expect(summary.evaluation.lines).toContainEqual({ id: 'once', runs: 1, passed: 1, rate: 1 });
    expect(summary.evaluation.byEpoch.map((e: { runs: number }) => e.runs)).toEqual([5, 4, 4]);
    const again = await runCli(['batch', w.input, '--epochs', '3', '--json', ...replayFlags(w)], {
      cwd: w.dir,
      timeoutMs: 30_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      type: 'batch.summary',
      resumed: 13,
      ranNow: 0,
    });
  }, 120_000);

  it('refuses --epochs 0 with exit 2 and a line whose epochs is not a positive integer as an invalid line', async () => {
    const w = makeWorkdir(1);
    const zero = await runCli(['batch', w.input, '--epochs', '0', ...replayFlags(w)], { cwd: w.dir });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--epochs');
    fs.appendFileSync(w.input, `${JSON.stringify({ id: 'bad', prompt: 'x', epochs: 1.5 })}\n`);
    const strict = await runCli(['batch', w.input, '--strict', ...replayFlags(w)], { cwd: w.dir });
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/:2: line 2: epochs/);
  }, 60_000);

  it('after SIGKILL mid-epoch, resumes to every (id, attempt) exactly once', async () => {
    const w = makeWorkdir(30);
    const args = ['batch', w.input, '--epochs', '3', '--concurrency', '6', ...replayFlags(w)];
    for (const wanted of [12, 40]) {
      const child = startCli(args, { cwd: w.dir });
      let ended = false;
      void child.exited.then(() => (ended = true));
      await waitFor(() => ended || runKeys(w.out).length >= wanted, { what: `${wanted} records` });
      child.kill('SIGKILL');
      expect((await child.exited).signal, child.output().stderr).toBe('SIGKILL');
      const keys = runKeys(w.out);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBeLessThan(90);
    }
    const final = await runCli(args, { cwd: w.dir, timeoutMs: 150_000 });
    expect(final.code, final.stderr).toBe(0);
    const keys = runKeys(w.out);
    expect(keys).toHaveLength(90);
    expect(new Set(keys).size).toBe(90);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary).toMatchObject({ total: 90, completed: 90, pending: 0 });
    expect(summary.evaluation.lines.every((l: { runs: number }) => l.runs === 3)).toBe(true);
  }, 300_000);
});
