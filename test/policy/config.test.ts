import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config-files.js';
import { hasCode } from '../../lib/errors.js';
import { detectVerifyCommand, resolveVerifyCommand } from '../../lib/verify/detect.js';

function dir(files: Record<string, string> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-config-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}

async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('loadConfig', () => {
  it('reads $MINICODE_HOME/config.json and returns an empty config when there is none', async () => {
    const home = dir({ 'config.json': '{"provider":"anthropic","model":"claude-sonnet-4-5"}' });
    expect((await loadConfig({ env: { MINICODE_HOME: home }, cwd: dir() })).config).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(await loadConfig({ env: {}, home: dir(), cwd: dir() })).toEqual({ config: {}, sources: [] });
  });

  it('reads ~/.config/minicode/config.json without MINICODE_HOME', async () => {
    const home = dir({ '.config/minicode/config.json': '{"maxSteps":7}' });
    expect((await loadConfig({ env: {}, home, cwd: dir() })).config).toEqual({ maxSteps: 7 });
  });

  it('ignores the local config unless allowed, and says so', async () => {
    const cwd = dir({ '.minicode/config.json': '{"provider":"ollama"}' });
    const home = dir();
    const ignored = await loadConfig({ env: { MINICODE_HOME: home }, cwd });
    expect(ignored.config).toEqual({});
    expect(ignored.ignoredLocal).toBe(path.join(cwd, '.minicode/config.json'));
    expect((await loadConfig({ env: { MINICODE_HOME: home }, cwd, allowLocalConfig: true })).config).toEqual({
      provider: 'ollama',
    });
  });

  it("reads the project's .mcp.json servers only when allowed, under .minicode/config.json, and nothing else from it", async () => {
    const cwd = dir({
      '.mcp.json': JSON.stringify({
        provider: 'ollama',
        mcpServers: { fs: { command: 'npx' }, shared: { command: 'from-mcp-json' } },
      }),
      '.minicode/config.json': JSON.stringify({ mcpServers: { shared: { command: 'from-minicode' } } }),
    });
    const home = dir({ 'config.json': JSON.stringify({ mcpServers: { user: { command: 'u' } } }) });
    const ignored = await loadConfig({ env: { MINICODE_HOME: home }, cwd });
    expect(Object.keys(ignored.config.mcpServers!)).toEqual(['user']);
    expect(ignored.ignoredLocal).toBe(`${path.join(cwd, '.minicode/config.json')}, ${path.join(cwd, '.mcp.json')}`);
    const allowed = await loadConfig({ env: { MINICODE_HOME: home }, cwd, allowLocalConfig: true });
    expect(allowed.config.provider).toBeUndefined();
    expect(allowed.config.mcpServers).toEqual({
      user: { command: 'u' },
      fs: { command: 'npx' },
      shared: { command: 'from-minicode' },
    });
    expect(allowed.mcpServerFiles).toEqual({
      user: path.join(home, 'config.json'),
      fs: path.join(cwd, '.mcp.json'),
      shared: path.join(cwd, '.minicode/config.json'),
    });
  });

  it('reports a .mcp.json without an mcpServers object as MINICODE_E_CONFIG_INVALID naming the file', async () => {
    const cwd = dir({ '.mcp.json': '{"mcpServers": []}' });
    const error = await thrown(() => loadConfig({ env: { MINICODE_HOME: dir() }, cwd, allowLocalConfig: true }));
    expect(hasCode(error, 'MINICODE_E_CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain('.mcp.json');
  });

  it('reads a config that starts with a UTF-8 byte order mark (Notepad, PowerShell)', async () => {
    const home = dir({ 'config.json': '\ufeff{"provider":"anthropic","maxSteps":3}' });
    expect((await loadConfig({ env: { MINICODE_HOME: home }, cwd: dir() })).config).toEqual({
      provider: 'anthropic',
      maxSteps: 3,
    });
  });

  it('reports invalid JSON and a wrong type as MINICODE_E_CONFIG_INVALID with an action', async () => {
    const badJson = dir({ 'config.json': '{"provider":' });
    const e1 = await thrown(() => loadConfig({ env: { MINICODE_HOME: badJson }, cwd: dir() }));
    expect(hasCode(e1, 'MINICODE_E_CONFIG_INVALID')).toBe(true);
    const badType = dir({ 'config.json': '{"maxSteps":"many"}' });
    const e2 = await thrown(() => loadConfig({ env: { MINICODE_HOME: badType }, cwd: dir() }));
    expect(hasCode(e2, 'MINICODE_E_CONFIG_INVALID')).toBe(true);
    expect((e2 as { action?: string }).action).toContain('maxSteps');
  });

  it('reports an unreadable config as MINICODE_E_CONFIG_UNREADABLE', async () => {
    const home = dir();
    fs.mkdirSync(path.join(home, 'config.json'));
    const error = await thrown(() => loadConfig({ env: { MINICODE_HOME: home }, cwd: dir() }));
    expect(hasCode(error, 'MINICODE_E_CONFIG_UNREADABLE')).toBe(true);
  });
});

describe('verify command', () => {
  const cwd = dir({ 'package.json': JSON.stringify({ scripts: { test: 'node test.js', lint: 'eslint .' } }) });

  it('is absent when --verify was not given', () => {
    expect(resolveVerifyCommand({ flag: undefined, env: { MINICODE_VERIFY_CMD: 'make check' }, cwd })).toBeUndefined();
  });

  it('prefers the flag, then MINICODE_VERIFY_CMD, then config, then detection', () => {
    expect(resolveVerifyCommand({ flag: 'bun run lint', env: { MINICODE_VERIFY_CMD: 'x' }, cwd })).toEqual({
      command: 'bun run lint',
      source: 'flag',
    });
    expect(
      resolveVerifyCommand({ flag: true, env: { MINICODE_VERIFY_CMD: 'make check' }, config: { verify: 'y' }, cwd }),
    ).toEqual({ command: 'make check', source: 'env' });
    expect(resolveVerifyCommand({ flag: true, env: {}, config: { verify: { command: 'y' } }, cwd })).toEqual({
      command: 'y',
      source: 'config',
    });
    expect(resolveVerifyCommand({ flag: true, env: {}, cwd })).toEqual({ command: 'npm test', source: 'detected' });
  });

  it("detects scripts, package managers and Makefiles, skipping npm's placeholder test", () => {
    expect(detectVerifyCommand(dir({ 'package.json': '{"scripts":{"lint":"eslint ."}}', 'bun.lock': '' }))).toBe(
      'bun run lint',
    );
    expect(
      detectVerifyCommand(
        dir({
          'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}',
          Makefile: 'test:\n\tgo test\n',
        }),
      ),
    ).toBe('make test');
    expect(detectVerifyCommand(dir({ 'package.json': '{"scripts":{"test":"vitest"}}', 'pnpm-lock.yaml': '' }))).toBe(
      'pnpm run test',
    );
    expect(detectVerifyCommand(dir())).toBeUndefined();
  });
});

describe('runVerify', () => {
  it('reports ok for a passing command and ok:false for a failing one, with the command verbatim', async () => {
    const { runVerify } = await import('../../lib/verify/run.js');
    const cwd = dir({ 'package.json': '{}' });
    const pass = await runVerify('node -e "process.exit(0)"', { cwd });
    expect(pass.report).toEqual({ active: true, ok: true, command: 'node -e "process.exit(0)"' });
    const fail = await runVerify('echo lint error; exit 1', { cwd });
    expect(fail.report.ok).toBe(false);
    expect(fail.exitCode).toBe(1);
    expect(fail.output).toContain('lint error');
  });
});
