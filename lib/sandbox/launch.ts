/**
 * The one way minicode starts a command the agent asked for (the `bash` tool, `verify`, a stdio
 * MCP server) or one of its own (git for a batch worktree): `child_process.spawn`, inside the
 * sandbox when settings say so. The child's stdout and stderr are always pipes; `detached` puts
 * it in its own process group, which {@link LaunchedChild.killGroup} signals as a whole. A
 * sandboxed child is the backend's process (bwrap, sandbox-exec) with the command under it:
 * signalling the group reaches bwrap, whose death takes the whole PID namespace with it.
 *
 * With a host allowlist (`sandbox.network.allow`) the launch also starts the command's own
 * allowlisting proxy (network-proxy.ts) outside the sandbox, on a unix socket in a private
 * folder (bwrap binds it in, and the bridge of proxy-bridge.ts relays to it) or on a loopback
 * port (Seatbelt); it closes when the command does.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { SECCOMP_FD } from './backend.js';
import { bwrapArgs } from './bwrap.js';
import { startAllowlistProxy, type AllowlistProxy } from './network-proxy.js';
import { planSandbox } from './plan.js';
import { bridgedCommand, proxyEnv } from './proxy-bridge.js';
import { seccompProgramFor } from './seccomp.js';
import { openSeccompProgram } from './seccomp-fd.js';
import { seatbeltProfile } from './seatbelt.js';
import type { SandboxSettings } from './settings.js';
import { dropExpected } from '../debug.js';

/** Options of {@link launch}. */
export interface LaunchOptions {
  cwd: string;
  /** The whole environment of the command (already scrubbed: see environment.ts). */
  env: Record<string, string>;
  /** Its own process group, for {@link LaunchedChild.killGroup}; default false. */
  detached?: boolean;
  /** A pipe to its stdin; default: stdin is /dev/null. */
  stdin?: boolean;
  /** The sandbox to run it in; absent or mode `off`: none. */
  sandbox?: SandboxSettings | undefined;
  /** The writable workspace under `workspace-write`; default `cwd`. */
  workspace?: string;
  /**
   * A pipe from the command's fd 4 ({@link LaunchedChild.report}), for what it tells minicode
   * besides its output (the bash tool's shell state); passed through the sandbox and its
   * network bridge. Default none.
   */
  report?: boolean;
}

/** A started command: a `ChildProcess` whose stdout and stderr are pipes, plus a kill of its group. */
export interface LaunchedChild extends ChildProcess {
  stdout: NonNullable<ChildProcess['stdout']>;
  stderr: NonNullable<ChildProcess['stderr']>;
  /** Signal its process group (detached) or the process itself; a gone process is no error. */
  killGroup(signal: NodeJS.Signals): void;
  /** The hosts the allowlisting proxy refused this command so far, each once; empty without a proxy. */
  refusedHosts(): string[];
  /** The read end of the command's fd 4 with `report: true`; undefined otherwise. */
  report: Readable | undefined;
}

/** Signal `pid`'s group (when `group`) or `pid`; a gone process is no error. */
export function signalProcess(pid: number | undefined, signal: NodeJS.Signals, group: boolean): void {
  if (pid === undefined) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch (error) {
    // Already gone: nothing to signal.
    dropExpected('signalling a command', error, 'ESRCH');
  }
}

/** What to spawn for `command args` under `sandbox`: the backend's executable and arguments, its proxy, and a clean-up. */
function wrap(
  command: string,
  args: string[],
  options: LaunchOptions,
): {
  file: string;
  argv: string[];
  env: Record<string, string>;
  proxy?: AllowlistProxy;
  seccomp?: Buffer;
  cleanup?: () => void;
} {
  const sandbox = options.sandbox;
  if (!sandbox || sandbox.mode === 'off') return { file: command, argv: args, env: options.env };
  const backend = sandbox.backend;
  // The set-up checks for a backend (requireSandboxBackend) before any command starts.
  if (!backend) throw new Error(`launch: sandbox mode ${sandbox.mode} without a backend`);
  const plan = planSandbox(sandbox, options.cwd, options.workspace ?? options.cwd);
  const proxied = plan.allowHosts.length > 0;
  if (backend.kind === 'bwrap') {
    const env = { ...options.env, TMPDIR: '/tmp' };
    const program = backend.hardened ? seccompProgramFor() : undefined;
    const seccomp = program ? { seccomp: program } : {};
    const fd = program ? SECCOMP_FD : undefined;
    if (!proxied)
      return {
        file: backend.command,
        argv: [...bwrapArgs(plan, undefined, fd), '--', command, ...args],
        env,
        ...seccomp,
      };
    // A private folder (mode 0700) for the socket: nobody else on the host can use the proxy.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-proxy-'));
    const proxy = startAllowlistProxy(plan.allowHosts, { path: path.join(folder, 'proxy.sock') });
    return {
      file: backend.command,
      argv: [
        ...bwrapArgs(plan, proxy.address, fd),
        '--',
        ...bridgedCommand(process.execPath, command, args, options.report),
      ],
      env,
      proxy,
      ...seccomp,
      cleanup: () => {
        proxy.close();
        fs.rmSync(folder, { recursive: true, force: true });
      },
    };
  }
  // Seatbelt has no private mounts: the temp folder is a fresh folder per command.
  const tmpdir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-sandbox-')));
  const proxy = proxied ? startAllowlistProxy(plan.allowHosts, { port: 0 }) : undefined;
  const proxyPort = proxy ? Number(proxy.address.split(':')[1]) : undefined;
  return {
    file: backend.command,
    argv: ['-p', seatbeltProfile(plan, tmpdir, proxyPort), command, ...args],
    env: { ...options.env, TMPDIR: tmpdir, ...(proxy ? proxyEnv(`http://${proxy.address}`) : {}) },
    ...(proxy ? { proxy } : {}),
    cleanup: () => {
      proxy?.close();
      fs.rmSync(tmpdir, { recursive: true, force: true });
    },
  };
}

/** Start `command args`, sandboxed when `options.sandbox` says so. */
export function launch(command: string, args: string[], options: LaunchOptions): LaunchedChild {
  const detached = options.detached ?? false;
  const { file, argv, env, proxy, seccomp, cleanup } = wrap(command, args, options);
  // The seccomp program reaches bwrap as its fd 3 (SECCOMP_FD), a descriptor of a file; the child has its own copy once spawned.
  const programFd = seccomp ? openSeccompProgram(seccomp) : undefined;
  // fd 3 is the seccomp program's when there is one; the report pipe is fd 4 either way.
  const stdio: StdioOptions = [
    options.stdin ? 'pipe' : 'ignore',
    'pipe',
    'pipe',
    ...(programFd === undefined ? (options.report ? ['ignore' as const] : []) : [programFd]),
    ...(options.report ? ['pipe' as const] : []),
  ];
  let child: ChildProcess;
  try {
    child = spawn(file, argv, { cwd: options.cwd, env, detached, stdio, windowsHide: true });
  } finally {
    if (programFd !== undefined) fs.closeSync(programFd);
  }
  if (cleanup) child.once('close', cleanup);
  return Object.assign(child, {
    killGroup: (signal: NodeJS.Signals) => signalProcess(child.pid, signal, detached),
    refusedHosts: () => proxy?.refused() ?? [],
    report: options.report ? ((child.stdio[4] as Readable | null) ?? undefined) : undefined,
  }) as LaunchedChild;
}
