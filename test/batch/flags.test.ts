/**
 * The batch flags that decide when a batch stops starting runs (--fail-fast, --batch-budget)
 * and the per-line overrides (provider, model, max_steps, budget), end to end: the compiled
 * CLI against a loopback server replaying the hand-made two-turn cassette.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTE, makeWorkdir, recordIds } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const ENV = { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' };

interface Summary {
  ok: boolean;
  completed: number;
  failed: number;
  pending: number;
  costUsd: number;
  stoppedBy?: string;
}

function summaryOf(out: string): Summary {
  return JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as Summary;
}

interface RecordLine {
  id: string;
  outcome: string;
  reason: string;
  costUsd?: number;
  error?: { category: string; code: string; message: string };
}

function records(out: string): Map<string, RecordLine> {
  const map = new Map<string, RecordLine>();
  for (const file of ['results.jsonl', 'errors.jsonl']) {
    const full = path.join(out, file);
    if (!fs.existsSync(full)) continue;
    for (const line of fs.readFileSync(full, 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as RecordLine;
      map.set(r.id, r);
    }
  }
  return map;
}

/** An OpenAI-compatible loopback server: the cassette, except a 429 insufficient_quota for prompts containing QUOTA. */
async function quotaServer(): Promise<ReplayServer> {
  const server = await startReplayServer(CASSETTE, {
    order: 'by-turn',
    intercept: ({ body }) =>
      body.includes('QUOTA')
        ? {
            status: 429,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(
              '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}',
            ),
            scripted: true,
          }
        : undefined,
  });
  servers.push(server);
  return server;
}

const flagsFor = (server: ReplayServer, w: { store: string; out: string }) => [
  '--provider',
  'openai-chat',
  '--model',
  'gpt-4.1-mini',
  '--base-url',
  baseUrlForOrigin('openai-chat', server.origin),
  '--store',
  w.store,
  '--out',
  w.out,
  '--threads',
  '0',
];

