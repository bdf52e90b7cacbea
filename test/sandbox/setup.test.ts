/**
 * The sandbox at set-up, through the real CLI: without a backend a sandboxed mode is a set-up
 * error (exit 1, the one ok:false summary naming the install command), never a silent run
 * without it; `--sandbox off` runs and says so in session.started; a bad mode is a usage error;
 * a host allowlist entry that is not a host name is refused rather than ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASSETTES, execJson, scratchProject, tempDir } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';

const replay = ['--provider', 'replay', '--cassette', path.join(CASSETTES, 'openai-chat-two-turn')];
// MINICODE_BWRAP empty: this machine has no backend, whatever is installed.
const noBackend = { MINICODE_BWRAP: '' };

describe('the sandbox at set-up', () => {
  it('refuses a sandboxed run without a backend: exit 1, one ok:false summary naming apt-get install bubblewrap', async () => {
    const run = await execJson(replay, { cwd: scratchProject(), env: noBackend });
    expect(run.code).toBe(1);
    expect(run.records).toHaveLength(1);
    expect(run.summary).toMatchObject({
      type: 'summary',
      ok: false,
      error: { code: 'MINICODE_E_SANDBOX_UNAVAILABLE', category: 'CONFIGURATION_ERROR' },
    });
    expect((run.summary.error as { action: string }).action).toContain('apt-get install bubblewrap');
    expect(run.stderr).toContain('apt-get install bubblewrap');
  });

  it('runs with --sandbox off without a backend, and says off in session.started', async () => {
    const run = await execJson([...replay, '--sandbox', 'off'], { cwd: scratchProject(), env: noBackend });
    expect(run.code, run.stderr).toBe(0);
    expect(run.records[0]).toMatchObject({ type: 'session.started', payload: { sandbox: 'off' } });
  });

  it('takes the mode from config sandbox.mode when no flag gives one', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ sandbox: { mode: 'off' } }));
    const run = await execJson(replay, { cwd: scratchProject(), home, env: noBackend });
    expect(run.code, run.stderr).toBe(0);
    expect(run.records[0]).toMatchObject({ payload: { sandbox: 'off' } });
  });

  it('is a usage error (exit 2) for an unknown --sandbox mode', async () => {
    const r = await runCli(['exec', 'hi', '--sandbox', 'sometimes', ...replay], {
      env: { MINICODE_HOME: tempDir('minicode-home-') },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sandbox');
  });

  it('refuses a sandbox.network.allow entry that is not a host name (a URL) instead of ignoring it', async () => {
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ sandbox: { network: { allow: ['https://registry.npmjs.org/'] } } }),
    );
    const run = await execJson(replay, { cwd: scratchProject(), home });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ ok: false, error: { code: 'MINICODE_E_CONFIG_INVALID' } });
  });
});
