/**
 * Each termination reason reached for real by the CLI, with the documented exit code and
 * summary (docs/control-plane.md, docs/exec.md): completed 0, max_steps_exceeded 1, timeout 1, budget_exceeded 1,
 * aborted (SIGINT) 130, provider after retries 1; and the recoveries that do not end a run:
 * 429 with Retry-After, 529, a stream cut mid-event. Scripted exchanges are served by a
 * loopback replay server started here; the CLI reaches it through its real provider path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import {
  cutMidEvent,
  overloaded,
  rateLimited,
  serverError,
  slowStream,
  streamOk,
} from '../corpus/scripted-exchanges.js';
import {
  CASSETTES,
  checkContract,
  cleanEnv,
  contentTypeOf,
  execJson,
  ofType,
  scratchProject,
  spawnExec,
  tempDir,
  turnBody,
} from './helpers.js';
import { waitFor } from '../helpers/wait.js';

const KEY = 'sk-ant-fake-termination-0123456789';
const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const TOOL_TURN = {
  text: "I'll read the README first.",
  calls: [{ id: 'toolu_t_1', name: 'read_file', args: { path: 'README.md' } }],
};
const FINAL_TURN = { text: 'The README describes the sample project.' };
const anthropic = (turn: object, n: number): string => turnBody('anthropic', turn, n);

/** Serve `exchanges` and return the env that points `--provider anthropic` at them. */
async function serveAnthropic(exchanges: Exchange[]): Promise<{ server: ReplayServer; env: NodeJS.ProcessEnv }> {
  const server = await startReplayServer(exchanges);
  servers.push(server);
  return { server, env: { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: KEY, MINICODE_RETRY_BACKOFF_MS: '5' } };
}

const twoTurnOk = (): Exchange[] => [
  streamOk(anthropic(TOOL_TURN, 1), contentTypeOf('anthropic')),
  streamOk(anthropic(FINAL_TURN, 2), contentTypeOf('anthropic')),
];

