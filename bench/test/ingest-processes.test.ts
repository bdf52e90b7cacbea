/**
 * The two processes bench/pipeline.ts measures beside `minicode ingest`: the bare Node job
 * (bench/support/ingest-floor.ts) and the peer assembly (bench/support/ingest-peer.ts). Each
 * must do the whole job over the same stream before its CPU means anything: one JSON line out
 * per record, the record carried in it, and the lines kept in an lmdb file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexStreamLines } from '../../test/corpus/codex-stream.js';
import { SCHEMA_NAME } from '../../lib/events/enums.js';
import { ROOT } from '../../test/helpers/cli.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-ingest-processes-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const records = [...codexStreamLines({ records: 400 })];
const file = path.join(scratch, 'codex.jsonl');
// A few reads of 4 KiB, so records cross read boundaries.
fs.writeFileSync(file, `${records.join('\n')}\n`);

function run(
  script: string,
  args: string[],
  readBytes = 4096,
): { lines: string[]; stderr: string; status: number | null } {
  const child = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bench/dist/bench/support', script), file, '--read-bytes', String(readBytes), ...args],
    { encoding: 'utf8' },
  );
  return { lines: child.stdout.split('\n').filter((l) => l !== ''), stderr: child.stderr, status: child.status };
}

const parsed = (lines: string[]): Record<string, unknown>[] =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the processes the ingest command is measured beside', () => {
  it('the bare Node job writes one v1 envelope per record, in order, and keeps them in its lmdb file', () => {
    const store = path.join(scratch, 'bare-store');
    const { lines, stderr, status } = run('ingest-floor.js', ['--store', store]);
    expect(status, stderr).toBe(0);
    expect(lines).toHaveLength(records.length);
    expect(parsed(lines).map((l) => l.seq)).toEqual(records.map((_, i) => i));
    expect(parsed(lines)[3]).toMatchObject({
      schema: SCHEMA_NAME,
      payload: JSON.parse(records[3] as string) as unknown,
    });
    expect(fs.statSync(path.join(store, 'data.mdb')).size).toBeGreaterThan(0);
  });

  it('the bare Node job compresses its values as the store does, unless told to keep them as they are', () => {
    // 64 KiB reads: each value is past the store's 8 KiB compression threshold.
    const compressed = path.join(scratch, 'bare-lz4');
    const plain = path.join(scratch, 'bare-plain');
    const lz4 = run('ingest-floor.js', ['--store', compressed], 65536);
    const kept = run('ingest-floor.js', ['--store', plain, '--uncompressed'], 65536);
    expect([lz4.status, kept.status]).toEqual([0, 0]);
    // Each run's own line: the envelopes carry the run's timestamp.
    expect(fs.readFileSync(path.join(plain, 'data.mdb')).includes(kept.lines[5] as string)).toBe(true);
    expect(fs.readFileSync(path.join(compressed, 'data.mdb')).includes(lz4.lines[5] as string)).toBe(false);
  });

  it('the bare Node job without a store writes the same lines and no store', () => {
    const { lines, status } = run('ingest-floor.js', ['--no-store']);
    expect(status).toBe(0);
    expect(lines).toHaveLength(records.length);
  });

  it('the bare Node job refuses to run without being told where its store goes', () => {
    const { status, stderr } = run('ingest-floor.js', []);
    expect(status).toBe(2);
    expect(stderr).toContain('usage');
  });

  it('the peer assembly as a process writes one envelope per record and stores them', () => {
    const store = path.join(scratch, 'peer-store');
    const { lines, stderr, status } = run('ingest-peer.js', ['--store', store]);
    expect(status, stderr).toBe(0);
    expect(lines).toHaveLength(records.length);
    // Not every line parses: the peer's one regex runs over the serialised line, and its keyword
    // rule takes `tokens":381}}}` at the end of a usage record for a secret (see docs/pipeline.md).
    const heads = lines.map((line, seq) =>
      line.startsWith(`{"schema":"${SCHEMA_NAME}","eventId":"peer-session:${seq}","seq":${seq},`),
    );
    expect(heads.every(Boolean)).toBe(true);
    expect(fs.statSync(path.join(store, 'data.mdb')).size).toBeGreaterThan(0);
  });
});
