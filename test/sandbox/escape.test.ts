/**
 * The escape suite: a scripted model tries, through the real `bash` tool of `minicode exec`
 * (and through `--verify` and a stdio MCP server), to leave the workspace-write sandbox: write
 * outside the workspace by absolute path, `..`, a symbolic link, a hard link and `/proc/self`;
 * read planted credentials; connect to a loopback listener; kill a process outside; reach a
 * System V shared memory segment of the host (where `ipcmk` is installed); plant a git
 * hook; use the kernel keyring or a nested user namespace (the seccomp layer). Every attempt fails under the default sandbox, and the same attempts succeed with
 * `--sandbox off`, so the test proves the sandbox and not a broken command. Real bubblewrap;
 * skipped, saying so, where it does not work.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findSandboxBackend } from '../../lib/sandbox/backend.js';
import { scratchProject } from '../exec/helpers.js';
import { bwrapSkipNote, closeServers, execBash, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/escape.test.ts');

/** The keyring probe uses x86_64's syscall number, and needs a hardened backend (seccomp works here). */
const KEYCTL_CHECKED =
  process.arch === 'x64' &&
  findSandboxBackend()?.kind === 'bwrap' &&
  (findSandboxBackend() as { hardened: boolean }).hardened;
afterAll(closeServers);

/** util-linux's `ipcmk` creates the host's shared memory segment the IPC attempt looks for. */
const HAVE_IPCMK = spawnSync('ipcmk', ['--help'], { stdio: 'ignore' }).status === 0;
if (!HAVE_IPCMK)
  console.warn('test/sandbox/escape.test.ts: the IPC attempt is skipped, ipcmk is not installed (util-linux)');

/** A folder outside both /tmp (private inside the sandbox) and the workspace, so a write there would show on the host. */
function outsideBase(): string {
  const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir();
  return fs.mkdtempSync(path.join(parent, 'minicode-escape-'));
}

