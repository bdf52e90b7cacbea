/**
 * `ingest --session ID` takes the id in the store in the same transaction that checks it is
 * free: of two real processes ingesting under one id into one store at the same moment, exactly
 * one stores its stream and the other is refused (MINICODE_E_USAGE, exit 2), every time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../lib/store/index.js';
import { runCli } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';

const ROUNDS = 50;
/** Rounds run at once (each in its own store): bounds the test's wall time on a few cores. */
const AT_ONCE = 10;

const scratch = scratchDirs('minicode-session-claim-');

async function round(dir: string, i: number): Promise<void> {
  const store = path.join(dir, `store-${i}`);
  const inputs = ['alpha', 'beta'].map((word) => {
    const file = path.join(dir, `${word}-${i}.txt`);
    fs.writeFileSync(file, `${word} line one\n`);
    return file;
  });
  const runs = await Promise.all(
    inputs.map((file) =>
      runCli(['ingest', '--from', 'terminal', file, '--store', store, '--session', 'same', '--json'], {
        timeoutMs: 60_000,
      }),
    ),
  );
  const codes = runs.map((r) => r.code).sort();
  expect(codes, runs.map((r) => r.stderr).join('\n')).toEqual([0, 2]);
  const loser = runs.find((r) => r.code === 2)!;
  expect(loser.stdout).toContain('"code":"MINICODE_E_USAGE"');
  // Every stored event is one the winner printed: nothing of the other stream got in.
  const printed = new Set(
    runs
      .find((r) => r.code === 0)!
      .stdout.split('\n')
      .filter((l) => l.includes('"eventId"'))
      .map((l) => JSON.stringify(JSON.parse(l))),
  );
  const read = openStore({ dir: store, readOnly: true });
  try {
    const stored = read.readSession('same');
    expect(stored.length).toBeGreaterThan(1);
    for (const event of stored) expect(printed.has(JSON.stringify(event))).toBe(true);
    expect(read.listSessions().map((s) => [s.sessionId, s.eventCount])).toEqual([['same', stored.length]]);
  } finally {
    await read.close();
  }
}

describe('two ingests racing for one --session id', () => {
  it(`store exactly one stream and refuse the other with exit 2, in each of ${ROUNDS} rounds`, async () => {
    const dir = scratch();
    for (let start = 0; start < ROUNDS; start += AT_ONCE) {
      await Promise.all(Array.from({ length: Math.min(AT_ONCE, ROUNDS - start) }, (_, k) => round(dir, start + k)));
    }
  }, 600_000);
});
