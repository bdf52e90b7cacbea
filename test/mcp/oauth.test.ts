/**
 * OAuth for remote MCP servers end to end: the compiled CLI against an OAuth-protected MCP
 * server on loopback (test/mcp/oauth-server.ts: the SDK's authorization router and bearer
 * middleware in front of a Streamable HTTP server). `minicode mcp login` registers itself, prints
 * the authorization URL, and the test plays the browser with plain HTTP: it opens the URL, is
 * redirected to minicode's loopback callback and follows the redirect. Runs then call the
 * server's tools with the stored token, refresh it when the server refuses it, and say to log in
 * again when the refresh is refused too. Nothing of a token reaches stdout, stderr, the provider
 * or the store.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliResult } from '../helpers/cli.js';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { cleanEnv, contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from '../exec/helpers.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './oauth-server.js';
import { waitFor } from './helpers.js';

let mcp: OAuthMcpServer;
const replays: ReplayServer[] = [];
beforeAll(async () => {
  mcp = await startOAuthMcpServer();
});
afterAll(async () => {
  await Promise.all(replays.map((r) => r.close()));
  await mcp?.close();
});

const turn = (t: { text?: string; calls?: { id: string; name: string; args: unknown }[] }, n: number): Exchange =>
  streamOk(turnBody('anthropic', t, n), contentTypeOf('anthropic'));

/** A provider on loopback whose model calls the server's two tools, then answers. */
async function modelCallingTools(): Promise<ReplayServer> {
  const server = await startReplayServer([
    turn(
      {
        text: 'Calling the server.',
        calls: [
          { id: 'toolu_oauth_1', name: 'mcp__secure__echo', args: { text: 'hello with a login' } },
          { id: 'toolu_oauth_2', name: 'mcp__secure__whoami', args: {} },
        ],
      },
      1,
    ),
    turn({ text: 'Done.' }, 2),
  ]);
  replays.push(server);
  return server;
}

function homeWith(url: string): string {
  const home = tempDir('minicode-oauth-home-');
  fs.writeFileSync(
    path.join(home, 'config.json'),
    JSON.stringify({
      approval: { mode: 'auto', allowTools: ['mcp__secure__*'] },
      mcpServers: { secure: { url, startupTimeoutMs: 60_000 } },
    }),
  );
  return home;
}

async function run(home: string) {
  const model = await modelCallingTools();
  const env = { ANTHROPIC_BASE_URL: model.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-oauth-0123456789' };
  const result = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), home, env });
  return { ...result, requests: model.requests.map((r) => r.body).join('\n') };
}

/**
 * `minicode mcp login secure --no-browser`, with the test as the browser: the authorization URL
 * read from stderr, a forged answer with a wrong state refused, the real one followed.
 */
async function loginAsBrowser(home: string): Promise<{ result: CliResult; forged: number; page: string }> {
  const child = spawn(process.execPath, [CLI, 'mcp', 'login', 'secure', '--no-browser', '--timeout', '60000'], {
    env: { ...process.env, NO_COLOR: '1', ...cleanEnv(home) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.test(stderr), 'the authorization URL', 60_000);
    const authorizeUrl = /http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(stderr)![0];
    const consent = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location')!);
    expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(callback.pathname).toBe('/callback');
    const forgedUrl = new URL(callback);
    forgedUrl.searchParams.set('state', 'not-the-state');
    const forged = (await fetch(forgedUrl)).status;
    const answer = await fetch(callback);
    const page = await answer.text();
    return { result: await exited, forged, page };
  } finally {
    clearTimeout(timer);
    child.kill('SIGKILL');
  }
}

/** Every byte under `dir`, as latin1 text to search. */
function bytesUnder(dir: string): string {
  const texts: string[] = [];
  for (const file of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, file);
    if (fs.statSync(full).isFile()) texts.push(fs.readFileSync(full).toString('latin1'));
  }
  return texts.join('\n');
}

const startFailures = (records: Record<string, unknown>[]) =>
  ofType(records, 'diagnostic.raised').filter((d) => d.payload.code === 'MINICODE_E_MCP_START');

