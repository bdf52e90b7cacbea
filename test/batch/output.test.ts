import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openOutputDir } from '../../lib/batch/output.js';
import type { BatchRecord } from '../../lib/batch/records.js';

const result = (id: string): BatchRecord => ({
  kind: 'result',
  id,
  line: 1,
  outcome: 'completed',
  reason: 'completed',
  finalText: 'ok',
});
const failure = (id: string): BatchRecord => ({
  kind: 'error',
  id,
  line: 2,
  outcome: 'failed',
  reason: 'provider',
  error: { category: 'PROVIDER_ERROR', code: 'x', message: 'no' },
});

describe('the batch output directory', () => {
  it('keeps the first record per id (at-least-once delivery is idempotent)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-out-'));
    const out = openOutputDir(dir);
    expect(out.append(result('a'))).toBe(true);
    expect(out.append(result('a'))).toBe(false);
    expect(out.append(failure('a'))).toBe(false);
    await out.close();
    expect(fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'errors.jsonl'), 'utf8')).toBe('');
  });

  it('writes queued records in order, whole lines, by the time flushed() resolves and when it closes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-out-'));
    const out = openOutputDir(dir);
    const ids = Array.from({ length: 500 }, (_, i) => `r${i}`);
    for (const id of ids.slice(0, 250)) out.append(result(id));
    await out.flushed();
    const read = (): string[] =>
      fs
        .readFileSync(path.join(dir, 'results.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(read()).toEqual(ids.slice(0, 250));
    for (const id of ids.slice(250)) out.append(id.endsWith('7') ? failure(id) : result(id));
    await out.close();
    expect(read()).toEqual(ids.filter((id, i) => i < 250 || !id.endsWith('7')));
    expect(fs.readFileSync(path.join(dir, 'errors.jsonl'), 'utf8').trim().split('\n')).toHaveLength(25);
  });

  it('cuts off a torn last line on resume and appends on a fresh line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-out-'));
    fs.writeFileSync(path.join(dir, 'results.jsonl'), `${JSON.stringify(result('a'))}\n{"kind":"result","id":"b","li`);
    const out = openOutputDir(dir);
    expect([...out.resume.finished.keys()]).toEqual(['a']);
    expect(out.resume.repaired).toBe(1);
    out.append(result('b'));
    await out.close();
    const lines = fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['a', 'b']);
  });

  it('moves superseded error records aside so their ids run again', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-out-'));
    const first = openOutputDir(dir);
    first.append(failure('x'));
    first.append(failure('y'));
    first.append(result('z'));
    await first.close();
    const again = openOutputDir(dir);
    expect(again.errorRecords().map((r) => r.id)).toEqual(['x', 'y']);
    expect(again.supersede(new Set(['x']))).toBe(1);
    expect(again.resume.finished.has('x')).toBe(false);
    again.append(result('x'));
    await again.close();
    const ids = (f: string) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids('errors.jsonl')).toEqual(['y']);
    expect(ids('results.jsonl')).toEqual(['z', 'x']);
    expect(ids('superseded.jsonl')).toEqual(['x']);
  });
});
