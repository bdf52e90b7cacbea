import { describe, expect, it } from 'vitest';
import { createProgress, progressLine, type ProgressSnapshot } from '../../lib/batch/progress.js';
import { costText } from '../../lib/batch/tally.js';
import { eraseRows } from '../../lib/render/width.js';

const snap = (over: Partial<ProgressSnapshot> = {}): ProgressSnapshot => ({
  total: 100,
  completed: 40,
  failed: 2,
  running: 8,
  finishedNow: 42,
  elapsedMs: 10_000,
  tokens: 52_000,
  costUsd: 0.125,
  costKnown: 42,
  costUnknown: 0,
  concurrency: 4,
  maxConcurrency: 8,
  paused: true,
  ...over,
});

describe('batch progress', () => {
  it('says done, failed, running, rate, ETA, tokens, cost and concurrency in one line', () => {
    expect(progressLine(snap())).toBe(
      '42/100 done, 2 failed, 8 running, 4.2 runs/s, ETA 13.8s, 52.0k tokens, $0.1250, concurrency 4/8 (backing off)',
    );
  });

  it('never prints an unknown cost as $0: all unknown, some unknown, all known', () => {
    expect(costText(0, 0, 20)).toBe('cost unknown (20 runs)');
    expect(costText(0.0123, 17, 3)).toBe('≥ $0.0123 (cost unknown for 3 runs)');
    expect(costText(0.0123, 20, 0)).toBe('$0.0123');
    expect(progressLine(snap({ costUsd: 0, costKnown: 0, costUnknown: 42 }))).toContain(', cost unknown (42 runs), ');
    expect(progressLine(snap({ costUsd: 0, costKnown: 0, costUnknown: 42 }))).not.toContain('$0.0000');
  });

  it('after the window narrows, erases every row the previous bar now takes before drawing one line', () => {
    let columns = 120;
    const writes: string[] = [];
    const p = createProgress({
      mode: 'tty',
      write: (s) => writes.push(s),
      clock: () => 0,
      intervalMs: 0,
      columns: () => columns,
    });
    p.update(snap());
    const first = writes[0]!.slice('\r\x1b[2K'.length);
    expect(first.length).toBeGreaterThan(60);
    columns = 40;
    p.update(snap({ completed: 41 }));
    // The wide line now wraps onto ceil(len / 40) rows: each is erased, then a line of at most 39 columns.
    const rows = Math.ceil(first.length / 40);
    expect(writes[1]!.startsWith(eraseRows(rows))).toBe(true);
    expect(writes[1]!.slice(eraseRows(rows).length).length).toBeLessThanOrEqual(39);
  });

  it('redraws one line in place on a TTY, cut to the terminal width, throttled', () => {
    let now = 0;
    const writes: string[] = [];
    const p = createProgress({ mode: 'tty', write: (s) => writes.push(s), clock: () => now, columns: () => 60 });
    p.update(snap());
    now = 50;
    p.update(snap({ completed: 41 }));
    now = 150;
    p.update(snap({ completed: 43 }));
    expect(writes).toHaveLength(2);
    for (const w of writes) {
      expect(w.startsWith('\r\x1b[2K[')).toBe(true);
      expect(w.length - '\r\x1b[2K'.length).toBeLessThanOrEqual(59);
      expect(w).not.toContain('\n');
    }
    p.finish(snap({ completed: 98, running: 0 }), {});
    expect(writes.at(-1)).toBe('\n');
  });

  it('prints plain periodic lines when not a TTY', () => {
    let now = 0;
    const writes: string[] = [];
    const p = createProgress({ mode: 'plain', write: (s) => writes.push(s), clock: () => now });
    p.update(snap());
    now = 1000;
    p.update(snap());
    now = 2500;
    p.update(snap());
    expect(writes).toEqual([`batch: ${progressLine(snap())}\n`, `batch: ${progressLine(snap())}\n`]);
  });

  it('writes JSON lines for programs: records, progress, and the summary last', () => {
    const out: string[] = [];
    const err: string[] = [];
    const p = createProgress({ mode: 'json', write: (s) => err.push(s), writeOut: (s) => out.push(s), clock: () => 0 });
    p.record({
      kind: 'result',
      id: 'a',
      line: 1,
      outcome: 'completed',
      reason: 'completed',
      finalText: 'x',
      sessionId: 'ses_1',
    });
    p.update(snap());
    p.finish(snap(), { ok: true });
    const parsed = out.map((l) => JSON.parse(l) as { type: string });
    expect(parsed.map((l) => l.type)).toEqual(['batch.record', 'batch.progress', 'batch.progress', 'batch.summary']);
    expect(parsed[0]).toEqual({
      type: 'batch.record',
      id: 'a',
      kind: 'result',
      outcome: 'completed',
      reason: 'completed',
      sessionId: 'ses_1',
    });
    expect(err).toEqual([]);
  });
});
