/**
 * `sandbox.network.allow`: a scripted model's `bash` reaches a named host through minicode's
 * allowlisting proxy (plain HTTP forward and a CONNECT tunnel), is refused a host that is not
 * named (403, and the tool result names the host), and still cannot connect directly. The
 * "hosts" are one real loopback HTTP server reached as `localhost` (named) and as `127.0.0.1`
 * (not named); the same commands with `--sandbox off` reach it every time, so the test proves
 * the proxy and not a broken command. Real bubblewrap and curl; skipped, saying so, without them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostAllowed } from '../../lib/sandbox/network-proxy.js';
import { bwrapSkipNote, closeServers, execBash, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/network-allow.test.ts');
afterAll(closeServers);

const HAVE_CURL = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
if (!HAVE_CURL) console.warn('test/sandbox/network-allow.test.ts: the proxy round is skipped, curl is not installed');

describe('a host allowlist', () => {
  it('matches names exactly and *.name below name only, whatever the case or a trailing dot', () => {
    const allow = ['registry.npmjs.org', '*.github.com'];
    expect(hostAllowed('registry.npmjs.org', allow)).toBe(true);
    expect(hostAllowed('Registry.NPMJS.org.', allow)).toBe(true);
    expect(hostAllowed('api.github.com', allow)).toBe(true);
    expect(hostAllowed('a.b.github.com', allow)).toBe(true);
    expect(hostAllowed('github.com', allow)).toBe(false);
    expect(hostAllowed('evilgithub.com', allow)).toBe(false);
    expect(hostAllowed('npmjs.org', allow)).toBe(false);
    expect(hostAllowed('registry.npmjs.org.evil.com', allow)).toBe(false);
  });
});

describe.skipIf(!HAVE_BWRAP || !HAVE_CURL)('the allowlisting proxy around bash', () => {
  it('lets a named host through (forward and CONNECT), refuses another naming it, and leaves direct connections impossible; all pass with --sandbox off', async () => {
    const seen: string[] = [];
    const server = http.createServer((request, response) => {
      seen.push(request.url ?? '');
      response.end(`served ${request.url}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-home-'));
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-ws-'));
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({ sandbox: { network: { allow: ['localhost'] } } }),
    );
    // Loopback names bypass the proxy by default (the sandbox's own loopback): the test's host is the host's loopback, so it goes through the proxy.
    const viaProxy = 'env -u NO_PROXY -u no_proxy curl -sS --max-time 20';
    const commands = [
      `${viaProxy} http://localhost:${port}/forward`,
      `${viaProxy} --proxytunnel http://localhost:${port}/tunnel`,
      `${viaProxy} --proxytunnel http://127.0.0.1:${port}/refused`,
      `curl -sS --max-time 20 --noproxy '*' http://localhost:${port}/direct`,
    ];
    try {
      for (const mode of ['workspace-write', 'off'] as const) {
        seen.length = 0;
        const { run, results } = await execBash(commands, ws, mode === 'off' ? ['--sandbox', 'off'] : [], {
          MINICODE_HOME: home,
        });
        expect(run.code, run.stderr).toBe(0);
        const reached = ['/forward', '/tunnel', '/refused', '/direct'].map((p) => seen.includes(p));
        if (mode === 'off') {
          expect(reached).toEqual([true, true, true, true]);
          continue;
        }
        expect(reached, JSON.stringify(results, null, 1)).toEqual([true, true, false, false]);
        expect(results[0]!.output).toContain('served /forward');
        expect(results[1]!.output).toContain('served /tunnel');
        expect(results[2]!.type).toBe('tool.failed');
        expect(results[2]!.output).toContain(
          '[the sandbox (workspace-write) refused a connection to 127.0.0.1: only localhost can be reached',
        );
        expect(results[3]!.type).toBe('tool.failed');
        expect(results[3]!.output).toContain('refused a network connection');
      }
    } finally {
      server.close();
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(ws, { recursive: true, force: true });
    }
  }, 120_000);
});