describe('minicode exec settles each termination reason once, with its exit code', () => {
  it('stops with max_steps_exceeded (exit 1) when --max-steps 1 meets a tool call', async () => {
    const run = await execJson(
      ['--provider', 'replay', '--cassette', path.join(CASSETTES, 'anthropic-two-turn'), '--max-steps', '1'],
      { cwd: scratchProject() },
    );
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({
      ok: false,
      outcome: 'failed',
      reason: 'max_steps_exceeded',
      tools: { completed: 1 },
      error: { category: 'AGENT_ERROR' },
    });
    expect((run.summary.error as { message: string }).message).toContain('--max-steps 1');
    expect(ofType(run.records, 'task.failed')[0]!.payload).toMatchObject({ reason: 'max_steps_exceeded' });
    expect(ofType(run.records, 'model.response.started')).toHaveLength(1);
  });

  it('stops with timeout (exit 1) when a slow stream outlives --timeout 300', async () => {
    const { env } = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 150, 48, contentTypeOf('anthropic'))]);
    const run = await execJson(['--provider', 'anthropic', '--timeout', '300'], { cwd: scratchProject(), env });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({
      ok: false,
      outcome: 'cancelled',
      reason: 'timeout',
      error: { category: 'AGENT_ERROR', code: 'MINICODE_E_TIMEOUT' },
    });
    expect(run.summary.durationMs as number).toBeGreaterThanOrEqual(300);
    expect(ofType(run.records, 'task.cancelled')[0]!.payload).toMatchObject({ reason: 'timeout' });
  });

  it('reads the default deadline from MINICODE_TIMEOUT_MS', async () => {
    const { env } = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 150, 48, contentTypeOf('anthropic'))]);
    const run = await execJson(['--provider', 'anthropic'], {
      cwd: scratchProject(),
      env: { ...env, MINICODE_TIMEOUT_MS: '250' },
    });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'timeout' });
  });

  it('stops with budget_exceeded (exit 1) once the priced spend passes --budget', async () => {
    const run = await execJson(
      ['--provider', 'replay', '--cassette', path.join(CASSETTES, 'anthropic-two-turn'), '--budget', '0.00001'],
      { cwd: scratchProject() },
    );
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({
      ok: false,
      outcome: 'cancelled',
      reason: 'budget_exceeded',
      error: { code: 'MINICODE_E_BUDGET_EXCEEDED' },
    });
    expect(run.summary.costUsd as number).toBeGreaterThan(0.00001);
    // One request was enough to pass the budget: no second request was made.
    expect(ofType(run.records, 'model.response.started')).toHaveLength(1);
  });

  it('stops with aborted and exit 130 on SIGINT during a slow stream', async () => {
    const { env } = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 400, 512, contentTypeOf('anthropic'))]);
    const home = tempDir('minicode-home-');
    const exec = spawnExec(
      ['Read the README', '--json', '--cwd', scratchProject(), '--provider', 'anthropic'],
      cleanEnv(home, env),
    );
    await exec.firstLine;
    // Wait for the stream to begin (the model's first event), then interrupt.
    await waitFor(() => exec.lines.some((l) => l.includes('"model.response.started"')), {
      what: 'the model response to start',
    });
    exec.child.kill('SIGINT');
    const result = await exec.done;
    expect(result.code).toBe(130);
    const records = checkContract(result.stdout);
    expect(records[records.length - 1]).toMatchObject({
      ok: false,
      outcome: 'cancelled',
      reason: 'aborted',
      error: { category: 'USER_ERROR', code: 'MINICODE_E_ABORTED', message: 'interrupted (SIGINT)' },
    });
    expect(ofType(records, 'task.cancelled')[0]!.payload).toMatchObject({ reason: 'aborted' });
  });

  it('stops with aborted and exit 130 on SIGTERM, the summary naming SIGTERM', async () => {
    const { env } = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 400, 512, contentTypeOf('anthropic'))]);
    const exec = spawnExec(
      ['Read the README', '--json', '--cwd', scratchProject(), '--provider', 'anthropic'],
      cleanEnv(tempDir('minicode-home-'), env),
    );
    await waitFor(() => exec.lines.some((l) => l.includes('"model.response.started"')), {
      what: 'the model response to start',
    });
    exec.child.kill('SIGTERM');
    const result = await exec.done;
    expect(result.code).toBe(130);
    const records = checkContract(result.stdout);
    expect(records[records.length - 1]).toMatchObject({
      ok: false,
      reason: 'aborted',
      error: { code: 'MINICODE_E_ABORTED', message: 'interrupted (SIGTERM)' },
    });
  });

  it('stops with provider (exit 1) after the retries on repeated 500s, each retry announced', async () => {
    const { server, env } = await serveAnthropic([serverError(), serverError(), serverError(), serverError()]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({
      ok: false,
      outcome: 'failed',
      reason: 'provider',
      error: { category: 'PROVIDER_ERROR', code: 'server_error' },
    });
    expect(server.requests).toHaveLength(4); // the first attempt and 3 retries
    const retries = ofType(run.records, 'recovery.started');
    expect(retries.map((r) => r.payload.attempt)).toEqual([1, 2, 3]);
    // MINICODE_RETRY_BACKOFF_MS=5 scales the 1, 2, 4 s table: each wait is drawn from [0, 5], [0, 10], [0, 20].
    const delays = retries.map((r) => r.payload.delayMs as number);
    for (const [i, bound] of [5, 10, 20].entries())
      expect(delays[i]! >= 0 && delays[i]! <= bound, `${delays[i]} within [0, ${bound}]`).toBe(true);
    expect(ofType(run.records, 'task.failed')[0]!.payload).toMatchObject({ reason: 'provider' });
  });
});

/** A fresh MINICODE_HOME holding `config` as its config.json. */
function homeWithConfig(config: object): string {
  const home = tempDir('minicode-home-');
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(config));
  return home;
}

