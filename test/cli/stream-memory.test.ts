import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { anthropicSse, codexJsonl } from '../corpus/long-streams.js';
import { CLI, ROOT } from '../helpers/cli.js';

/**
 * Memory that does not grow with the length of a stream: the real CLI, as a subprocess, over a
 * seeded stream generated here and the same stream four times longer; the longer one may cost
 * at most 1.5x the peak RSS (ru_maxrss, reported by a preloaded hook).
 *
 * V8 flags, and why: by default V8 lets garbage pile up in the old generation until an
 * allocation limit it raises as the run goes, so the peak of a longer run includes more garbage
 * that was never live. `--heap-growing-percent=20` makes each major GC set the next limit at
 * 1.2x what survived, and `--max-semi-space-size=1` keeps the young generation at its smallest;
 * with both, the peak follows what the process keeps, which is what this test is about.
 *
 * Sizes: 1,200 and 4,800 Codex turns (about 5 and 20 MB), large enough that a reducer keeping
 * every tool's detail shows (it cost 1.5x and more at these sizes) and small enough that each
 * run takes seconds. docs/event-model.md ("Memory") lists what stays in memory.
 */
const V8_FLAGS = ['--max-semi-space-size=1', '--heap-growing-percent=20'];
const PEAK_HOOK = path.join(ROOT, 'test/helpers/report-peak-rss.mjs');
const MAX_RATIO = 1.5;

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

function writeStream(file: string, lines: Iterable<string>): void {
  const fd = fs.openSync(file, 'w');
  let pending: string[] = [];
  for (const line of lines) {
    pending.push(line);
    if (pending.length >= 1000) {
      fs.writeSync(fd, pending.join(''));
      pending = [];
    }
  }
  fs.writeSync(fd, pending.join(''));
  fs.closeSync(fd);
}

interface Measured {
  peakKiB: number;
  summary: Record<string, unknown>;
}

/** Run the CLI with stdout to a file (nothing piles up in this process) and read its peak RSS. */
function measure(args: string[], dir: string): Promise<Measured> {
  const outFile = path.join(dir, `out-${Math.random().toString(36).slice(2)}.jsonl`);
  const peakFile = `${outFile}.peak`;
  const out = fs.openSync(outFile, 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...V8_FLAGS, '--import', PEAK_HOOK, CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', MINICODE_TEST_PEAK_RSS_FILE: peakFile },
      stdio: ['ignore', out, 'pipe'],
    });
    const err: Buffer[] = [];
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.closeSync(out);
      if (code !== 0) return reject(new Error(`minicode ${args[0]} exited ${code}: ${Buffer.concat(err).toString()}`));
      const text = fs.readFileSync(outFile, 'utf8');
      const last = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
      resolve({
        peakKiB: Number(fs.readFileSync(peakFile, 'utf8')),
        summary: JSON.parse(last) as Record<string, unknown>,
      });
    });
  });
}

function toolsTotal(summary: Record<string, unknown>): number {
  const tools = summary.tools as Record<string, number>;
  return Object.values(tools).reduce((a, b) => a + b, 0);
}

const TURNS = 1200;

describe('memory over a long stream', () => {
  const dir = tmp('minicode-memory-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const store = path.join(dir, 'store');
  const codexFiles = [1, 4].map((times) => {
    const file = path.join(dir, `codex-${times}.jsonl`);
    writeStream(file, codexJsonl({ turns: TURNS * times, seed: 17 }));
    return file;
  });

  it('ingests a Codex stream four times longer, into the store, for at most 1.5x the peak RSS', async () => {
    const short = await measure(
      ['ingest', '--from', 'codex', codexFiles[0] as string, '--json', '--store', store, '--session', 'ses_mem_1'],
      dir,
    );
    const long = await measure(
      ['ingest', '--from', 'codex', codexFiles[1] as string, '--json', '--store', store, '--session', 'ses_mem_4'],
      dir,
    );
    // The summary still counts every tool of the stream, though most left memory long before.
    expect(short.summary.outcome).toBe('completed');
    expect(long.summary.outcome).toBe('completed');
    expect(toolsTotal(long.summary)).toBeGreaterThan(3.5 * toolsTotal(short.summary));
    console.info(
      `ingest codex: ${TURNS} turns ${(short.peakKiB / 1024).toFixed(0)} MB, ${4 * TURNS} turns ${(long.peakKiB / 1024).toFixed(0)} MB (${(long.peakKiB / short.peakKiB).toFixed(2)}x)`,
    );
    expect(long.peakKiB).toBeLessThanOrEqual(MAX_RATIO * short.peakKiB);
  }, 120_000);

  it('replays the stored session four times longer for at most 1.5x the peak RSS, with the outcome of the ingest', async () => {
    const short = await measure(['replay', 'ses_mem_1', '--json', '--store', store], dir);
    const long = await measure(['replay', 'ses_mem_4', '--json', '--store', store], dir);
    expect(long.summary.outcome).toBe('completed');
    expect(toolsTotal(long.summary)).toBeGreaterThan(3.5 * toolsTotal(short.summary));
    console.info(
      `replay codex: ${(short.peakKiB / 1024).toFixed(0)} MB, 4x ${(long.peakKiB / 1024).toFixed(0)} MB (${(long.peakKiB / short.peakKiB).toFixed(2)}x)`,
    );
    expect(long.peakKiB).toBeLessThanOrEqual(MAX_RATIO * short.peakKiB);
  }, 120_000);

  it('ingests an Anthropic SSE stream of responses four times longer for at most 1.5x the peak RSS', async () => {
    const files = [1, 4].map((times) => {
      const file = path.join(dir, `anthropic-${times}.sse`);
      writeStream(file, anthropicSse({ turns: 3000 * times, seed: 17 }));
      return file;
    });
    const short = await measure(
      ['ingest', '--from', 'anthropic', files[0] as string, '--json', '--store', path.join(dir, 'store-sse')],
      dir,
    );
    const long = await measure(
      ['ingest', '--from', 'anthropic', files[1] as string, '--json', '--store', path.join(dir, 'store-sse')],
      dir,
    );
    expect(long.summary.outcome).toBe(short.summary.outcome);
    console.info(
      `ingest anthropic: ${(short.peakKiB / 1024).toFixed(0)} MB, 4x ${(long.peakKiB / 1024).toFixed(0)} MB (${(long.peakKiB / short.peakKiB).toFixed(2)}x)`,
    );
    expect(long.peakKiB).toBeLessThanOrEqual(MAX_RATIO * short.peakKiB);
  }, 120_000);
});
