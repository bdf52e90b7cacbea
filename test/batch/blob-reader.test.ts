import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBlobs } from '../../lib/batch/blob-reader.js';

const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-blobs-'));
afterAll(() => fs.rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

function blobOf(content: Buffer): string {
  const file = path.join(repo, `f-${crypto.randomUUID()}`);
  fs.writeFileSync(file, content);
  return git('hash-object', '-w', file);
}

describe('the blob reader', () => {
  git('init', '-q');
  const common = path.join(repo, '.git');

  it('returns each blob byte for byte, in the order asked, for empty, small, binary and multi-megabyte blobs', async () => {
    const contents = [Buffer.alloc(0), Buffer.from('one line\n'), crypto.randomBytes(70_000), crypto.randomBytes(6 * 1024 * 1024), Buffer.from('no newline at the end')];
    const oids = contents.map(blobOf);
    const read = await readBlobs(common, oids);
    expect(read.map((b) => b.length)).toEqual(contents.map((c) => c.length));
    expect(read.map((b, i) => b.equals(contents[i]!))).toEqual(contents.map(() => true));
  });

  it('answers concurrent requests of one repository each with its own blobs', async () => {
    const a = [crypto.randomBytes(300_000), Buffer.from('a')];
    const b = [Buffer.from('b'), crypto.randomBytes(2 * 1024 * 1024)];
    const [readA, readB] = await Promise.all([readBlobs(common, a.map(blobOf)), readBlobs(common, b.map(blobOf))]);
    expect(readA.map((x, i) => x.equals(a[i]!))).toEqual([true, true]);
    expect(readB.map((x, i) => x.equals(b[i]!))).toEqual([true, true]);
  });

  it('rejects a request for an object the repository lacks, and serves the next one', async () => {
    await expect(readBlobs(common, ['0'.repeat(40)])).rejects.toThrow(/missing/);
    const content = Buffer.from('after a failure');
    expect((await readBlobs(common, [blobOf(content)]))[0]!.equals(content)).toBe(true);
  });
});
