/**
 * The security defaults of `minicode exec` (seed automation-ci), end to end: gated tools
 * denied without a TTY with a clear reason; local config ignored unless
 * --allow-local-config; no credential variable in the bash tool's environment, and a
 * credential value the model repeats is masked everywhere (stdout, stderr, the store);
 * submit_result at most once, its JSON verbatim in the summary; --verify reported only when
 * it ran, `verify.ok` independent of `ok`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import {
  CASSETTES,
  TEST_CASSETTES,
  contentTypeOf,
  execJson,
  ofType,
  replayJson,
  scratchProject,
  tempDir,
  turnBody,
} from './helpers.js';
import { rawBytes } from '../helpers/files.js';

const GITHUB_TOKEN = 'ghp_e2eFakeToken0123456789abcdefghijklmnop';
const OPENAI_KEY = 'sk-proj-e2eFakeKey0123456789abcdefghijklmnopqrstu';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('minicode exec security defaults', () => {
  it('denies git_commit and ask_user without a TTY, with a clear reason, and finishes the run', async () => {
    const run = await execJson(['--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, 'gated-tools')], {
      cwd: scratchProject(),
    });
    expect(run.code, run.stderr).toBe(0);
    const denied = ofType(run.records, 'tool.denied');
    expect(denied.map((d) => d.payload.name).sort()).toEqual(['ask_user', 'git_commit']);
    for (const d of denied) expect(d.payload.reason).toMatch(/TTY/);
    expect(denied.find((d) => d.payload.name === 'ask_user')!.payload.reason).toContain('self-contained prompt');
    expect(ofType(run.records, 'tool.failed')).toHaveLength(0);
    expect(run.summary).toMatchObject({ ok: true, tools: { completed: 0, denied: 2 } });
  });

  it('ignores a local .minicode/config.json unless --allow-local-config', async () => {
    const cwd = scratchProject();
    fs.mkdirSync(path.join(cwd, '.minicode'));
    fs.writeFileSync(path.join(cwd, '.minicode/config.json'), JSON.stringify({ provider: 'replay' }));
    const env = { MINICODE_CASSETTE: path.join(CASSETTES, 'anthropic-two-turn') };
    // Ignored: the provider it names is not used, so there is none.
    const ignored = await execJson([], { cwd, env });
    expect(ignored.code).toBe(1);
    expect(ignored.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_NO_PROVIDER' } });
    // Ignored with a diagnostic when the run goes ahead anyway.
    const noted = await execJson(['--provider', 'replay'], { cwd, env });
    expect(noted.code).toBe(0);
    expect(ofType(noted.records, 'diagnostic.raised').map((d) => d.payload.code)).toContain(
      'MINICODE_E_LOCAL_CONFIG_IGNORED',
    );
    // Trusted on request.
    const trusted = await execJson(['--allow-local-config'], { cwd, env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.summary).toMatchObject({ ok: true });
    expect(ofType(trusted.records, 'diagnostic.raised')).toHaveLength(0);
  });

  it('runs bash without credential variables, and masks a credential value the model repeats', async () => {
    const env = { GITHUB_TOKEN, OPENAI_API_KEY: OPENAI_KEY, MINICODE_E2E_MARKER: 'visible-marker' };
    const run = await execJson(['--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, 'bash-env')], {
      cwd: scratchProject(),
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const output = ofType(run.records, 'tool.completed')[0]!.payload.output as string;
    expect(output).toContain('MINICODE_E2E_MARKER=visible-marker');
    expect(output).not.toMatch(/^(GITHUB_TOKEN|OPENAI_API_KEY)=/m);
    for (const secret of [GITHUB_TOKEN, OPENAI_KEY]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
      expect(rawBytes(run.home).includes(secret)).toBe(false);
    }

    // The model repeats the token (it could have read it from a file): the scrub stage masks it.
    const echo = [
      streamOk(
        turnBody(
          'openai-chat',
          { calls: [{ id: 'call_echo_1', name: 'bash', args: { command: `printf 'token=%s\\n' ${GITHUB_TOKEN}` } }] },
          1,
        ),
        contentTypeOf('openai-chat'),
      ),
      streamOk(
        turnBody('openai-chat', { text: `The token is ${GITHUB_TOKEN} and the key is ${OPENAI_KEY}.` }, 2),
        contentTypeOf('openai-chat'),
      ),
    ];
    const server = await startReplayServer(echo, { chunkSize: 13 });
    servers.push(server);
    const masked = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: scratchProject(),
      env: { ...env, OPENAI_BASE_URL: `${server.origin}/v1` },
    });
    expect(masked.code, masked.stderr).toBe(0);
    const text = ofType(masked.records, 'text')
      .map((r) => r.delta)
      .join('');
    expect(text).toContain('The token is ');
    const stored = await replayJson(masked.home, masked.summary.sessionId as string);
    for (const secret of [GITHUB_TOKEN, OPENAI_KEY]) {
      expect(masked.stdout).not.toContain(secret);
      expect(masked.stderr).not.toContain(secret);
      expect(JSON.stringify(stored)).not.toContain(secret);
      expect(rawBytes(masked.home).includes(secret)).toBe(false);
    }
  });

  it('keeps DB_PASS and KEYSTORE_PASS from the bash tool and masks their values in stdout, replay and the store', async () => {
    const DB_PASS = 'db-pass-e2e-value-4242';
    const KEYSTORE_PASS = 'keystore-pass-e2e-value-77';
    const env = { DB_PASS, KEYSTORE_PASS, MINICODE_E2E_MARKER: 'visible-marker' };
    // The model prints the environment, then the two values it could have read from a file.
    const turns = [
      streamOk(
        turnBody(
          'openai-chat',
          {
            calls: [
              {
                id: 'call_pass_1',
                name: 'bash',
                args: { command: `env; printf 'db=%s keystore=%s\n' ${DB_PASS} ${KEYSTORE_PASS}` },
              },
            ],
          },
          1,
        ),
        contentTypeOf('openai-chat'),
      ),
      streamOk(
        turnBody('openai-chat', { text: `The passwords are ${DB_PASS} and ${KEYSTORE_PASS}.` }, 2),
        contentTypeOf('openai-chat'),
      ),
    ];
    const server = await startReplayServer(turns, { chunkSize: 11 });
    servers.push(server);
    const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
      cwd: scratchProject(),
      env: { ...env, OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: `${server.origin}/v1` },
    });
    expect(run.code, run.stderr).toBe(0);
    const output = ofType(run.records, 'tool.completed')[0]!.payload.output as string;
    expect(output).toContain('MINICODE_E2E_MARKER=visible-marker');
    expect(output).not.toMatch(/^(DB_PASS|KEYSTORE_PASS)=/m);
    expect(output).toContain('db=[REDACTED:env:DB_PASS] keystore=[REDACTED:env:KEYSTORE_PASS]');
    const stored = await replayJson(run.home, run.summary.sessionId as string);
    for (const secret of [DB_PASS, KEYSTORE_PASS]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
      expect(JSON.stringify(stored)).not.toContain(secret);
      expect(rawBytes(run.home).includes(secret)).toBe(false);
    }
  });

  it('keeps the first submit_result verbatim in the summary and fails a second one', async () => {
    const run = await execJson(['--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, 'submit-twice')], {
      cwd: scratchProject(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary.result).toEqual({
      verdict: 'pass',
      score: 0.93,
      notes: ['kept verbatim', { nested: [1, 2, 3] }],
      findings: [{ category: 'style', severity: 'low', summary: 'long line in src/greet.js' }],
    });
    const failed = ofType(run.records, 'tool.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload).toMatchObject({
      name: 'submit_result',
      message: expect.stringContaining('already called'),
    });
    expect(ofType(run.records, 'result.produced')).toHaveLength(1);
    expect(ofType(run.records, 'finding.detected').map((f) => f.payload.summary)).toEqual([
      'long line in src/greet.js',
    ]);
  });
});

describe('minicode exec --verify', () => {
  const cassette = ['--provider', 'replay', '--cassette', path.join(CASSETTES, 'anthropic-two-turn')];

  it('reports verify only when it ran, with verify.ok independent of ok', async () => {
    const failing = await execJson([...cassette, '--verify', 'node -e "process.exit(3)"'], { cwd: scratchProject() });
    expect(failing.code).toBe(0);
    expect(failing.summary).toMatchObject({
      ok: true,
      verify: { active: true, ok: false, command: 'node -e "process.exit(3)"' },
    });
    const passing = await execJson([...cassette, '--verify', 'node test.js || true'], { cwd: scratchProject() });
    expect(passing.summary).toMatchObject({ ok: true, verify: { active: true, ok: true } });
    const without = await execJson(cassette, { cwd: scratchProject() });
    expect('verify' in without.summary).toBe(false);
  });

  it('leaves verify out of a failure summary', async () => {
    const run = await execJson([...cassette, '--max-steps', '1', '--verify', 'node -e "process.exit(0)"'], {
      cwd: scratchProject(),
    });
    expect(run.code).toBe(1);
    expect(run.summary.ok).toBe(false);
    expect('verify' in run.summary).toBe(false);
    expect(ofType(run.records, 'test.completed')).toHaveLength(0);
  });

  it('masks a token written into the verify command in the summary, as in its test.completed event', async () => {
    const token = 'ghp_ZZCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij';
    const run = await execJson([...cassette, '--verify', `node -e "process.exit(0)" ${token}`], {
      cwd: scratchProject(),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(token);
    expect(run.stderr).not.toContain(token);
    expect(run.summary).toMatchObject({
      verify: { ok: true, command: 'node -e "process.exit(0)" [REDACTED:github-token]' },
    });
  });

  it('takes the command from MINICODE_VERIFY_CMD when --verify has none', async () => {
    const run = await execJson([...cassette, '--verify'], {
      cwd: scratchProject(),
      env: { MINICODE_VERIFY_CMD: 'node -e "process.exit(0)"' },
    });
    expect(run.summary).toMatchObject({ ok: true, verify: { ok: true, command: 'node -e "process.exit(0)"' } });
    void tempDir;
  });
});
