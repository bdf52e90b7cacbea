import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { codexStreamLines } from '../corpus/codex-stream.js';
import { compiledHelper } from '../helpers/compiled.js';

const WRITER = compiledHelper('store-writer');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-cli-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeRun(sessionId: string, steps: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, dir, sessionId, String(steps)], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`))));
  });
}

describe('minicode sessions and replay', () => {
  it('lists stored sessions as JSON lines and as a table', async () => {
    await writeRun('cli-a', 5);
    const json = await runCli(['sessions', '--json', '--store', dir]);
    expect(json.code).toBe(0);
    const rows = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toContainEqual(expect.objectContaining({ sessionId: 'cli-a', outcome: 'completed', origin: 'exec' }));
    const table = await runCli(['sessions', '--store', dir]);
    expect(table.stdout).toMatch(/^SESSION\s+STARTED\s+OUTCOME/);
    expect(table.stdout).toContain('cli-a');
  });

  it('replays a session as stored envelopes followed by one summary line', async () => {
    const r = await runCli(['replay', 'cli-a', '--json', '--store', dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.pop();
    expect(summary).toMatchObject({
      schema: 'minicode.output.v1',
      type: 'summary',
      ok: true,
      outcome: 'completed',
      tools: { completed: 5 },
    });
    expect(lines.every((e) => e.schema === 'minicode.output.v1' && e.sessionId === 'cli-a')).toBe(true);
    expect(lines.some((e) => e.type === 'assistant.message.delta')).toBe(false);
    const text = await runCli(['replay', 'cli-a', '--linear', '--store', dir]);
    expect(text.stdout).toMatch(/✓ completed session cli-a/);
  });

  it('exits 1 with MINICODE_E_SESSION_NOT_FOUND for an unknown session', async () => {
    const r = await runCli(['replay', 'nope', '--json', '--store', dir]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: 'summary',
      ok: false,
      error: { code: 'MINICODE_E_SESSION_NOT_FOUND' },
    });
    expect(r.stderr).toContain('nope');
  });

  it('replays a session from a second process while the writer is still writing', async () => {
    const child = spawn(process.execPath, [WRITER, dir, 'cli-live', '100000', '20'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      await new Promise<void>((resolve) => {
        let acks = 0;
        child.stdout.on('data', (b: Buffer) => {
          acks += (b.toString().match(/ack /g) ?? []).length;
          if (acks >= 5) resolve();
        });
      });
      const r = await runCli(['replay', 'cli-live', '--json', '--store', dir]);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout.trim().split('\n').pop() as string);
      // The writer is alive: the run is unfinished, not interrupted.
      expect(summary).toMatchObject({ type: 'summary', outcome: 'running' });
      expect(summary.durableEvents).toBeGreaterThan(20);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.on('close', r));
    const after = await runCli(['replay', 'cli-live', '--json', '--store', dir]);
    expect(JSON.parse(after.stdout.trim().split('\n').pop() as string)).toMatchObject({
      outcome: 'interrupted',
      ok: false,
    });
  });
});

describe('replay of an ingested stream', () => {
  it('prints every stored event byte for byte as the live ingest --json printed it', async () => {
    const input = path.join(dir, 'long.jsonl');
    // Long enough for many store batches, with text a JSON line must escape.
    const lines = [...codexStreamLines({ records: 1500, seed: 7 })];
    lines.splice(
      5,
      0,
      JSON.stringify({
        type: 'item.completed',
        item: { id: 'odd', type: 'agent_message', text: 'line\u2028sep \u0085 \u202e bidi "q" \\ é 😀' },
      }),
    );
    fs.writeFileSync(input, lines.join('\n') + '\n');
    const live = await runCli([
      'ingest',
      '--from',
      'codex',
      input,
      '--json',
      '--store',
      dir,
      '--session',
      'ingest-bytes',
    ]);
    expect(live.code).toBe(0);
    const replayed = await runCli(['replay', 'ingest-bytes', '--json', '--store', dir]);
    expect(replayed.code).toBe(0);
    const stored = replayed.stdout.trimEnd().split('\n').slice(0, -1);
    expect(stored.length).toBeGreaterThan(1500);
    expect(stored.some((l) => l.includes('😀'))).toBe(true);
    const seqs = new Set(stored.map((l) => (JSON.parse(l) as { seq: number }).seq));
    const liveStored = live.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"schema"') && seqs.has((JSON.parse(l) as { seq: number }).seq));
    expect(stored).toEqual(liveStored);
  });

  it.each([
    ['an existing empty folder', true],
    ['a folder not made yet', false],
  ])('keeps a session in %s whose name has a dot in it (lmdb would take it for a file)', async (_what, made) => {
    const input = path.join(dir, 'dotted.jsonl');
    fs.writeFileSync(input, [...codexStreamLines({ records: 40, seed: 3 })].join('\n') + '\n');
    const store = path.join(dir, made ? 'runs.2026.12' : 'later.v2', 'store.d');
    if (made) fs.mkdirSync(store, { recursive: true });
    const ingest = await runCli(['ingest', '--from', 'codex', input, '--store', store, '--session', 'dotted']);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(fs.statSync(path.join(store, 'data.mdb')).isFile()).toBe(true);
    const listed = await runCli(['sessions', '--json', '--store', store]);
    expect(listed.stdout).toContain('"sessionId":"dotted"');
  });
});