describe('OAuth login to a remote MCP server', () => {
  it('logs in through the browser flow, calls tools with the token, refreshes it when the server refuses it, and never shows a token', async () => {
    const home = homeWith(mcp.url);
    const outputs: string[] = [];

    // Before any login the server's 401 says what to do.
    const before = await run(home);
    expect(before.code, before.stderr).toBe(0);
    const refused = startFailures(before.records);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.payload.message).toContain('run minicode mcp login secure');
    expect(refused[0]!.payload.message).not.toMatch(/Non-200 status code/);

    const login = await loginAsBrowser(home);
    outputs.push(login.result.stdout, login.result.stderr);
    expect(login.result.code, login.result.stderr).toBe(0);
    expect(login.forged).toBe(400);
    expect(login.page).toContain('logged in');
    expect(login.result.stderr).toContain('logged in to MCP server secure');
    expect(mcp.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1, refreshes: 0 });

    // The login is the user's alone.
    const dir = path.join(home, 'mcp-oauth');
    const file = path.join(dir, 'secure.json');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ url: mcp.url, tokens: { token_type: 'bearer' } });
    expect(mcp.issued()).toContain(stored.tokens.access_token);

    // A run uses the stored token: both tools answer; the one that echoes the token has it masked.
    const first = await run(home);
    outputs.push(first.stdout, first.stderr, first.requests);
    expect(first.code, first.stderr).toBe(0);
    expect(startFailures(first.records)).toEqual([]);
    const completed = new Map(ofType(first.records, 'tool.completed').map((c) => [c.payload.name, c.payload.output]));
    expect(completed.get('mcp__secure__echo')).toBe('echo: hello with a login');
    expect(completed.get('mcp__secure__whoami')).toBe('called with [REDACTED]');
    expect(mcp.counts.refreshes).toBe(0);

    // The server lets every access token lapse: the next run is refused once, refreshes, and goes on.
    mcp.expireAccessTokens();
    const refusedBefore = mcp.counts.refused;
    const second = await run(home);
    outputs.push(second.stdout, second.stderr, second.requests);
    expect(second.code, second.stderr).toBe(0);
    expect(startFailures(second.records)).toEqual([]);
    expect(ofType(second.records, 'tool.completed').map((c) => c.payload.output)).toContain('echo: hello with a login');
    expect(mcp.counts.refreshes).toBe(1);
    expect(mcp.counts.refused).toBe(refusedBefore + 1);
    expect(mcp.counts.authorizations).toBe(1);
    const refreshed = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(refreshed.tokens.access_token).not.toBe(stored.tokens.access_token);
    expect(refreshed.tokens.refresh_token).not.toBe(stored.tokens.refresh_token);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    // Every token refused, refresh included: the run says to log in again.
    mcp.revokeAll();
    const third = await run(home);
    outputs.push(third.stdout, third.stderr, third.requests);
    expect(third.code, third.stderr).toBe(0);
    const again = startFailures(third.records);
    expect(again).toHaveLength(1);
    expect(again[0]!.payload.message).toContain('run minicode mcp login secure');

    // No token, access or refresh, anywhere a person or a provider reads, nor in the store.
    const store = bytesUnder(path.join(home, 'store'));
    expect(store.length).toBeGreaterThan(0);
    expect(mcp.issued().length).toBeGreaterThanOrEqual(4);
    for (const value of mcp.issued()) {
      for (const [where, text] of [
        ['the store', store],
        ['stdout, stderr and the provider requests', outputs.join('\n')],
      ] as const)
        expect(text.includes(value), `${where} holds a token`).toBe(false);
    }

    // Logout forgets the login.
    const logout = await runCli(['mcp', 'logout', 'secure'], { env: cleanEnv(home) });
    expect(logout.code, logout.stderr).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
  }, 240_000);
});

/** `minicode mcp login NAME` with the test as a browser that only reads the authorization URL, then does `act` with it. */
async function loginWith(
  home: string,
  args: string[],
  act: (authorizeUrl: URL) => Promise<void> = async () => {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, 'mcp', 'login', ...args, '--no-browser'], {
    env: { ...process.env, NO_COLOR: '1', ...cleanEnv(home) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    await waitFor(
      () => /http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.test(stderr) || child.exitCode !== null,
      'the authorization URL or the end of the login',
      60_000,
    );
    const found = /http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(stderr);
    if (found) await act(new URL(found[0]));
    return await exited;
  } finally {
    clearTimeout(timer);
    child.kill('SIGKILL');
  }
}

describe('minicode mcp login when it cannot log in', () => {
  it('names an unknown server (exit 1) and refuses a stdio server (exit 2)', async () => {
    const home = tempDir('minicode-oauth-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ mcpServers: { local: { command: 'node', args: ['server.js'] } } }),
    );
    const unknown = await runCli(['mcp', 'login', 'nope', '--no-browser'], { env: cleanEnv(home) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('known servers: local');
    const stdio = await runCli(['mcp', 'login', 'local', '--no-browser'], { env: cleanEnv(home) });
    expect(stdio.code).toBe(2);
    expect(fs.existsSync(path.join(home, 'mcp-oauth'))).toBe(false);
  });

  it('fails with one line when the server offers no OAuth, keeping nothing', async () => {
    const plain = http.createServer((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const home = homeWith(`http://127.0.0.1:${(plain.address() as net.AddressInfo).port}/mcp`);
      const r = await runCli(['mcp', 'login', 'secure', '--no-browser'], { env: cleanEnv(home) });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('login to MCP server secure failed: the server offers no login minicode can use');
      expect(fs.existsSync(path.join(home, 'mcp-oauth', 'secure.json'))).toBe(false);
    } finally {
      plain.close();
    }
  });

  it('reports the authorization server refusing, and a browser that never answers within --timeout', async () => {
    const home = homeWith(mcp.url);
    const refused = await loginWith(home, ['secure', '--timeout', '60000'], async (authorizeUrl) => {
      const callback = new URL(authorizeUrl.searchParams.get('redirect_uri')!);
      callback.searchParams.set('state', authorizeUrl.searchParams.get('state')!);
      callback.searchParams.set('error', 'access_denied');
      callback.searchParams.set('error_description', 'the user said no');
      expect((await fetch(callback)).status).toBe(400);
    });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toContain('the authorization server refused: access_denied: the user said no');
    expect(fs.existsSync(path.join(home, 'mcp-oauth', 'secure.json'))).toBe(false);

    const silent = await loginWith(home, ['secure', '--timeout', '1000']);
    expect(silent.code, silent.stderr).toBe(1);
    expect(silent.stderr).toContain('no answer from the browser within 1 s');
  }, 120_000);
});
