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
    const stdio = await runCli(['mcp', 'add', 'fs', 'npx', '--env', 'TOKEN=${MY_TOKEN}', '--tool-timeout', '30000', '--', '-y', '@modelcontextprotocol/server-filesystem', '/tmp'], { env: env(home) });
    expect(stdio.code, stdio.stderr).toBe(0);
    const url = await runCli(['mcp', 'add', 'remote', 'https://example.com/mcp', '--header', 'Authorization: Bearer ${API_TOKEN}'], { env: env(home) });
    expect(url.code, url.stderr).toBe(0);
    expect(readConfig(home)).toEqual({
      provider: 'anthropic',
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { TOKEN: '${MY_TOKEN}' }, toolTimeoutMs: 30000 },
        remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
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

  it('says so when nothing is configured', async () => {
    const result = await runCli(['mcp', 'list'], { env: env(tempDir()) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('no MCP servers configured');
  });
});
