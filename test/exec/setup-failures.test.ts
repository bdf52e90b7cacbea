/**
 * Setup failures of `minicode exec --json` (seed automation-ci): exactly one `ok:false`
 * summary line on stdout with a stable code, the human message on stderr, exit 1; usage
 * errors (bad flag values, unknown flags) exit 2, still with one summary line under --json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, scratchProject, tempDir } from './helpers.js';

async function execFails(args: string[], options: { env?: NodeJS.ProcessEnv; home?: string } = {}) {
  const home = options.home ?? tempDir('minicode-home-');
  const r = await runCli(['exec', 'fix the lint errors', '--json', '--cwd', scratchProject(), ...args], {
    env: cleanEnv(home, options.env),
  });
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  expect(lines, r.stdout).toHaveLength(1);
  const summary = JSON.parse(lines[0]!) as Record<string, any>;
  expect(summary).toMatchObject({ schema: 'minicode.output.v1', type: 'summary', ok: false, outcome: 'failed' });
  expect(summary.verify).toBeUndefined();
  expect(typeof summary.error.category).toBe('string');
  expect(summary.error.message.length).toBeGreaterThan(0);
  // The human message goes to stderr, once.
  expect(r.stderr).toContain(summary.error.message.slice(0, 40));
  return { ...r, summary, home };
}

describe('minicode exec --json setup failures', () => {
  it('no provider configured (clean environment, no keys): one ok:false line, exit 1', async () => {
    const r = await execFails([]);
    expect(r.code).toBe(1);
    expect(r.summary.error).toMatchObject({
      category: 'CONFIGURATION_ERROR',
      code: 'MINICODE_E_NO_PROVIDER',
      action: expect.stringContaining('--provider'),
    });
    expect(r.summary.prompt).toBe('fix the lint errors');
  });

  it('an unknown model for the provider (--provider anthropic --model gpt-4o): MINICODE_E_UNKNOWN_MODEL, exit 1', async () => {
    const r = await execFails(['--provider', 'anthropic', '--model', 'gpt-4o'], {
      env: { ANTHROPIC_API_KEY: 'sk-ant-fake-0123456789abcdef' },
    });
    expect(r.code).toBe(1);
    expect(r.summary.error).toMatchObject({ category: 'CONFIGURATION_ERROR', code: 'MINICODE_E_UNKNOWN_MODEL' });
    expect(r.stdout + r.stderr).not.toContain('sk-ant-fake-0123456789abcdef');
  });

  it('an unreadable config (MINICODE_HOME/config.json with bad JSON): exit 1 naming the file', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), '{"provider": "anthropic",');
    const r = await execFails(['--provider', 'anthropic'], {
      home,
      env: { ANTHROPIC_API_KEY: 'sk-ant-fake-0123456789abcdef' },
    });
    expect(r.code).toBe(1);
    expect(r.summary.error).toMatchObject({ category: 'CONFIGURATION_ERROR', code: 'MINICODE_E_CONFIG_INVALID' });
    expect(r.summary.error.message).toContain(path.join(home, 'config.json'));
  });

  it('a config whose known key has the wrong type (validated by the schema exec loads only for a file): exit 1 naming the key', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), '{"maxSteps": "many"}');
    const r = await execFails(['--provider', 'anthropic'], {
      home,
      env: { ANTHROPIC_API_KEY: 'sk-ant-fake-0123456789abcdef' },
    });
    expect(r.code).toBe(1);
    expect(r.summary.error).toMatchObject({ category: 'CONFIGURATION_ERROR', code: 'MINICODE_E_CONFIG_INVALID' });
    expect(r.summary.error.message).toContain('maxSteps');
  });

  it('a missing key for a hosted provider: MINICODE_E_MISSING_KEY naming the variable, exit 1', async () => {
    const r = await execFails(['--provider', 'anthropic']);
    expect(r.code).toBe(1);
    expect(r.summary.error).toMatchObject({
      code: 'MINICODE_E_MISSING_KEY',
      action: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
  });

  it('a missing cassette for --provider replay: exit 1', async () => {
    const r = await execFails(['--provider', 'replay', '--cassette', path.join(tempDir(), 'absent')]);
    expect(r.code).toBe(1);
    expect(r.summary.error.code).toBe('MINICODE_E_INPUT_UNREADABLE');
  });
});

describe('minicode exec usage errors', () => {
  for (const [label, args] of [
    ['--max-steps 0', ['--max-steps', '0']],
    ['--timeout abc', ['--timeout', 'abc']],
    ['--budget -1', ['--budget', '-1']],
    ['--approval maybe', ['--approval', 'maybe']],
    ['an unknown flag', ['--frobnicate']],
  ] as const) {
    it(`exit 2 with one line for ${label}`, async () => {
      const r = await execFails([...args]);
      expect(r.code).toBe(2);
      expect(r.summary.error).toMatchObject({ category: 'USER_ERROR', code: 'MINICODE_E_USAGE' });
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    });
  }

  it('without --json: nothing on stdout, one message on stderr, exit 2', async () => {
    const r = await runCli(['exec', 'x', '--max-steps', 'zero', '--cwd', scratchProject()], {
      env: cleanEnv(tempDir()),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--max-steps must be a positive integer');
  });
});

describe('minicode exec setup failures on stderr (no --json)', () => {
  it('masks a credential the message quotes (an access token given as --provider)', async () => {
    const token = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const r = await runCli(['exec', 'hi', '--provider', token], { env: cleanEnv(tempDir('minicode-home-')) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('unknown provider');
    expect(r.stderr).not.toContain(token);
    expect(r.stderr).toContain('[REDACTED');
  });
});
