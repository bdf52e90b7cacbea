import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventDraft } from '../../lib/events/index.js';
import { startMcpServers, type McpManager } from '../../lib/mcp/manager.js';
import { MCP_OUTPUT_MAX_CHARS } from '../../lib/mcp/output.js';
import type { AnyTool, ToolContext } from '../../lib/tools/types.js';
import { context } from '../tools/helpers.js';
import {
  alive,
  EVERYTHING,
  FILESYSTEM,
  HOSTILE,
  nodeServer,
  pidsIn,
  processesTagged,
  resolved,
  tempDir,
  waitFor,
} from './helpers.js';

const open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function start(servers: Parameters<typeof startMcpServers>[0], env: NodeJS.ProcessEnv = process.env) {
  const manager = await startMcpServers(servers, { env, cwd: tempDir(), killGraceMs: 500 });
  open.push(manager);
  const diagnostics: EventDraft[] = [];
  manager.attach((d) => diagnostics.push(d));
  return { manager, diagnostics };
}

function tool(manager: McpManager, name: string): AnyTool {
  const found = manager.tools().find((t) => t.name === name);
  if (!found)
    throw new Error(
      `no tool ${name} among ${manager
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return found;
}

function ctx(overrides: Partial<ToolContext> = {}): ToolContext {
  return context(tempDir(), overrides).ctx;
}

const codes = (ds: EventDraft[]) => ds.map((d) => (d.payload as { code: string }).code);
const messages = (ds: EventDraft[]) => ds.map((d) => (d.payload as { message: string }).message);

describe('MCP servers in a run', () => {
  it('lists the reference servers and the hostile one as gated mcp__<server>__<tool> tools naming their server', async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from the filesystem server');
    const { manager } = await start([
      resolved('everything', nodeServer(EVERYTHING, ['stdio'])),
      resolved('fs', nodeServer(FILESYSTEM, [root])),
      resolved('hostile', nodeServer(HOSTILE)),
    ]);
    expect(manager.statuses().map((s) => [s.name, s.state, s.transport])).toEqual([
      ['everything', 'ready', 'stdio'],
      ['fs', 'ready', 'stdio'],
      ['hostile', 'ready', 'stdio'],
    ]);
    const names = manager.tools().map((t) => t.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__fs__read_text_file');
    expect(names).toContain('mcp__hostile__echo');
    for (const t of manager.tools()) {
      expect(t.gated).toBe(true);
      expect(t.name.length).toBeLessThanOrEqual(64);
      expect(t.jsonSchema).toMatchObject({ type: 'object' });
    }
    expect(tool(manager, 'mcp__hostile__echo').server).toBe('hostile');
    const echoed = await tool(manager, 'mcp__everything__echo').run({ message: 'ping' }, ctx());
    expect(echoed).toMatchObject({ status: 'completed' });
    expect((echoed as { output: string }).output).toContain('ping');
    const read = await tool(manager, 'mcp__fs__read_text_file').run({ path: path.join(root, 'hello.txt') }, ctx());
    expect((read as { output: string }).output).toContain('hello from the filesystem server');
  });

  it('caps a 5 MB result at 100,000 characters with a marker, and shows bytes that are no image as a placeholder saying why', async () => {
    const { manager } = await start([resolved('hostile', nodeServer(HOSTILE))]);
    const big = await tool(manager, 'mcp__hostile__big').run({}, ctx());
    if (big.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(big).slice(0, 300)}`);
    expect(big.output.length).toBeLessThan(MCP_OUTPUT_MAX_CHARS + 200);
    expect(big.output).toMatch(/\[\.\.\. \d+ characters truncated by minicode \.\.\.\]/);
    expect(big.receipt).toMatchObject({ bytes: 5 * 1024 * 1024, truncated: true });
    const image = await tool(manager, 'mcp__hostile__image').run({}, ctx());
    if (image.status !== 'completed') throw new Error('expected completed');
    expect(image.output).toMatch(
      /^a picture:\n\[image image\/png, 3000 bytes, not shown: not a PNG, JPEG, GIF or WebP image/,
    );
  });

  it('reports isError as a failure carrying the server message', async () => {
    const { manager } = await start([resolved('hostile', nodeServer(HOSTILE))]);
    const failed = await tool(manager, 'mcp__hostile__fail').run({}, ctx());
    expect(failed).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: 'hostile: disk quota exceeded on /data',
    });
  });

  it('gives a stdio server a minimal environment plus its config env: credentials stay out unless configured', async () => {
    const env = {
      ...process.env,
      GITHUB_TOKEN: 'ghp_machineTokenValue1234567890abcdef',
      OPENAI_API_KEY: 'sk-machine-key-0123456789',
      PASS_ME: 'passed-through',
    };
    const { manager } = await start(
      [
        resolved('plain', nodeServer(HOSTILE)),
        resolved(
          'given',
          nodeServer(HOSTILE, [], { env: { GITHUB_TOKEN: 'ghp_machineTokenValue1234567890abcdef', MODE: 'x' } }),
        ),
      ],
      env,
    );
    const plain = await tool(manager, 'mcp__plain__env').run({ name: 'GITHUB_TOKEN' }, ctx());
    const report = JSON.parse((plain as { output: string }).output) as { names: string[]; value: string | null };
    expect(report.value).toBeNull();
    expect(report.names).not.toContain('OPENAI_API_KEY');
    expect(report.names).not.toContain('PASS_ME');
    expect(report.names).toContain('PATH');
    const given = await tool(manager, 'mcp__given__env').run({ name: 'GITHUB_TOKEN' }, ctx());
    // Passed on purpose, and still masked in what the tool returns.
    expect((given as { output: string }).output).toContain('"value":"[REDACTED]"');
    expect((given as { output: string }).output).toContain('MODE');
  });

  it('keeps a working server when a broken one beside it fails: one diagnostic naming the broken one', async () => {
    const { manager, diagnostics } = await start([
      resolved('broken', nodeServer(HOSTILE, ['--exit-at-start'])),
      resolved('good', nodeServer(HOSTILE)),
    ]);
    expect(manager.statuses().map((s) => [s.name, s.state])).toEqual([
      ['broken', 'failed'],
      ['good', 'ready'],
    ]);
    expect(manager.tools().every((t) => t.server === 'good')).toBe(true);
    const starts = diagnostics.filter((d) => (d.payload as { code: string }).code === 'MINICODE_E_MCP_START');
    expect(starts).toHaveLength(1);
    expect(messages(starts)[0]).toContain('broken');
    // Its stderr reached diagnostics, not the terminal.
    await waitFor(() => messages(diagnostics).some((m) => m.includes('exiting at start')), 'the broken server stderr');
  });

  it('says which command exited at start, with its exit code and last stderr lines, secrets masked', async () => {
    const script =
      "console.error('loading'); console.error('token ' + process.env.API_TOKEN); console.error('bad key ghp_' + 'a'.repeat(36)); process.exit(3)";
    const { manager, diagnostics } = await start([
      resolved('dying', nodeServer('-e', [script], { env: { API_TOKEN: 'configured-secret-value-123' } }) as never),
    ]);
    const error = manager.statuses()[0]?.error ?? '';
    expect(error).toContain(`\`${process.execPath} -e`);
    expect(error).toContain('exited with code 3 before it answered');
    expect(error).toContain('"loading" / "token ');
    expect(error).not.toContain('configured-secret-value-123');
    expect(error).not.toContain('a'.repeat(36));
    const start_ = messages(
      diagnostics.filter((d) => (d.payload as { code: string }).code === 'MINICODE_E_MCP_START'),
    )[0];
    expect(start_).toContain('MCP server dying failed to start: ');
    expect(start_).not.toContain('configured-secret-value-123');
  });

  it('names the URL and the refused address of a URL server nobody listens on', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { manager } = await start([
      resolved('gone', { type: 'http', url: `http://127.0.0.1:${port}/mcp?token=abc` }),
    ]);
    const error = manager.statuses()[0]?.error ?? '';
    expect(error).toContain(`http://127.0.0.1:${port}/mcp: `);
    expect(error).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(error).not.toContain('token=abc');
  });

  it('gives up on a server slower than its start-up timeout and leaves no process behind', async () => {
    // A tag on the command line finds the process whether or not it got as far as running our code.
    const tag = `slow-start-tag-${process.pid}-${Date.now()}`;
    const { manager, diagnostics } = await start([
      resolved('slow', nodeServer(HOSTILE, ['--slow-start', '600000', '--tag', tag]), { startupTimeoutMs: 1_500 }),
    ]);
    expect(manager.statuses()[0]).toMatchObject({ state: 'failed', error: 'did not start within 1500 ms' });
    expect(codes(diagnostics)).toContain('MINICODE_E_MCP_START');
    await waitFor(() => processesTagged(tag).length === 0, 'the slow server to be gone');
  });

  it('fails a call whose server crashes mid-call, reports its exit code, and later calls say the server is not running', async () => {
    const { manager, diagnostics } = await start([resolved('hostile', nodeServer(HOSTILE))]);
    const crashed = await tool(manager, 'mcp__hostile__crash').run({}, ctx());
    expect(crashed).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    await waitFor(() => codes(diagnostics).includes('MINICODE_E_MCP_EXITED'), 'the exit diagnostic');
    expect(manager.statuses()[0]).toMatchObject({
      state: 'exited',
      error: expect.stringMatching(/^exited with code 7/),
    });
    const after = await tool(manager, 'mcp__hostile__echo').run({ text: 'x' }, ctx());
    expect(after).toMatchObject({ status: 'failed', message: 'MCP server hostile is not running' });
  });

  it('times out a call that never answers and tells the server it was cancelled', async () => {
    const { manager, diagnostics } = await start([resolved('hostile', nodeServer(HOSTILE), { toolTimeoutMs: 1_000 })]);
    const outcome = await tool(manager, 'mcp__hostile__hang').run({}, ctx());
    expect(outcome).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: 'mcp__hostile__hang timed out after 1000 ms without progress',
    });
    await waitFor(
      () => messages(diagnostics).some((m) => m.includes('hang: cancelled by the client')),
      'notifications/cancelled at the server',
    );
  });

  it('sends notifications/cancelled with a readable reason when the run aborts a call', async () => {
    const { manager, diagnostics } = await start([resolved('hostile', nodeServer(HOSTILE))]);
    const abort = new AbortController();
    const pending = tool(manager, 'mcp__hostile__hang').run({}, ctx({ signal: abort.signal }));
    await waitFor(() => messages(diagnostics).some((m) => m.includes('hang: started')), 'the call to reach the server');
    // The run aborts with an object, as its termination does.
    abort.abort({ kind: 'aborted' });
    expect((await pending).status).toBe('failed');
    await waitFor(
      () => messages(diagnostics).some((m) => m.includes('hang: cancelled by the client')),
      'notifications/cancelled at the server',
    );
    const line = messages(diagnostics).find((m) => m.includes('hang: cancelled by the client'))!;
    expect(line).toContain('(minicode cancelled the call: aborted)');
    expect(line).not.toContain('[object Object]');
  });

  it('lets progress notifications extend the call deadline', async () => {
    const { manager } = await start([resolved('hostile', nodeServer(HOSTILE), { toolTimeoutMs: 3_000 })]);
    // 8 steps of 500 ms: 4 s in all, longer than the deadline, but never 3 s without progress.
    const outcome = await tool(manager, 'mcp__hostile__progress').run({ steps: 8, delayMs: 500 }, ctx());
    expect(outcome).toMatchObject({ status: 'completed', output: 'done after 8 steps' });
  });

  it('lists a huge tool list across pages and refreshes it on tools/list_changed', async () => {
    const { manager } = await start([resolved('hostile', nodeServer(HOSTILE, ['--many-tools', '1500']))]);
    expect(manager.tools().length).toBe(1000);
    expect(manager.statuses()[0]!.tools).toHaveLength(1000);
    await tool(manager, 'mcp__hostile__add_tool').run({}, ctx());
    // Past the 1,000-tool bound the late tool is not kept; a small server shows the refresh.
    const small = await start([resolved('h2', nodeServer(HOSTILE))]);
    await tool(small.manager, 'mcp__h2__add_tool').run({}, ctx());
    await waitFor(
      () => small.manager.tools().some((t) => t.name === 'mcp__h2__late_tool'),
      'the late tool after list_changed',
    );
  });

  it('applies includeTools and excludeTools', async () => {
    const { manager } = await start([
      resolved('hostile', nodeServer(HOSTILE, [], { includeTools: ['echo', 'env', 'big'], excludeTools: ['big'] })),
    ]);
    expect(manager.tools().map((t) => t.name)).toEqual(['mcp__hostile__echo', 'mcp__hostile__env']);
  });

  it('closes every server process (SIGTERM, then SIGKILL)', async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const { manager } = await start([
      resolved('a', nodeServer(HOSTILE, ['--pid-file', pidFile])),
      resolved('b', nodeServer(HOSTILE, ['--pid-file', pidFile])),
    ]);
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    await manager.close();
    await waitFor(() => pids.every((p) => !alive(p)), 'both servers to be gone');
  });
});
