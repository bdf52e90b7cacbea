import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { rateLimitStorm } from '../corpus/scripted-exchanges.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { CASSETTE, makeWorkdir, recordIds } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const replayFlags = (w: { store: string; out: string }) => [
  '--provider',
  'replay',
  '--cassette',
  CASSETTE,
  '--store',
  w.store,
  '--out',
  w.out,
];

describe('minicode batch on the replay provider', () => {
  it('runs 50 prompts at concurrency 8 with every id exactly once, records and summary complete', async () => {
    const w = makeWorkdir(50);
    const r = await runCli(['batch', w.input, '--concurrency', '8', ...replayFlags(w)], {
      cwd: w.dir,
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const ids = recordIds(w.out);
    expect(ids.errors).toEqual([]);
    expect(ids.results.slice().sort()).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`).sort());
    const first = JSON.parse(fs.readFileSync(path.join(w.out, 'results.jsonl'), 'utf8').split('\n')[0]!) as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({
      kind: 'result',
      outcome: 'completed',
      reason: 'completed',
      sessionId: expect.stringMatching(/^ses_/),
      metadata: { n: expect.any(Number) },
    });
    expect(first.finalText).toContain('README');
    expect(first.usage).toMatchObject({ inputTokens: expect.any(Number) });
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary).toMatchObject({
      ok: true,
      total: 50,
      completed: 50,
      failed: 0,
      pending: 0,
      ranNow: 50,
      backoffs: { maxConcurrency: 8 },
    });
    // Re-running resumes: nothing left to run.
    const again = await runCli(['batch', w.input, '--json', ...replayFlags(w)], { cwd: w.dir });
    expect(again.code).toBe(0);
    const last = JSON.parse(again.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'batch.summary', ok: true, resumed: 50, ranNow: 0 });
    expect(recordIds(w.out).all).toHaveLength(50);
  });

  it('reports bad lines with their numbers and skips them; --strict fails with exit 2', async () => {
    const w = makeWorkdir(2);
    fs.appendFileSync(w.input, 'oops\n{"id":"q"}\n');
    const r = await runCli(['batch', w.input, ...replayFlags(w)], { cwd: w.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/prompts\.jsonl:3: .*MINICODE_E_BATCH_LINE_JSON/);
    expect(r.stderr).toMatch(/prompts\.jsonl:4: .*MINICODE_E_BATCH_LINE_SHAPE/);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as {
      invalidLines: { count: number; lines: { line: number }[] };
    };
    expect(summary.invalidLines.lines.map((l) => l.line)).toEqual([3, 4]);
    const strict = await runCli(['batch', w.input, '--strict', ...replayFlags({ ...w, out: `${w.out}-strict` })], {
      cwd: w.dir,
    });
    expect(strict.code).toBe(2);
    expect(fs.existsSync(`${w.out}-strict`)).toBe(false);
  });

  it.each([
    ['on the main thread', '0'],
    ['on a pool thread', '1'],
  ])(
    'records a line whose cwd is missing or a file as an error (exit 1), %s, with no request to the model',
    async (_where, threads) => {
      const w = makeWorkdir(1);
      fs.appendFileSync(
        w.input,
        '{"id":"gone","prompt":"Read README.md","cwd":"missing"}\n{"id":"file","prompt":"Read README.md","cwd":"README.md"}\n',
      );
      const server = await startReplayServer(CASSETTE, { order: 'by-turn' });
      servers.push(server);
      const flags = [
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
      ];
      const r = await runCli(['batch', w.input, '--threads', threads, ...flags], {
        cwd: w.dir,
        env: { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' },
      });
      expect(r.code, r.stderr).toBe(1);
      const ids = recordIds(w.out);
      expect(ids.results).toEqual(['p0']);
      expect(ids.errors.slice().sort()).toEqual(['file', 'gone']);
      const errors = fs
        .readFileSync(path.join(w.out, 'errors.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; reason: string; error: { code: string; message: string } });
      for (const e of errors) expect(e).toMatchObject({ reason: 'setup', error: { code: 'MINICODE_E_USAGE' } });
      expect(errors.find((e) => e.id === 'gone')!.error.message).toContain('no such directory');
      expect(errors.find((e) => e.id === 'file')!.error.message).toContain('not a directory');
      // The one good line made the cassette's two requests; the others none.
      expect(server.requests).toHaveLength(2);
    },
  );

  it('says on stderr which keys of the input are not line fields and are ignored, naming the field meant', async () => {
    const w = makeWorkdir(0);
    fs.writeFileSync(w.input, '{"id":"a","prompt":"What does README.md say?","maxSteps":1}\n');
    const r = await runCli(['batch', w.input, ...replayFlags(w)], { cwd: w.dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'prompts.jsonl: "maxSteps" (line 1) is not a line field, ignored: did you mean "max_steps"?',
    );
  });

  it('refuses an output directory holding the records of another input of the same name (exit 2), running and changing nothing', async () => {
    const w = makeWorkdir(1);
    const first = await runCli(['batch', w.input, ...replayFlags(w)], { cwd: w.dir });
    expect(first.code, first.stderr).toBe(0);
    const before = fs.readFileSync(path.join(w.out, 'results.jsonl'), 'utf8');
    const other = path.join(w.dir, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, 'prompts.jsonl'), '{"id":"p0","prompt":"A different job with the same id"}\n');
    const r = await runCli(['batch', path.join(other, 'prompts.jsonl'), '--json', ...replayFlags(w)], { cwd: w.dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_USAGE', message: expect.stringContaining('holds the records of another input') },
    });
    expect(fs.readFileSync(path.join(w.out, 'results.jsonl'), 'utf8')).toBe(before);
    expect(JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8'))).toMatchObject({ input: w.input });
    // The same input resumes as before.
    const again = await runCli(['batch', w.input, '--json', ...replayFlags(w)], { cwd: w.dir });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: true, resumed: 1, ranNow: 0 });
  });

  it('refuses duplicate ids with exit 2 and the line numbers', async () => {
    const w = makeWorkdir(3);
    fs.appendFileSync(w.input, '{"id":"p1","prompt":"again"}\n');
    const r = await runCli(['batch', w.input, ...replayFlags(w)], { cwd: w.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('duplicate id "p1" on lines 2, 4');
  });
});

describe('minicode batch against a provider under load', () => {
  it('completes a 429 storm (20% of requests, Retry-After) with no failures and reports the backoffs', async () => {
    const storm = rateLimitStorm({ rate: 0.2, retryAfterMs: 300, seed: 7 });
    const server = await startReplayServer(CASSETTE, {
      order: 'by-turn',
      intercept: storm.intercept,
      recordRequests: false,
    });
    servers.push(server);
    const w = makeWorkdir(40);
    const r = await runCli(
      [
        'batch',
        w.input,
        '--concurrency',
        '8',
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
        '--json',
      ],
      { cwd: w.dir, env: { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' }, timeoutMs: 40_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(storm.count()).toBeGreaterThan(5);
    const ids = recordIds(w.out);
    expect(ids.errors).toEqual([]);
    expect(new Set(ids.results).size).toBe(40);
    expect(ids.results).toHaveLength(40);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as {
      failed: number;
      backoffs: { rateLimited: number; concurrencyDecreases: number; lowestConcurrency: number };
    };
    expect(summary.failed).toBe(0);
    expect(summary.backoffs.rateLimited).toBe(storm.count());
    expect(summary.backoffs.concurrencyDecreases).toBeGreaterThan(0);
    expect(summary.backoffs.lowestConcurrency).toBeLessThan(8);
    expect(r.stdout).toContain('"type":"batch.progress"');
  });

  it('re-runs only the failed ids with --retry-errors and keeps the old records as superseded', async () => {
    let failing = true;
    const server = await startReplayServer(CASSETTE, {
      order: 'by-turn',
      recordRequests: false,
      intercept: ({ body }) =>
        failing && body.includes('FAILME')
          ? {
              status: 400,
              headers: { 'content-type': 'application/json' },
              body: Buffer.from('{"error":{"message":"bad request","type":"invalid_request_error"}}'),
              scripted: true,
            }
          : undefined,
    });
    servers.push(server);
    const w = makeWorkdir(6);
    fs.appendFileSync(w.input, '{"id":"f1","prompt":"FAILME one"}\n{"id":"f2","prompt":"FAILME two"}\n');
    const flags = [
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
    ];
    const env = { OPENAI_API_KEY: 'sk-test-not-a-real-key-000000' };
    const first = await runCli(['batch', w.input, ...flags], { cwd: w.dir, env });
    expect(first.code).toBe(1);
    expect(recordIds(w.out).errors.sort()).toEqual(['f1', 'f2']);
    const error = JSON.parse(fs.readFileSync(path.join(w.out, 'errors.jsonl'), 'utf8').split('\n')[0]!) as {
      error: { category: string; code: string };
      line: number;
    };
    expect(error.error.category).toBe('PROVIDER_ERROR');
    expect(error.line).toBeGreaterThan(6);
    failing = false;
    const plain = await runCli(['batch', w.input, ...flags], { cwd: w.dir, env });
    expect(plain.code).toBe(1);
    const retry = await runCli(['batch', w.input, '--retry-errors', ...flags], { cwd: w.dir, env });
    expect(retry.code, retry.stderr).toBe(0);
    const ids = recordIds(w.out);
    expect(ids.errors).toEqual([]);
    expect(ids.results.slice().sort()).toEqual(['f1', 'f2', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    const superseded = fs
      .readFileSync(path.join(w.out, 'superseded.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(superseded.sort()).toEqual(['f1', 'f2']);
    const summary = JSON.parse(fs.readFileSync(path.join(w.out, 'summary.json'), 'utf8')) as {
      superseded: number;
      ranNow: number;
      ok: boolean;
    };
    expect(summary).toMatchObject({ superseded: 2, ranNow: 2, ok: true });
  });
});

describe('minicode batch with native agents', () => {
  it('runs a line naming an agent through the supervisor and the same pipeline, with a record like any other', async () => {
    const w = makeWorkdir(1);
    fs.appendFileSync(
      w.input,
      `${JSON.stringify({ id: 'native-1', prompt: 'fix the bug', agent: 'codex', metadata: { suite: 'native' } })}\n`,
    );
    const r = await runCli(['batch', w.input, '--threads', '0', ...replayFlags(w)], {
      cwd: w.dir,
      env: {
        MINICODE_CODEX_BIN: path.join(ROOT, 'test/helpers/stand-in-agent.mjs'),
        STAND_IN_REPLAY: path.join(ROOT, 'test/streams/native/codex-all-items.jsonl'),
        STAND_IN_DELAY_MS: '0',
      },
    });
    const ids = recordIds(w.out);
    expect(ids.all.sort(), r.stderr).toEqual(['native-1', 'p0']);
    const lines = [
      ...fs.readFileSync(path.join(w.out, 'results.jsonl'), 'utf8').split('\n'),
      ...fs.readFileSync(path.join(w.out, 'errors.jsonl'), 'utf8').split('\n'),
    ].filter(Boolean);
    const native = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((x) => x.id === 'native-1')!;
    expect(native).toMatchObject({
      agent: 'codex',
      sessionId: expect.stringMatching(/^ses_/),
      metadata: { suite: 'native' },
    });
    expect(['completed', 'failed']).toContain(native.outcome);
  });
});
