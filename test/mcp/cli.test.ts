import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { EVERYTHING, HOSTILE, tempDir } from './helpers.js';

function env(home: string): NodeJS.ProcessEnv {
  return { MINICODE_HOME: home };
}
const readConfig = (home: string) => JSON.parse(fs.readFileSync(path.join(home, 'config.json'), 'utf8'));

describe('minicode mcp add / remove', () => {
  it('adds stdio and URL servers to the user config, keeping its other keys', async () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ provider: 'anthropic' }));
    const stdio = await runCli(
      [
        'mcp',
        'add',
        'fs',
        'npx',
        '--env',
        'TOKEN=${MY_TOKEN}',
        '--tool-timeout',
        '30000',
        '--',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/tmp',
      ],
      { env: env(home) },
    );
    expect(stdio.code, stdio.stderr).toBe(0);
    const url = await runCli(
      ['mcp', 'add', 'remote', 'https://example.com/mcp', '--header', 'Authorization: Bearer ${API_TOKEN}'],
      { env: env(home) },
    );
    expect(url.code, url.stderr).toBe(0);
    expect(readConfig(home)).toEqual({
      provider: 'anthropic',
      mcpServers: {
        fs: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
          env: { TOKEN: '${MY_TOKEN}' },
          toolTimeoutMs: 30000,
        },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
      },
    });
  });

  it('adds a server to a user config that starts with a UTF-8 byte order mark, keeping its other keys', async () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'config.json'), '\ufeff{"provider":"anthropic"}');
    const r = await runCli(['mcp', 'add', 'a', 'node'], { env: env(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(home)).toEqual({ provider: 'anthropic', mcpServers: { a: { command: 'node' } } });
  });

  it('refuses a duplicate name or a bad flag as usage errors (exit 2), and leaves the file alone', async () => {
    const home = tempDir();
    expect((await runCli(['mcp', 'add', 'a', 'node'], { env: env(home) })).code).toBe(0);
    const before = fs.readFileSync(path.join(home, 'config.json'), 'utf8');
    expect((await runCli(['mcp', 'add', 'a', 'node'], { env: env(home) })).code).toBe(2);
    expect((await runCli(['mcp', 'add', 'b', 'node', '--env', 'NOEQUALS'], { env: env(home) })).code).toBe(2);
    expect((await runCli(['mcp', 'add', 'bad name', 'node'], { env: env(home) })).code).toBe(2);
    expect(fs.readFileSync(path.join(home, 'config.json'), 'utf8')).toBe(before);
  });

  it('leaves type unset for a bare URL (the SSE fallback stays on), and writes --transport, --include and --exclude', async () => {
    const home = tempDir();
    expect((await runCli(['mcp', 'add', 'bare', 'http://127.0.0.1:3001/sse'], { env: env(home) })).code).toBe(0);
    expect(
      (
        await runCli(
          [
            'mcp',
            'add',
            'typed',
            'http://127.0.0.1:3001/sse',
            '--transport',
            'sse',
            '--include',
            'a',
            '--include',
            'b',
            '--exclude',
            'b',
          ],
          { env: env(home) },
        )
      ).code,
    ).toBe(0);
    expect(readConfig(home).mcpServers).toEqual({
      bare: { url: 'http://127.0.0.1:3001/sse' },
      typed: { type: 'sse', url: 'http://127.0.0.1:3001/sse', includeTools: ['a', 'b'], excludeTools: ['b'] },
    });
  });

  it("writes the project's .mcp.json with --scope project, and removes from it", async () => {
    const home = tempDir();
    const project = tempDir('minicode-project-');
    const added = await runCli(['mcp', 'add', 'fs', 'npx', '--scope', 'project', '--', '-y', 'pkg'], {
      env: env(home),
      cwd: project,
    });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { fs: { command: 'npx', args: ['-y', 'pkg'] } },
    });
    expect(fs.statSync(path.join(project, '.mcp.json')).mode & 0o777).toBe(0o644);
    expect(fs.existsSync(path.join(home, 'config.json'))).toBe(false);
    expect((await runCli(['mcp', 'add', 'x', 'npx', '--scope', 'team'], { env: env(home), cwd: project })).code).toBe(
      2,
    );
    expect((await runCli(['mcp', 'remove', 'fs', '--scope', 'project'], { env: env(home), cwd: project })).code).toBe(
      0,
    );
    expect(JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'))).toEqual({});
  });

  it("adds an entry written in another agent's spelling with add-json, stored in minicode's, and refuses one a run could not use (exit 2)", async () => {
    const home = tempDir();
    const codex = await runCli(
      [
        'mcp',
        'add-json',
        'figma',
        JSON.stringify({
          url: 'https://mcp.figma.com/mcp',
          bearer_token_env_var: 'FIGMA_TOKEN',
          tool_timeout_sec: 30,
          disabled_tools: ['x'],
        }),
      ],
      {
        env: env(home),
      },
    );
    expect(codex.code, codex.stderr).toBe(0);
    expect(readConfig(home).mcpServers.figma).toEqual({
      url: 'https://mcp.figma.com/mcp',
      headers: { Authorization: 'Bearer ${FIGMA_TOKEN}' },
      toolTimeoutMs: 30000,
      excludeTools: ['x'],
    });
    const typo = await runCli(['mcp', 'add-json', 'bad', '{"command":"npx","excludeTool":["x"]}'], { env: env(home) });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "excludeTools"');
    expect((await runCli(['mcp', 'add-json', 'bad', '{not json'], { env: env(home) })).code).toBe(2);
    expect(Object.keys(readConfig(home).mcpServers)).toEqual(['figma']);
  });

  it('removes a server, and says which ones exist when the name is unknown (exit 1)', async () => {
    const home = tempDir();
    await runCli(['mcp', 'add', 'a', 'node'], { env: env(home) });
    const missing = await runCli(['mcp', 'remove', 'zzz'], { env: env(home) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('known servers: a');
    expect((await runCli(['mcp', 'remove', 'a'], { env: env(home) })).code).toBe(0);
    expect(readConfig(home)).toEqual({});
  });
});