describe('minicode batch stopping rules', () => {
  it('stops starting runs after an exhausted usage quota with --fail-fast, and a later run resumes the rest', async () => {
    const server = await quotaServer();
    const w = makeWorkdir(3);
    fs.appendFileSync(
      w.input,
      '{"id":"q","prompt":"QUOTA please"}\n' +
        [0, 1, 2, 3]
          .map((i) => JSON.stringify({ id: `r${i}`, prompt: `What does README.md say? (r${i})` }))
          .join('\n') +
        '\n',
    );
    const flags = flagsFor(server, w);
    const first = await runCli(['batch', w.input, '--concurrency', '1', '--fail-fast', ...flags], {
      cwd: w.dir,
      env: ENV,
      timeoutMs: 30_000,
    });
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain('(stopped: usage-quota)');
    const summary = summaryOf(w.out);
    expect(summary).toMatchObject({ ok: false, completed: 3, failed: 1, pending: 4, stoppedBy: 'usage-quota' });
    const byId = records(w.out);
    expect([...byId.keys()].sort()).toEqual(['p0', 'p1', 'p2', 'q']);
    expect(byId.get('q')).toMatchObject({ outcome: 'failed', error: { category: 'PROVIDER_ERROR' } });
    expect(byId.get('q')?.error?.message).toMatch(/quota/i);
    // An exhausted quota does not clear by waiting: asked once, not retried.
    expect(server.requests.filter((q) => q.body.includes('QUOTA'))).toHaveLength(1);

    // Without --fail-fast the same command resumes: only the four runs never started are run now.
    const again = await runCli(['batch', w.input, '--concurrency', '1', ...flags], {
      cwd: w.dir,
      env: ENV,
      timeoutMs: 30_000,
    });
    expect(again.code, again.stderr).toBe(1); // q is still a failure on record
    expect(summaryOf(w.out)).toMatchObject({ completed: 7, failed: 1, pending: 0 });
    expect(summaryOf(w.out).stoppedBy).toBeUndefined();
    const ids = recordIds(w.out);
    expect(ids.all.slice().sort()).toEqual(['p0', 'p1', 'p2', 'q', 'r0', 'r1', 'r2', 'r3']);
    expect(new Set(ids.all).size).toBe(ids.all.length);
  });

  it('without --fail-fast an exhausted quota fails that line only and the batch goes on', async () => {
    const server = await quotaServer();
    const w = makeWorkdir(4);
    fs.appendFileSync(w.input, '{"id":"q","prompt":"QUOTA please"}\n');
    const r = await runCli(['batch', w.input, '--concurrency', '2', ...flagsFor(server, w)], {
      cwd: w.dir,
      env: ENV,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(summaryOf(w.out)).toMatchObject({ completed: 4, failed: 1, pending: 0 });
  });

  it('stops starting runs once the summed cost passes --batch-budget', async () => {
    const server = await quotaServer();
    const w = makeWorkdir(6);
    const flags = flagsFor(server, w);
    // Learn what one run of this cassette costs, then allow a bit more than two of them.
    const probe = makeWorkdir(1, 'probe');
    const one = await runCli(['batch', probe.input, ...flagsFor(server, probe)], {
      cwd: probe.dir,
      env: ENV,
      timeoutMs: 30_000,
    });
    expect(one.code, one.stderr).toBe(0);
    const perRun = summaryOf(probe.out).costUsd;
    expect(perRun).toBeGreaterThan(0);
    const r = await runCli(
      ['batch', w.input, '--concurrency', '1', '--batch-budget', String(perRun * 2.5), '--json', ...flags],
      { cwd: w.dir, env: ENV, timeoutMs: 30_000 },
    );
    const summary = summaryOf(w.out);
    // Runs 1 and 2 stay under the budget, run 3 passes it, nothing more is started.
    expect(summary).toMatchObject({ ok: false, completed: 3, failed: 0, pending: 3, stoppedBy: 'batch-budget' });
    expect(summary.costUsd).toBeGreaterThan(perRun * 2.5);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Summary & { type: string };
    expect(last).toMatchObject({ type: 'batch.summary', stoppedBy: 'batch-budget', pending: 3 });
    expect(r.code).toBe(1);
  });

  it('refuses a negative or non-numeric --batch-budget with exit 2 and one line', async () => {
    const w = makeWorkdir(1);
    for (const bad of ['-1', 'lots']) {
      const r = await runCli(
        [
          'batch',
          w.input,
          '--batch-budget',
          bad,
          '--provider',
          'replay',
          '--cassette',
          CASSETTE,
          '--out',
          w.out,
          '--store',
          w.store,
        ],
        { cwd: w.dir },
      );
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/--batch-budget/);
      expect(fs.existsSync(path.join(w.out, 'results.jsonl'))).toBe(false);
    }
  });
});

describe('minicode batch per-line overrides', () => {
  it("applies a line's model, max_steps, budget and provider to that line only", async () => {
    const server = await quotaServer();
    const w = makeWorkdir(1);
    fs.appendFileSync(
      w.input,
      [
        { id: 'model', prompt: 'What does README.md say? (model)', model: 'gpt-4.1' },
        { id: 'steps', prompt: 'What does README.md say? (steps)', max_steps: 1 },
        { id: 'budget', prompt: 'What does README.md say? (budget)', budget: 0.0000001 },
        { id: 'provider', prompt: 'What does README.md say? (provider)', provider: 'no-such-provider' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const r = await runCli(['batch', w.input, '--concurrency', '1', ...flagsFor(server, w)], {
      cwd: w.dir,
      env: ENV,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(1);
    const byId = records(w.out);
    expect(byId.get('p0')).toMatchObject({ outcome: 'completed', reason: 'completed' });
    expect(byId.get('model')).toMatchObject({ outcome: 'completed', reason: 'completed' });
    expect(byId.get('steps')).toMatchObject({ reason: 'max_steps_exceeded' });
    expect(byId.get('budget')).toMatchObject({ reason: 'budget_exceeded' });
    expect(byId.get('provider')?.outcome).toBe('failed');
    expect(byId.get('provider')?.error?.message).toContain('no-such-provider');
    // The model override reached the wire for its own line only.
    const models = server.requests.map((q) => ({
      model: (JSON.parse(q.body) as { model: string }).model,
      body: q.body,
    }));
    expect(models.filter((m) => m.body.includes('(model)')).every((m) => m.model === 'gpt-4.1')).toBe(true);
    expect(models.filter((m) => m.body.includes('(model)')).length).toBeGreaterThan(0);
    expect(models.filter((m) => !m.body.includes('(model)')).every((m) => m.model === 'gpt-4.1-mini')).toBe(true);
    expect(summaryOf(w.out)).toMatchObject({ completed: 2, failed: 3, pending: 0 });
  });
});