describe("the config file's limits (docs/tools-and-policy.md § Config) apply when no flag gives one", () => {
  const cassette = path.join(CASSETTES, 'anthropic-two-turn');

  it('stops at the config maxSteps, and --max-steps wins over it', async () => {
    const home = homeWithConfig({ maxSteps: 1 });
    const run = await execJson(['--provider', 'replay', '--cassette', cassette], { cwd: scratchProject(), home });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'max_steps_exceeded', error: { code: 'MINICODE_E_MAX_STEPS' } });
    const flagged = await execJson(['--provider', 'replay', '--cassette', cassette, '--max-steps', '5'], {
      cwd: scratchProject(),
      home,
    });
    expect(flagged.code).toBe(0);
  });

  it('stops once the cost passes the config budgetUsd, and --budget wins over it', async () => {
    const home = homeWithConfig({ budgetUsd: 0.00001 });
    const run = await execJson(['--provider', 'replay', '--cassette', cassette], { cwd: scratchProject(), home });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'budget_exceeded', error: { code: 'MINICODE_E_BUDGET_EXCEEDED' } });
    expect(ofType(run.records, 'model.response.started')).toHaveLength(1);
    const flagged = await execJson(['--provider', 'replay', '--cassette', cassette, '--budget', '5'], {
      cwd: scratchProject(),
      home,
    });
    expect(flagged.code).toBe(0);
  });

  it('takes --budget-strict with the config budgetUsd as the budget', async () => {
    const run = await execJson(['--provider', 'replay', '--cassette', cassette, '--budget-strict'], {
      cwd: scratchProject(),
      home: homeWithConfig({ budgetUsd: 5 }),
    });
    expect(run.code).toBe(0);
  });

  it('stops at the config timeoutMs, and MINICODE_TIMEOUT_MS wins over it', async () => {
    const { env } = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 150, 48, contentTypeOf('anthropic'))]);
    const home = homeWithConfig({ timeoutMs: 250 });
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env, home });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ reason: 'timeout', error: { message: 'run deadline of 250 ms passed' } });
    const fromEnv = await serveAnthropic([slowStream(anthropic(FINAL_TURN, 1), 150, 48, contentTypeOf('anthropic'))]);
    const envWins = await execJson(['--provider', 'anthropic'], {
      cwd: scratchProject(),
      env: { ...fromEnv.env, MINICODE_TIMEOUT_MS: '200' },
      home,
    });
    expect(envWins.summary).toMatchObject({ reason: 'timeout', error: { message: 'run deadline of 200 ms passed' } });
  });
});

describe('minicode exec recovers from transient provider failures', () => {
  it('waits out a 429 with Retry-After, then completes (recovery events)', async () => {
    const { server, env } = await serveAnthropic([rateLimited(1), ...twoTurnOk()]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ ok: true, reason: 'completed' });
    expect(server.requests).toHaveLength(3);
    const started = ofType(run.records, 'recovery.started');
    // Retry-After wins over the (scaled) backoff table.
    expect(started.map((r) => r.payload.delayMs)).toEqual([1000]);
    expect(ofType(run.records, 'recovery.completed')).toHaveLength(1);
    expect(ofType(run.records, 'limit.reached').length + ofType(run.records, 'error.raised').length).toBeGreaterThan(0);
  });

  it('retries an Anthropic 529 overloaded, then completes', async () => {
    const { server, env } = await serveAnthropic([overloaded(), ...twoTurnOk()]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(ofType(run.records, 'recovery.started')).toHaveLength(1);
    expect(ofType(run.records, 'recovery.completed')).toHaveLength(1);
  });

  it('retries a stream cut mid-event, then completes without a duplicated tool call', async () => {
    const body = anthropic(TOOL_TURN, 1);
    const cutAt = body.indexOf('input_json_delta') + 10;
    const { server, env } = await serveAnthropic([
      cutMidEvent(body, cutAt, contentTypeOf('anthropic')),
      ...twoTurnOk(),
    ]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(ofType(run.records, 'recovery.started')).toHaveLength(1);
    expect(ofType(run.records, 'tool.started')).toHaveLength(1);
    expect(run.summary).toMatchObject({ ok: true, tools: { completed: 1 } });
  });
});
