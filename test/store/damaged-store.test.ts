/**
 * A damaged data file (cut short, emptied) is refused before lmdb maps it: `sessions`,
 * `replay` and `exec` answer MINICODE_E_STORE with what to do and exit 1, where lmdb itself
 * would end the process by SIGBUS or SIGSEGV with no output.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/tmp-dirs.js';
import { CASSETTES, cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';
import { compiledHelper } from '../helpers/compiled.js';

const WRITER = compiledHelper('store-writer');
const scratch = scratchDirs('minicode-damaged-store-');

/** A real store holding one session of `steps` tool steps, written by another process. */
function writeStore(dir: string, steps: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, 'stored', String(steps)], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
}

function expectRefused(r: CliResult): void {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toContain('data.mdb');
  expect(r.stderr).toContain('move the store folder aside');
}

describe('a damaged store data file', () => {
  it('cut short: sessions and replay answer MINICODE_E_STORE (exit 1), and exec prints its one failure summary and leaves no open request', async () => {
    const store = path.join(scratch(), 'store');
    await writeStore(store, 400);
    const file = path.join(store, 'data.mdb');
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(200_000);
    fs.truncateSync(file, Math.floor(size / 2));
    for (const args of [['sessions'], ['replay', 'stored']]) {
      const r = await runCli([...args, '--store', store]);
      expectRefused(r);
      expect(r.stderr).toContain('[MINICODE_E_STORE]');
    }

    const exec = await runCli(
      [
        'exec',
        'hello',
        '--json',
        '--provider',
        'replay',
        '--cassette',
        path.join(CASSETTES, 'anthropic-two-turn'),
        '--cwd',
        scratchProject(),
        '--store',
        store,
      ],
      {
        env: cleanEnv(tempDir('minicode-home-')),
      },
    );
    expectRefused(exec);
    const records = exec.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(records.map((r) => r.type)).toEqual(['session.started', 'summary']);
    expect(records[1]).toMatchObject({ ok: false, error: { code: 'MINICODE_E_STORE' } });
    expect(fs.readdirSync(store).sort()).toEqual(['data.mdb', 'lock.mdb']);
  });

  it('emptied: sessions answers MINICODE_E_STORE (exit 1)', async () => {
    const store = path.join(scratch(), 'store');
    await writeStore(store, 5);
    fs.truncateSync(path.join(store, 'data.mdb'), 0);
    const r = await runCli(['sessions', '--store', store]);
    expectRefused(r);
    expect(r.stderr).toContain('[MINICODE_E_STORE]');
  });
});