/** Everything one round of attempts needs: a workspace (a git repository), a folder outside, a planted HOME, a listener, a victim process. */
async function stage() {
  const base = outsideBase();
  const ws = path.join(base, 'ws');
  fs.cpSync(scratchProject(), ws, { recursive: true });
  spawnSync('git', ['init', '-q', ws]);
  const outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'target.txt'), 'original\n');
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.mkdirSync(path.join(home, '.aws'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh/id_rsa'), 'planted-ssh-key-material\n');
  fs.writeFileSync(path.join(home, '.aws/credentials'), 'planted-aws-material\n');
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const victim = spawn('sleep', ['120'], { stdio: 'ignore', detached: true });
  // A file in the host's /tmp, which lies beneath the sandbox's own /tmp.
  const hostTmp = fs.mkdtempSync('/tmp/minicode-escape-');
  fs.writeFileSync(path.join(hostTmp, 'secret.txt'), 'planted-host-tmp-material\n');
  // A System V shared memory segment of the host: "Shared memory id: N".
  const shm = HAVE_IPCMK
    ? /(\d+)\s*$/.exec(spawnSync('ipcmk', ['-M', '4096'], { encoding: 'utf8' }).stdout)?.[1]
    : undefined;
  return {
    base,
    ws,
    outside,
    home,
    hostTmp,
    port,
    victim,
    shm,
    connections: () => connections,
    close: () => {
      server.close();
      try {
        process.kill(victim.pid!, 'SIGKILL');
      } catch {
        // Killed by the attempt (the unsandboxed round).
      }
      fs.rmSync(base, { recursive: true, force: true });
      fs.rmSync(hostTmp, { recursive: true, force: true });
      if (shm !== undefined) spawnSync('ipcrm', ['-m', shm]);
    },
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()[0] !== 'Z';
  } catch {
    return false;
  }
};

/** The attempts, as bash commands, in the workspace. */
function attempts(s: Awaited<ReturnType<typeof stage>>): string[] {
  const o = s.outside;
  return [
    `echo x > ${o}/absolute.txt`,
    `echo x > ../outside/dotdot.txt`,
    `ln -s ${o} link && echo x > link/symlink.txt`,
    `ln ${o}/target.txt hard && echo changed > hard`,
    `cd ${o} && echo x > /proc/self/cwd/proc-cwd.txt`,
    `echo x > /proc/self/root${o}/proc-root.txt`,
    `cat ${s.home}/.ssh/id_rsa ${s.home}/.aws/credentials`,
    `exec 3<>/dev/tcp/127.0.0.1/${s.port} && echo connected`,
    `kill -9 ${s.victim.pid}`,
    `mkdir -p .git/hooks && echo 'echo pwned' > .git/hooks/pre-commit && git config core.hooksPath /tmp`,
    // The layers the namespaces leave open (seccomp, no nested user namespaces): the user's kernel keyring (keyctl is 250 on x86_64) and a new user namespace.
    `perl -e '$r = syscall(250, 0, -3, 0); print $r < 0 ? "keyctl refused: $!\\n" : "keyring $r\\n"'`,
    'unshare -U true && echo nested-userns-ok',
    // What the sandbox lays over the host's files stays over them: the host's /tmp, and a hidden folder even after an unmount (a no-op on the host, where it is no mount).
    `cat ${s.hostTmp}/secret.txt`,
    `umount -l ${s.home}/.ssh; cat ${s.home}/.ssh/id_rsa`,
    // The host's System V IPC objects (here a shared memory segment): another IPC namespace has none of them.
    `ipcs -m -i ${s.shm ?? 'none'}`,
  ];
}

describe.skipIf(!HAVE_BWRAP)('the workspace-write sandbox', () => {
  it('refuses every escape of the bash tool, and the same attempts succeed with --sandbox off', async () => {
    for (const mode of ['workspace-write', 'off'] as const) {
      const s = await stage();
      try {
        const args = mode === 'off' ? ['--sandbox', 'off'] : [];
        const { run, results } = await execBash(attempts(s), s.ws, args, { HOME: s.home });
        expect(run.code, run.stderr).toBe(0);
        expect(run.records[0]).toMatchObject({ type: 'session.started', payload: { sandbox: mode } });
        for (const r of results) expect(r.sandbox).toBe(mode);
        const wrote = (name: string) => fs.existsSync(path.join(s.outside, name));
        const target = fs.readFileSync(path.join(s.outside, 'target.txt'), 'utf8');
        const read = results[6]!.output;
        const hooks = fs.existsSync(path.join(s.ws, '.git/hooks/pre-commit'));
        const hooksPath = spawnSync('git', ['-C', s.ws, 'config', '--get', 'core.hooksPath'], {
          encoding: 'utf8',
        }).stdout.trim();
        const outcome = {
          absolute: wrote('absolute.txt'),
          dotdot: wrote('dotdot.txt'),
          symlink: wrote('symlink.txt'),
          hardLink: target !== 'original\n',
          procCwd: wrote('proc-cwd.txt'),
          procRoot: wrote('proc-root.txt'),
          ssh: read.includes('planted-ssh-key-material'),
          aws: read.includes('planted-aws-material'),
          network: s.connections() > 0,
          kill: !alive(s.victim.pid!),
          gitHook: hooks,
          gitConfig: hooksPath === '/tmp',
          ...(KEYCTL_CHECKED ? { keyring: results[10]!.output.includes('keyring ') } : {}),
          nestedUserns: results[11]!.output.includes('nested-userns-ok'),
          hostTmp: results[12]!.output.includes('planted-host-tmp-material'),
          unmountHidden: results[13]!.output.includes('planted-ssh-key-material'),
          ...(s.shm !== undefined ? { sysvShm: results[14]!.output.includes(`shmid=${s.shm}`) } : {}),
        };
        const all = Object.fromEntries(Object.keys(outcome).map((k) => [k, mode === 'off']));
        expect(outcome, JSON.stringify(results, null, 1)).toEqual(all);
        // The model is told in one line what the sandbox refused.
        if (mode !== 'off') {
          expect(results[0]!.output).toContain('[the sandbox (workspace-write) refused a write outside the workspace');
          expect(results[7]!.output).toContain('refused a network connection');
        } else expect(results[0]!.output).not.toContain('the sandbox');
      } finally {
        s.close();
      }
    }
  }, 120_000);

  it('runs --verify inside the sandbox: its write outside fails, and succeeds with --sandbox off', async () => {
    for (const mode of ['workspace-write', 'off'] as const) {
      const s = await stage();
      try {
        const args = ['--verify', `echo x > ${s.outside}/verify.txt`, ...(mode === 'off' ? ['--sandbox', 'off'] : [])];
        const { run } = await execBash(['echo inside > inside.txt'], s.ws, args, { HOME: s.home });
        expect(run.summary).toMatchObject({ verify: { ok: mode === 'off' } });
        expect(fs.existsSync(path.join(s.outside, 'verify.txt'))).toBe(mode === 'off');
        // The workspace itself stays writable.
        expect(fs.readFileSync(path.join(s.ws, 'inside.txt'), 'utf8')).toBe('inside\n');
      } finally {
        s.close();
      }
    }
  }, 120_000);

  it('starts a stdio MCP server in its own read-only profile: its writes to the workspace and outside fail, and succeed with --sandbox off', async () => {
    for (const mode of ['workspace-write', 'off'] as const) {
      const s = await stage();
      try {
        // The "server" tries its writes and exits: its start fails either way, its writes tell the sandbox apart.
        const script = path.join(s.base, 'server.mjs');
        fs.writeFileSync(
          script,
          [
            "import fs from 'node:fs';",
            `for (const file of [${JSON.stringify(path.join(s.outside, 'mcp.txt'))}, ${JSON.stringify(path.join(s.ws, 'mcp.txt'))}]) {`,
            '  try { fs.writeFileSync(file, "x"); } catch (error) { process.stderr.write(`${error.code}\\n`); }',
            '}',
          ].join('\n'),
        );
        const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-home-'));
        fs.writeFileSync(
          path.join(home, 'config.json'),
          JSON.stringify({
            mcpServers: { probe: { command: process.execPath, args: [script], startupTimeoutMs: 20_000 } },
          }),
        );
        const args = mode === 'off' ? ['--sandbox', 'off'] : [];
        const { run } = await execBash(['true'], s.ws, args, { HOME: s.home, MINICODE_HOME: home });
        expect(run.code, run.stderr).toBe(0);
        expect(fs.existsSync(path.join(s.outside, 'mcp.txt'))).toBe(mode === 'off');
        expect(fs.existsSync(path.join(s.ws, 'mcp.txt'))).toBe(mode === 'off');
      } finally {
        s.close();
      }
    }
  }, 120_000);
});
