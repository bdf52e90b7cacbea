/**
 * MCP over HTTP: the reference `everything` server started in its Streamable HTTP and its SSE
 * modes on a free loopback port, reached by URL from the manager.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpManager } from '../../lib/mcp/manager.js';
import { context } from '../tools/helpers.js';
import { EVERYTHING, resolved, tempDir, waitFor } from './helpers.js';

const children: ChildProcess[] = [];
const managers: McpManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((m) => m.close()));
  for (const c of children) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The everything server in `mode` (streamableHttp or sse), once it says it listens. */
async function everythingOver(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  await waitFor(() => /port \d+/i.test(stderr), `the ${mode} server to listen`, 60_000);
  return port;
}

async function echoOver(config: Parameters<typeof resolved>[1]) {
  const manager = await startMcpServers([resolved('remote', config)], { env: process.env, cwd: tempDir() });
  managers.push(manager);
  const status = manager.statuses()[0]!;
  const echo = manager.tools().find((t) => t.name === 'mcp__remote__echo');
  const outcome = echo ? await echo.run({ message: 'over http' }, context(tempDir()).ctx) : undefined;
  return { status, outcome };
}

describe('MCP servers over HTTP', () => {
  it('talks Streamable HTTP to a URL server', async () => {
    const port = await everythingOver('streamableHttp');
    const { status, outcome } = await echoOver({ url: `http://127.0.0.1:${port}/mcp` });
    expect(status).toMatchObject({ state: 'ready', transport: 'http' });
    expect((outcome as { output: string }).output).toContain('over http');
  });

  it('talks SSE to a server that only has it, asked for or found by falling back', async () => {
    const port = await everythingOver('sse');
    const asked = await echoOver({ type: 'sse', url: `http://127.0.0.1:${port}/sse` });
    expect(asked.status).toMatchObject({ state: 'ready', transport: 'sse' });
    expect((asked.outcome as { output: string }).output).toContain('over http');
    const fallback = await echoOver({ url: `http://127.0.0.1:${port}/sse` });
    expect(fallback.status).toMatchObject({ state: 'ready', transport: 'sse' });
  });
});

describe('an MCP server that wants credentials', () => {
  it('is a start failure that says to run minicode mcp login (or give a token), not the SDK status line, for an untyped and an SSE entry', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"' }).end('unauthorized');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      for (const config of [
        { url: `http://127.0.0.1:${port}/mcp` },
        { type: 'sse' as const, url: `http://127.0.0.1:${port}/sse` },
      ]) {
        const manager = await startMcpServers([resolved('locked', config)], { env: process.env, cwd: tempDir() });
        managers.push(manager);
        const status = manager.statuses()[0]!;
        expect(status.state).toBe('failed');
        expect(status.error).toContain('HTTP 401');
        expect(status.error).toContain('run minicode mcp login locked');
        expect(status.error).toContain('"headers"');
        expect(status.error).not.toContain('Non-200');
      }
    } finally {
      server.close();
    }
  });
});
