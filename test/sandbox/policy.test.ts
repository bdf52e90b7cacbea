/**
 * The sandbox's pure parts: settings from flags and config, the plan's ordering rules, the
 * bwrap arguments and the macOS Seatbelt profile (checked on its text: sandbox-exec does not
 * run here), the environment policy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../lib/sandbox/bwrap.js';
import { commandEnv } from '../../lib/sandbox/environment.js';
import { planSandbox } from '../../lib/sandbox/plan.js';
import { refusalNote } from '../../lib/sandbox/refusal.js';
import { seatbeltProfile } from '../../lib/sandbox/seatbelt.js';
import { sandboxSettingsOf, serverSandbox } from '../../lib/sandbox/settings.js';

function fixture() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-plan-')));
  const home = path.join(base, 'home');
  const ws = path.join(base, 'ws');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.netrc'), 'machine x');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.git/config'), '[core]');
  const settings = sandboxSettingsOf({
    home,
    minicodeHome: path.join(home, '.minicode'),
    storeDir: path.join(home, '.minicode/store'),
    cwd: ws,
  });
  return { base, home, ws, settings };
}

describe('sandbox settings', () => {
  it('default to workspace-write with the network off; the flag wins over the config, and !PATH takes a path off the deny list', () => {
    const { home, ws } = fixture();
    const input = { home, minicodeHome: path.join(home, '.minicode'), storeDir: '/store', cwd: ws };
    const plain = sandboxSettingsOf(input);
    expect(plain).toMatchObject({ mode: 'workspace-write', network: false, env: { inherit: 'all', pass: [] } });
    expect(plain.readDeny).toContain(path.join(home, '.ssh'));
    expect(plain.readDeny).toContain('/store');
    const configured = sandboxSettingsOf({
      ...input,
      flagMode: 'read-only',
      allowNetwork: true,
      config: { mode: 'off', readDeny: ['!~/.ssh', 'secrets'], writeAllow: ['~/cache'] },
    });
    expect(configured).toMatchObject({ mode: 'read-only', network: true, writeAllow: [path.join(home, 'cache')] });
    expect(configured.readDeny).not.toContain(path.join(home, '.ssh'));
    expect(configured.readDeny).toContain(path.join(ws, 'secrets'));
  });

  it('give a stdio MCP server read-only unless its config says otherwise, and nothing when the run is off', () => {
    const { settings } = fixture();
    expect(serverSandbox(settings, undefined)?.mode).toBe('read-only');
    expect(serverSandbox(settings, 'workspace-write')?.mode).toBe('workspace-write');
    expect(serverSandbox({ ...settings, mode: 'off' }, 'workspace-write')?.mode).toBe('off');
  });
});

describe('the bwrap arguments', () => {
  it('bind the system read-only, hide credentials, bind the workspace writable, then make .git/hooks and .git/config read-only again', () => {
    const { home, ws, settings } = fixture();
    const args = bwrapArgs(planSandbox(settings, ws));
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    // The whole system in one bind, first, so everything after it lies over it.
    expect(at('--ro-bind', '/', '/')).toBe(0);
    expect(args.filter((a) => a === '/usr')).toEqual([]);
    const own = at('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
    expect(own).toBe(3);
    expect(at('--tmpfs', path.join(home, '.ssh'))).toBeGreaterThan(0);
    expect(at('--ro-bind', '/dev/null', path.join(home, '.netrc'))).toBeGreaterThan(0);
    const bind = at('--bind', ws, ws);
    expect(bind).toBeGreaterThan(own);
    expect(bind).toBeGreaterThan(at('--tmpfs', path.join(home, '.ssh')));
    // A missing hooks folder is mounted empty and read-only, so it cannot be created.
    expect(at('--tmpfs', path.join(ws, '.git/hooks'), '--remount-ro', path.join(ws, '.git/hooks'))).toBeGreaterThan(
      bind,
    );
    expect(at('--ro-bind', path.join(ws, '.git/config'), path.join(ws, '.git/config'))).toBeGreaterThan(bind);
    for (const flag of ['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--unshare-net'])
      expect(args).toContain(flag);
    expect(at('--cap-drop', 'ALL')).toBeGreaterThan(0);
    expect(args.slice(-2)).toEqual(['--chdir', ws]);
  });

  it("make a linked worktree's own git directory and the object store writable, the rest of the repository readable only", () => {
    const { base, settings } = fixture();
    const repo = path.join(base, 'repo');
    const wt = path.join(base, 'wt');
    fs.mkdirSync(path.join(repo, '.git/worktrees/wt'), { recursive: true });
    fs.mkdirSync(path.join(repo, '.git/objects'));
    fs.writeFileSync(path.join(repo, '.git/worktrees/wt/commondir'), '../..\n');
    fs.mkdirSync(wt);
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(repo, '.git/worktrees/wt')}\n`);
    const plan = planSandbox(settings, wt);
    expect(plan.writableRoots).toEqual([wt, path.join(repo, '.git/worktrees/wt'), path.join(repo, '.git/objects')]);
    expect(plan.readableRoots).toEqual([path.join(repo, '.git')]);
    const readOnly = planSandbox({ ...settings, mode: 'read-only' }, wt);
    expect(readOnly.writableRoots).toEqual([]);
    expect(readOnly.readableRoots).toEqual([wt, path.join(repo, '.git')]);
  });

  it('bind the allowlisting proxy socket last, after every root, with the network namespace kept', () => {
    const { ws, settings } = fixture();
    const args = bwrapArgs(planSandbox({ ...settings, allowHosts: ['localhost'] }, ws), '/tmp/p/proxy.sock');
    const at = args.indexOf('/tmp/p/proxy.sock');
    expect(args.slice(at - 1, at + 2)).toEqual(['--ro-bind', '/tmp/p/proxy.sock', '/tmp/.minicode-proxy.sock']);
    expect(args.lastIndexOf('--bind')).toBeLessThan(at);
    expect(args).toContain('--unshare-net');
  });

  it('leave the network shared with --allow-network, and in read-only bind the workspace read-only and nothing writable', () => {
    const { ws, settings } = fixture();
    const args = bwrapArgs(planSandbox({ ...settings, mode: 'read-only', network: true }, ws));
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('--bind');
    // The workspace is still read: bound read-only after the private /tmp.
    expect(
      args.findIndex((_, i) => args[i] === '--ro-bind' && args[i + 1] === ws && args[i + 2] === ws),
    ).toBeGreaterThan(args.indexOf('/tmp'));
  });

  it('hide a credential folder inside the workspace after binding it, and one holding the workspace before', () => {
    const { base, home, settings } = fixture();
    const ws = path.join(home, '.minicode', 'ws');
    fs.mkdirSync(path.join(ws, '.ssh'), { recursive: true });
    const plan = planSandbox({ ...settings, readDeny: [...settings.readDeny, path.join(ws, '.ssh')] }, ws);
    expect(plan.hiddenOutside.map((h) => h.path)).toContain(path.join(home, '.minicode'));
    expect(plan.hiddenInside.map((h) => h.path)).toEqual([path.join(ws, '.ssh')]);
    expect(base).toBeTruthy();
  });

  it('plan a path given through a symbolic link at its real location too', () => {
    const { base, home, settings } = fixture();
    const link = path.join(base, 'link-to-ssh');
    fs.symlinkSync(path.join(home, '.ssh'), link);
    const plan = planSandbox({ ...settings, readDeny: [link] }, path.join(base, 'ws'));
    expect(plan.hiddenOutside.map((h) => h.path)).toEqual([link, path.join(home, '.ssh')]);
  });
});

describe('the Seatbelt profile', () => {
  it('denies by default, reads everything but the hidden paths, writes the workspace and temp folder but not the git hooks, and opens no network', () => {
    const { home, ws, settings } = fixture();
    const profile = seatbeltProfile(planSandbox(settings, ws), '/private/tmp/minicode-sandbox-x');
    expect(profile.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    expect(profile).toContain('(allow file-read*)');
    expect(profile).toContain(
      `(deny file-read* (subpath "${path.join(home, '.ssh')}") (literal "${path.join(home, '.netrc')}")`,
    );
    expect(profile).toContain(`(allow file-write* (subpath "${ws}") (subpath "/private/tmp/minicode-sandbox-x")`);
    expect(profile).toContain(
      `(deny file-write* (subpath "${path.join(ws, '.git/hooks')}") (subpath "${path.join(ws, '.git/config')}"))`,
    );
    expect(profile).not.toContain('network');
    expect(seatbeltProfile(planSandbox({ ...settings, network: true }, ws), '/t')).toContain('(allow network*)');
  });

  it('under a host allowlist opens only the connection to the proxy port', () => {
    const { ws, settings } = fixture();
    const profile = seatbeltProfile(planSandbox({ ...settings, allowHosts: ['registry.npmjs.org'] }, ws), '/t', 41234);
    expect(profile).toContain('(allow network-outbound (remote ip "localhost:41234"))');
    expect(profile).not.toContain('(allow network*)');
  });

  it('quotes a path with a double quote or a backslash as a Scheme string', () => {
    const { ws, settings } = fixture();
    const odd = path.join(ws, 'a"b\\c');
    fs.mkdirSync(odd);
    const profile = seatbeltProfile(planSandbox({ ...settings, readDeny: [odd] }, ws), '/t');
    expect(profile).toContain('(subpath "' + ws + '/a\\"b\\\\c")');
  });
});

describe('the command environment', () => {
  it('drops credentials, keeps only the core variables under inherit core, and passes named credentials through', () => {
    const env = {
      PATH: '/bin',
      HOME: '/h',
      LC_ALL: 'C',
      GITHUB_TOKEN: 'ghp_e2eFakeToken0123456789abcdefghijklmnop',
      OTHER: 'y',
      NPM_TOKEN: 'npm_e2eFakeToken0123456789abcdefghijklmn',
    };
    const { settings } = fixture();
    expect(commandEnv(env, settings)).toEqual({ PATH: '/bin', HOME: '/h', LC_ALL: 'C', OTHER: 'y' });
    expect(commandEnv(env, { ...settings, env: { inherit: 'core', pass: ['NPM_TOKEN'] } })).toEqual({
      PATH: '/bin',
      HOME: '/h',
      LC_ALL: 'C',
      NPM_TOKEN: 'npm_e2eFakeToken0123456789abcdefghijklmn',
    });
    expect(commandEnv(env, undefined)).not.toHaveProperty('GITHUB_TOKEN');
  });
});

describe('a refusal note', () => {
  it('names a refused write or connection in one line under a sandboxed mode, and nothing with the sandbox off', () => {
    const on = { mode: 'workspace-write' as const, network: false };
    expect(refusalNote('bash: /etc/x: Read-only file system\n', on)).toBe(
      '[the sandbox (workspace-write) refused a write outside the workspace: write inside the workspace or its temp folder instead]',
    );
    expect(
      refusalNote('curl: (7) Failed to connect: Network is unreachable', { mode: 'read-only', network: false }),
    ).toContain('refused a network connection');
    expect(refusalNote('connect: Connection refused\nNetwork is unreachable', on)).toMatch(
      /refused a network connection: [^;]*\]$/,
    );
    expect(refusalNote('connect: Connection refused', { ...on, network: true })).toBeUndefined();
    expect(refusalNote('bash: /etc/x: Read-only file system', { mode: 'off', network: false })).toBeUndefined();
    expect(refusalNote('all good', on)).toBeUndefined();
  });

  it('under a host allowlist names the hosts the proxy refused, and which hosts are reachable', () => {
    const proxied = {
      mode: 'workspace-write' as const,
      network: false,
      allowHosts: ['registry.npmjs.org', '*.github.com'],
    };
    expect(refusalNote('curl: (56) CONNECT tunnel failed, response 403', proxied, ['evil.example'])).toBe(
      '[the sandbox (workspace-write) refused a connection to evil.example: only registry.npmjs.org, *.github.com can be reached, through the proxy in HTTP_PROXY/HTTPS_PROXY (the user can add hosts to sandbox.network.allow)]',
    );
    expect(refusalNote('Network is unreachable', proxied)).toContain(
      'only registry.npmjs.org, *.github.com can be reached',
    );
  });
});
