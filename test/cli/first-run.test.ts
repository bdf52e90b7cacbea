/**
 * What a new user meets first, through the built CLI: `--help` with examples and the
 * environment variables minicode reads, a missing API key named with its provider and variable,
 * "did you mean" for a mistyped command or flag, the real default approval in each command's
 * help, and `sessions` with each session's kind and title, `--limit` and `--kind`.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentVariables } from '../../lib/environment.js';
import { PROVIDER_CONVENTIONS } from '../../lib/agent/provider-select.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTES, cleanEnv, scratchProject, tempDir } from '../exec/helpers.js';

describe('minicode --help', () => {
  it('lists examples and the environment variables minicode reads, each provider with its key and base URL variables', async () => {
    const r = await runCli(['--help'], { env: cleanEnv(tempDir('minicode-home-')) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\nExamples:\n  minicode ');
    const env = r.stdout.slice(r.stdout.indexOf('\nEnvironment:\n'));
    for (const c of Object.values(PROVIDER_CONVENTIONS)) {
      for (const name of [...c.keyVars, c.baseVar]) expect(env).toContain(name);
    }
    for (const name of ['MINICODE_HOME', 'MINICODE_PROVIDER', 'MINICODE_MODEL', 'OPENROUTER_API_KEY', 'NO_COLOR'])
      expect(env).toContain(name);
    expect(environmentVariables().length).toBeGreaterThan(10);
  });

  it('states the default approval each command really uses: ask in chat, auto in exec', async () => {
    const chat = await runCli(['chat', '--help']);
    const exec = await runCli(['exec', '--help']);
    const approvalOf = (help: string): string | undefined =>
      /--approval <mode>[\s\S]*?default: "([a-z-]+)"/.exec(help)?.[1];
    expect(approvalOf(chat.stdout)).toBe('ask');
    expect(approvalOf(exec.stdout)).toBe('auto');
  });
});

describe('a first mistake', () => {
  it('names the provider and the variable of a missing API key before any request, exit 1', async () => {
    const home = tempDir('minicode-home-');
    const r = await runCli(['exec', 'hi', '--provider', 'anthropic', '--cwd', scratchProject()], {
      env: cleanEnv(home),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no API key for anthropic at api.anthropic.com: ANTHROPIC_API_KEY is not set');
    expect(r.stderr).toContain('set ANTHROPIC_API_KEY in the environment');
    const json = await runCli(['exec', 'hi', '--json', '--provider', 'gemini', '--cwd', scratchProject()], {
      env: cleanEnv(home),
    });
    const lines = json.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      type: 'summary',
      ok: false,
      error: { code: 'MINICODE_E_MISSING_KEY', action: expect.stringContaining('GEMINI_API_KEY') },
    });
  });

  it('suggests the command or the flag meant by a typo on the one usage line, exit 2', async () => {
    const command = await runCli(['exce', 'hi']);
    expect(command.code).toBe(2);
    expect(command.stderr.trim()).toBe("error: unknown command 'exce' (Did you mean exec?)");
    const flag = await runCli(['exec', '--modle', 'x', 'hi']);
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toBe("error: unknown option '--modle' (Did you mean --model?)");
    const far = await runCli(['frobnicate']);
    expect(far.code).toBe(2);
    expect(far.stderr.trim()).toBe("error: unknown command 'frobnicate'");
  });
});

describe('minicode sessions', () => {
  it('shows each session newest first with its kind and title, and narrows with --limit and --kind', async () => {
    const home = tempDir('minicode-home-');
    const env = cleanEnv(home);
    const project = scratchProject();
    const exec = (prompt: string) =>
      runCli(
        [
          'exec',
          prompt,
          '--provider',
          'replay',
          '--cassette',
          path.join(CASSETTES, 'anthropic-two-turn'),
          '--cwd',
          project,
        ],
        { env },
      );
    expect((await exec('Read the README and tell me what it says')).code).toBe(0);
    expect((await exec(`Summarise the README ${'in great detail '.repeat(8)}please`)).code).toBe(0);
    const ingested = await runCli(['ingest', '--from', 'terminal', '--store', path.join(home, 'store'), '-'], {
      env,
      input: 'plain terminal text\n',
    });
    expect(ingested.code, ingested.stderr).toBe(0);

    const table = await runCli(['sessions'], { env });
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['SESSION', 'STARTED', 'OUTCOME', 'KIND', 'MODEL', 'EVENTS', 'TITLE']);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/\bingest\b/);
    // The long prompt is cut to 80 characters on one line, with an ellipsis.
    expect(rows[1]).toMatch(/\bexec +anthropic claude-sonnet-4-5 +\d+ +Summarise the README in great detail .*…$/);
    expect(rows[2]).toMatch(/ Read the README and tell me what it says$/);

    const limited = await runCli(['sessions', '--limit', '1', '--kind', 'exec', '--json'], { env });
    const listed = limited.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { origin: string; title: string });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ origin: 'exec' });
    expect([...listed[0]!.title].length).toBe(80);

    const bad = await runCli(['sessions', '--kind', 'nonsense'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MINICODE_E_USAGE');
    const zero = await runCli(['sessions', '--limit', '0'], { env });
    expect(zero.code).toBe(2);
  });
});