describe('minicode mcp list', () => {
  it('shows each server with its state, start-up time and tools, in config order (--json)', async () => {
    const home = tempDir();
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], startupTimeoutMs: 60_000 },
          broken: { command: process.execPath, args: [HOSTILE, '--exit-at-start'] },
          off: { command: 'does-not-matter', enabled: false },
          hostile: { command: process.execPath, args: [HOSTILE], includeTools: ['echo'], startupTimeoutMs: 60_000 },
        },
      }),
    );
    const result = await runCli(['mcp', 'list', '--json'], { env: env(home), timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(1);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['everything', 'ready'],
      ['broken', 'failed'],
      ['off', 'disabled'],
      ['hostile', 'ready'],
    ]);
    expect(rows[0].toolNames).toContain('mcp__everything__echo');
    expect(rows[0].startupMs).toBeGreaterThan(0);
    expect(rows[1].error).toBeTruthy();
    expect(rows[3]).toMatchObject({ transport: 'stdio', tools: ['echo'], toolNames: ['mcp__hostile__echo'] });
  });

  it('shows an entry the run cannot use as invalid, naming the key, and exits 1', async () => {
    const home = tempDir();
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        mcpServers: { typo: { command: 'x', excludeTool: [] }, off: { command: 'x', disabled: true } },
      }),
    );
    const result = await runCli(['mcp', 'list'], { env: env(home) });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('typo  invalid  0 tools');
    expect(result.stdout).toContain('unknown key "excludeTool"');
    expect(result.stdout).toContain('off  disabled  0 tools');
  });

  it('says so when nothing is configured', async () => {
    const result = await runCli(['mcp', 'list'], { env: env(tempDir()) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no MCP servers configured');
  });
});

describe('minicode mcp get', () => {
  it('shows the file naming a server, its entry with credentials masked, and its state and tools once started', async () => {
    const home = tempDir();
    const secret = 'ghp_getTestTokenValue0123456789abcdefABCD';
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        mcpServers: {
          hostile: {
            command: process.execPath,
            args: [HOSTILE],
            env: { GITHUB_TOKEN: secret, OTHER: '${OTHER_TOKEN}' },
            includeTools: ['echo'],
            startupTimeoutMs: 60_000,
          },
        },
      }),
    );
    const result = await runCli(['mcp', 'get', 'hostile', '--json'], { env: env(home), timeoutMs: 90_000 });
    expect(result.code, result.stderr).toBe(0);
    const shown = JSON.parse(result.stdout);
    expect(shown).toMatchObject({
      name: 'hostile',
      file: path.join(home, 'config.json'),
      status: { state: 'ready', toolNames: ['mcp__hostile__echo'] },
    });
    expect(shown.entry.env).toEqual({ GITHUB_TOKEN: '[REDACTED]', OTHER: '${OTHER_TOKEN}' });
    expect(result.stdout + result.stderr).not.toContain(secret);
    const missing = await runCli(['mcp', 'get', 'nope'], { env: env(home) });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('known servers: hostile');
  });
});
