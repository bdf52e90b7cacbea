/**
 * MCP servers in `minicode exec` end to end: the compiled CLI as a subprocess, a provider
 * replayed over loopback from hand-made cassettes (test/cassettes/mcp-*), and real MCP servers
 * (our hostile one) started from the user config.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { startReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import {
  checkContract,
  cleanEnv,
  contentTypeOf,
  execJson,
  ofType,
  scratchProject,
  TEST_CASSETTES,
  turnBody,
} from '../exec/helpers.js';
import { alive, HOSTILE, pidsIn, tempDir, waitFor } from './helpers.js';

const TOKEN = 'ghp_mcpTestTokenValue0123456789abcdefABCD';

function home(config: Record<string, unknown>): string {
  const dir = tempDir('minicode-home-');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

// A generous start-up deadline: the suite shares a loaded machine, and starting is not what these tests time.
// A server that writes its pid file runs unsandboxed: the sandbox would keep the file in its private /tmp and show a pid of its own namespace.
const hostile = (args: string[] = []) => ({
  command: process.execPath,
  args: [HOSTILE, ...args],
  startupTimeoutMs: 60_000,
  ...(args.includes('--pid-file') ? { sandbox: 'off' } : {}),
});
const cassette = (name: string) => ['--provider', 'replay', '--cassette', path.join(TEST_CASSETTES, name)];

describe('MCP tools in minicode exec', () => {
  it('denies MCP tools without a TTY with a reason, names the server, and keeps going past a broken server', async () => {
    const h = home({ mcpServers: { broken: hostile(['--exit-at-start']), hostile: hostile() } });
    const run = await execJson(cassette('mcp-tools'), { cwd: scratchProject(), home: h, env: { GITHUB_TOKEN: TOKEN } });
    expect(run.code, run.stderr).toBe(0);
    const denied = ofType(run.records, 'tool.denied');
    expect(denied).toHaveLength(5);
    for (const d of denied) {
      expect(d.payload.server).toBe('hostile');
      expect(d.payload.reason).toMatch(/no TTY/);
      expect(d.payload.reason).toContain('approval.allowTools');
    }
    const starts = ofType(run.records, 'diagnostic.raised').filter((d) => d.payload.code === 'MINICODE_E_MCP_START');
    expect(starts).toHaveLength(1);
    expect(starts[0]!.payload.message).toContain('broken');
    expect(run.summary).toMatchObject({ ok: true, tools: { denied: 5 } });
  });

  it('runs allowlisted MCP tools: capped, scrubbed, isError as tool.failed, no credential in the server env', async () => {
    const h = home({ approval: { mode: 'auto', allowTools: ['mcp__hostile__*'] }, mcpServers: { hostile: hostile() } });
    const run = await execJson(cassette('mcp-tools'), { cwd: scratchProject(), home: h, env: { GITHUB_TOKEN: TOKEN } });
    expect(run.code, run.stderr).toBe(0);
    const started = ofType(run.records, 'tool.started');
    expect(started.map((s) => s.payload.server)).toEqual(['hostile', 'hostile', 'hostile', 'hostile', 'hostile']);
    const completed = new Map(ofType(run.records, 'tool.completed').map((c) => [c.payload.name, c.payload]));
    expect(completed.get('mcp__hostile__echo').output).toBe('echo: hello over MCP');
    expect(JSON.parse(completed.get('mcp__hostile__env').output).value).toBeNull();
    expect(completed.get('mcp__hostile__big').receipt).toMatchObject({ truncated: true });
    expect(completed.get('mcp__hostile__image').output).toContain('[image image/png');
    const failed = ofType(run.records, 'tool.failed');
    expect(failed.map((f) => [f.payload.name, f.payload.message])).toEqual([
      ['mcp__hostile__fail', 'hostile: disk quota exceeded on /data'],
    ]);
    expect(run.stdout).not.toContain(TOKEN);
    expect(run.summary).toMatchObject({ ok: true, tools: { completed: 4, failed: 1 } });
  });

  it('offers a tool a server adds mid-run (tools/list_changed) at the very next step', async () => {
    const turns = [
      { text: 'Adding a tool.', calls: [{ id: 'toolu_lc_1', name: 'mcp__hostile__add_tool', args: {} }] },
      { text: 'Using it.', calls: [{ id: 'toolu_lc_2', name: 'mcp__hostile__late_tool', args: {} }] },
      { text: 'Done.' },
    ];
    const server = await startReplayServer(
      turns.map((t, i) => streamOk(turnBody('anthropic', t, i + 1), contentTypeOf('anthropic'))),
    );
    try {
      const h = home({
        approval: { mode: 'auto', allowTools: ['mcp__hostile__*'] },
        mcpServers: { hostile: hostile() },
      });
      const env = { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-mcp-0123456789' };
      const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), home: h, env });
      expect(run.code, run.stderr).toBe(0);
      const toolsSent = server.requests.map((r) => (JSON.parse(r.body).tools as { name: string }[]).map((t) => t.name));
      expect(toolsSent[0]).not.toContain('mcp__hostile__late_tool');
      expect(toolsSent[1]).toContain('mcp__hostile__late_tool');
      const completed = ofType(run.records, 'tool.completed').map((c) => [c.payload.name, c.payload.output]);
      expect(completed).toEqual([
        ['mcp__hostile__add_tool', 'added late_tool'],
        ['mcp__hostile__late_tool', 'late'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('skips only the entries it cannot use, each named in a diagnostic, never starts a disabled one, and runs a trusted server without asking', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const h = home({
      mcpServers: {
        typo: { ...hostile(), excludeTool: ['big'] },
        gemini: { httpUrl: 'http://127.0.0.1:9/mcp', timeout: 5000, oauthScopes: ['x'] },
        off: { ...hostile(['--pid-file', pidFile]), disabled: true },
        hostile: { ...hostile(), trust: true },
      },
    });
    const run = await execJson(cassette('mcp-tools'), { cwd: scratchProject(), home: h });
    expect(run.code, run.stderr).toBe(0);
    const entries = ofType(run.records, 'diagnostic.raised').filter((d) => d.payload.code === 'MINICODE_E_MCP_ENTRY');
    expect(entries.map((d) => d.payload.message)).toEqual([
      expect.stringContaining('mcpServers.typo: unknown key "excludeTool"'),
      expect.stringContaining('mcpServers.gemini: unknown key "oauthScopes"'),
    ]);
    expect(pidsIn(pidFile)).toHaveLength(0);
    expect(ofType(run.records, 'tool.denied')).toHaveLength(0);
    expect(ofType(run.records, 'tool.completed').map((c) => c.payload.name)).toContain('mcp__hostile__echo');
    expect(run.summary).toMatchObject({ ok: true, tools: { completed: 4, failed: 1 } });
  });

  it('masks a credential the config passes to a server on purpose', async () => {
    const h = home({
      approval: { mode: 'auto', allowTools: ['mcp__hostile__env'] },
      mcpServers: { hostile: { ...hostile(), env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } },
    });
    const run = await execJson(cassette('mcp-tools'), { cwd: scratchProject(), home: h, env: { GITHUB_TOKEN: TOKEN } });
    const env = ofType(run.records, 'tool.completed').find((c) => c.payload.name === 'mcp__hostile__env')!;
    expect(JSON.parse(env.payload.output).value).not.toBeNull();
    expect(run.stdout).not.toContain(TOKEN);
  });

  it('starts servers of a workspace .minicode/config.json only with --allow-local-config', async () => {
    const cwd = scratchProject();
    const pidFile = path.join(tempDir(), 'pids');
    fs.mkdirSync(path.join(cwd, '.minicode'));
    fs.writeFileSync(
      path.join(cwd, '.minicode/config.json'),
      JSON.stringify({ mcpServers: { hostile: hostile(['--pid-file', pidFile]) } }),
    );
    const ignored = await execJson(cassette('mcp-tools'), { cwd });
    expect(pidsIn(pidFile)).toHaveLength(0);
    expect(ofType(ignored.records, 'tool.failed').map((f) => f.payload.message)).toContain(
      'unknown tool mcp__hostile__echo',
    );
    const trusted = await execJson([...cassette('mcp-tools'), '--allow-local-config'], { cwd });
    expect(pidsIn(pidFile)).toHaveLength(1);
    expect(ofType(trusted.records, 'tool.denied')).toHaveLength(5);
  });

  it("starts the servers of the project's .mcp.json only with --allow-local-config, and names the file when one is skipped", async () => {
    const cwd = scratchProject();
    const pidFile = path.join(tempDir(), 'pids');
    fs.writeFileSync(
      path.join(cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: { hostile: hostile(['--pid-file', pidFile]), typo: { command: 'x', disabeld: true } },
      }),
    );
    const ignored = await execJson(cassette('mcp-tools'), { cwd });
    expect(pidsIn(pidFile)).toHaveLength(0);
    expect(
      ofType(ignored.records, 'diagnostic.raised').find((d) => d.payload.code === 'MINICODE_E_LOCAL_CONFIG_IGNORED')!
        .payload.message,
    ).toContain('.mcp.json');
    const trusted = await execJson([...cassette('mcp-tools'), '--allow-local-config'], { cwd });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(pidsIn(pidFile)).toHaveLength(1);
    expect(ofType(trusted.records, 'tool.denied')).toHaveLength(5);
    const entry = ofType(trusted.records, 'diagnostic.raised').find((d) => d.payload.code === 'MINICODE_E_MCP_ENTRY')!;
    expect(entry.payload.message).toContain(
      `${path.join(cwd, '.mcp.json')}: mcpServers.typo: unknown key "disabeld" (did you mean "disabled"?)`,
    );
  });

  it.each([
    ['one SIGINT (a server ignoring SIGTERM gets SIGKILL after the grace)', 1],
    ['a second SIGINT while closing (the exit hook SIGKILLs the groups)', 2],
  ])('leaves no server process behind after %s', async (_what, interrupts) => {
    const pidFile = path.join(tempDir(), 'pids');
    const h = home({
      approval: { mode: 'auto', allowTools: ['mcp__hostile__*'] },
      mcpServers: {
        a: hostile(['--pid-file', pidFile, '--ignore-sigterm']),
        hostile: hostile(['--pid-file', pidFile]),
      },
    });
    const child = spawn(
      process.execPath,
      [CLI, 'exec', 'wait', '--json', '--cwd', scratchProject(), ...cassette('mcp-hang')],
      {
        env: { ...process.env, NO_COLOR: '1', ...cleanEnv(h) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitFor(() => stdout.includes('hang: started'), 'the call to reach the server', 60_000);
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(2);
    child.kill('SIGINT');
    if (interrupts === 2) {
      // The summary is out: the run settled and the servers are closing (a 2 s grace for the one ignoring SIGTERM).
      await waitFor(() => stdout.includes('"type":"summary"'), 'the run to settle', 60_000);
      child.kill('SIGINT');
    }
    expect(await closed).toBe(130);
    if (interrupts === 1) {
      checkContract(stdout);
      expect(stdout).toContain('"type":"tool.cancelled"');
    }
    await waitFor(() => pids.every((p) => !alive(p)), 'every server process to be gone');
  });
});

describe('a hang-up while exec starts its MCP servers', () => {
  it('exits 130 and leaves no server process behind', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const h = home({ mcpServers: { slow: hostile(['--slow-start', '600000', '--pid-file', pidFile]) } });
    const child = spawn(
      process.execPath,
      [CLI, 'exec', 'wait', '--json', '--cwd', scratchProject(), ...cassette('mcp-hang')],
      {
        env: { ...process.env, NO_COLOR: '1', ...cleanEnv(h) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The server is running and exec is waiting for it to answer: before the run has begun.
    await waitFor(() => pidsIn(pidFile).length === 1, 'the server to start', 60_000);
    const [pid] = pidsIn(pidFile);
    child.kill('SIGHUP');
    expect(await closed).toBe(130);
    await waitFor(() => !alive(pid!), 'the server process to be gone');
  });
});

describe('MCP servers in minicode batch', () => {
  it('starts each configured server once per process and shares it across the runs', async () => {
    const dir = tempDir('minicode-batch-mcp-');
    const pidFile = path.join(dir, 'pids');
    const h = home({
      approval: { mode: 'auto', allowTools: ['mcp__hostile__echo'] },
      mcpServers: { hostile: hostile(['--pid-file', pidFile]) },
    });
    const input = path.join(dir, 'prompts.jsonl');
    fs.writeFileSync(
      input,
      ['a', 'b', 'c']
        .map((id) => JSON.stringify({ id, prompt: `use the tools (${id})`, cwd: scratchProject() }))
        .join('\n') + '\n',
    );
    const out = path.join(dir, 'out');
    const result = await runCli(
      ['batch', input, '--threads', '2', '--out', out, '--store', path.join(dir, 'store'), ...cassette('mcp-tools')],
      { env: cleanEnv(h), cwd: dir, timeoutMs: 120_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('share them on the main thread');
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(1);
    const records = fs
      .readFileSync(path.join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.id).sort()).toEqual(['a', 'b', 'c']);
    await waitFor(() => !alive(pids[0]!), 'the shared server to be gone');
  });
});
