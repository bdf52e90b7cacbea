import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../lib/batch/records.js';
import { writeBatchReport } from '../../lib/batch/report/index.js';
import { escapeHtml, patchFileOf } from '../../lib/batch/report/escape.js';
import { loadBatchOutput } from '../../lib/batch/report/load.js';
import { buildRunView } from '../../lib/batch/report/model.js';
import { matchIds } from '../../lib/batch/report/compare.js';
import { intervalFor, throughputSeries } from '../../lib/batch/throughput.js';
import { MinicodeError } from '../../lib/errors.js';

const HOSTILE = `</script><script>alert(1)</script><img src=x onerror=alert(2)>\u202eevil\u0007"'&`;

function record(id: string, line: number, extra: Partial<BatchRecord> = {}): BatchRecord {
  return {
    kind: 'result',
    id,
    line,
    outcome: 'completed',
    reason: 'completed',
    finalText: 'done',
    usage: { inputTokens: 100, outputTokens: 10 },
    costUsd: 0.01,
    timing: { firstTokenMs: line * 10, modelMs: 5, toolMs: 1, queueMs: 0, totalMs: line * 100 },
    ...extra,
  } as BatchRecord;
}

function outDir(records: BatchRecord[], summary?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-report-unit-'));
  const results = records.filter((r) => r.kind === 'result');
  const errors = records.filter((r) => r.kind === 'error');
  fs.writeFileSync(
    path.join(dir, 'results.jsonl'),
    results.map((r) => JSON.stringify(r)).join('\n') + (results.length ? '\n' : ''),
  );
  fs.writeFileSync(
    path.join(dir, 'errors.jsonl'),
    errors.map((r) => JSON.stringify(r)).join('\n') + (errors.length ? '\n' : ''),
  );
  if (summary !== undefined) fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}

describe('batch report escaping', () => {
  it('escapes markup and shows control and bidi characters instead of obeying them', () => {
    const out = escapeHtml(HOSTILE);
    expect(out).not.toMatch(/[<>]/);
    expect(out).toContain('&lt;/script&gt;');
    expect(out).toContain('\\u202e');
    expect(out).toContain('\\u0007');
    expect(out).toContain('&quot;&#39;&amp;');
  });

  it('reads only patches of the shape a batch writes', () => {
    expect(patchFileOf('patches/line%2F0.diff')).toBe('line%2F0.diff');
    for (const bad of [
      'javascript:alert(1)',
      '../../etc/passwd',
      'patches/../x.diff',
      'patches/a/b.diff',
      'https://example.com/patches/a.diff',
      42,
    ])
      expect(patchFileOf(bad)).toBeUndefined();
  });
});

describe('throughput over time', () => {
  it('picks a round interval that fits the batch in at most 60 buckets', () => {
    expect(intervalFor(0)).toBe(1000);
    expect(intervalFor(59_000)).toBe(1000);
    expect(intervalFor(61_000)).toBe(2000);
    expect(intervalFor(3_600_000)).toBe(60_000);
  });

  it('counts completed and failed lines and tokens per interval, keeping empty intervals', () => {
    const series = throughputSeries(
      [
        { atMs: 100, ok: true, tokens: 10 },
        { atMs: 900, ok: false, tokens: 0 },
        { atMs: 3500, ok: true, tokens: 5 },
      ],
      4000,
    );
    expect(series).toEqual({
      intervalMs: 1000,
      buckets: [
        { startMs: 0, completed: 1, failed: 1, tokens: 10 },
        { startMs: 1000, completed: 0, failed: 0, tokens: 0 },
        { startMs: 2000, completed: 0, failed: 0, tokens: 0 },
        { startMs: 3000, completed: 1, failed: 0, tokens: 5 },
      ],
    });
  });
});

describe('batch report model', () => {
  it('computes the figures from the records with the batch tally, and pending from the summary', () => {
    const rs = [
      record('a', 1, { verify: { ok: true, exitCode: 0, durationMs: 5, outputTail: '' } }),
      record('b', 2, { verify: { ok: false, exitCode: 1, durationMs: 5, outputTail: 'x' } }),
      {
        kind: 'error',
        id: 'c',
        line: 3,
        outcome: 'failed',
        reason: 'provider',
        error: { category: 'PROVIDER_ERROR', code: 'MINICODE_E_PROVIDER', message: 'no' },
      } as BatchRecord,
    ];
    const view = buildRunView(loadBatchOutput(outDir(rs, { total: 5 })));
    expect(view).toMatchObject({ total: 5, completed: 2, failed: 1, pending: 2 });
    expect(view.tally.verifyPassed).toBe(1);
    expect(view.tally.verifyFailed).toBe(1);
    // Nearest rank over 100 and 200: p50 = 100, p90 = p99 = 200.
    expect(view.latency.totalMs).toEqual({ count: 2, p50: 100, p90: 200, p99: 200, max: 200 });
    // No summary throughput: from the records' totalMs.
    expect(view.throughput.buckets.reduce((n, b) => n + b.completed, 0)).toBe(2);
  });

  it('skips whole lines that are not records and counts them, and leaves out a line still being written', () => {
    const dir = outDir([record('a', 1)]);
    fs.appendFileSync(path.join(dir, 'results.jsonl'), 'not json\n{"id":7}\n{"kind":"result","id":"tor');
    const loaded = loadBatchOutput(dir);
    expect(loaded.records.map((r) => r.id)).toEqual(['a']);
    expect(loaded.unreadable).toBe(2);
  });

  it('refuses a folder that holds no batch output with a coded error', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-report-empty-'));
    for (const dir of [empty, path.join(empty, 'missing')]) {
      try {
        loadBatchOutput(dir);
        expect.unreachable();
      } catch (error) {
        expect((error as MinicodeError).code).toBe('MINICODE_E_BATCH_REPORT');
      }
    }
  });

  it('matches two runs by id and marks the ids whose outcome or verify result changed', () => {
    const a = buildRunView(loadBatchOutput(outDir([record('x', 1), record('y', 2), record('only-a', 3)])));
    const b = buildRunView(
      loadBatchOutput(
        outDir([
          record('x', 1),
          record('y', 2, { verify: { ok: false, exitCode: 1, durationMs: 1, outputTail: '' } }),
          record('only-b', 4),
        ]),
      ),
    );
    const { rows, match } = matchIds(a, b);
    expect(match).toEqual({ both: 2, onlyA: 1, onlyB: 1, changed: 1 });
    expect(rows.map((r) => r.id)).toEqual(['x', 'y', 'only-a', 'only-b']);
  });

  it('writes a page in which no record text is markup, and nothing points off the machine', async () => {
    const rs = [
      record(HOSTILE, 1, {
        finalText: HOSTILE,
        sessionId: HOSTILE,
        patch: 'javascript:alert(1)',
        metadata: { x: HOSTILE },
      } as Partial<BatchRecord>),
    ];
    const dir = outDir(rs, { total: 1, input: '' });
    const { htmlPath, markdown } = await writeBatchReport({ outDir: dir, now: () => new Date(0) });
    const html = fs.readFileSync(htmlPath, 'utf8');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('javascript:');
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(markdown).toContain('| lines | 1 |');
  });
});
