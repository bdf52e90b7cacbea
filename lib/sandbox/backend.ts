/**
 * Which sandbox backend this machine has: bubblewrap on Linux (found on PATH, or named by
 * `MINICODE_BWRAP`; an empty value means none), `sandbox-exec` on macOS. A bwrap that is
 * installed but cannot create namespaces here (a container without user namespaces) counts as
 * none: it is tried once per process with the same namespaces every command gets.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MinicodeError } from '../errors.js';
import { bwrapArgs } from './bwrap.js';
import { planSandbox } from './plan.js';
import { seccompProgramFor } from './seccomp.js';
import { openSeccompProgram } from './seccomp-fd.js';
import type { SandboxBackend, SandboxSettings } from './settings.js';
import { dropExpected } from '../debug.js';

/** The one line that says how to get a backend on this platform. */
export function installHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'linux')
    return 'install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off';
  if (platform === 'darwin')
    return 'sandbox-exec is part of macOS; if /usr/bin/sandbox-exec is missing, pass --sandbox off';
  return `no sandbox backend exists for ${platform}; pass --sandbox off`;
}

/** An executable named `name` on `PATH`, or undefined. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch (error) {
      // Not here (or not executable): the next PATH entry.
      dropExpected('sandbox: looking for a backend on PATH', error, 'ENOENT', 'EACCES', 'ENOTDIR');
    }
  }
  return undefined;
}

const probed = new Map<string, { works: boolean; hardened: boolean }>();

/** The descriptor bwrap reads the seccomp program from (the spawn's fourth stdio entry). */
export const SECCOMP_FD = 3;

/** True when `command` exits 0 under bwrap with `args` (and, with `program`, that seccomp program on fd 3). */
function runs(command: string, args: string[], program?: Buffer): boolean {
  const fd = program ? openSeccompProgram(program) : undefined;
  try {
    const result = spawnSync(command, [...args, '--', 'true'], {
      stdio: ['ignore', 'ignore', 'ignore', ...(fd === undefined ? [] : [fd])],
      timeout: 10_000,
    });
    return result.status === 0;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Whether `bwrap` can set up the namespaces a command gets, and whether the hardening layers
 * (seccomp, no nested user namespaces) work on top (an older bwrap lacks `--disable-userns`):
 * tried once per executable.
 */
function bwrapProbe(command: string): { works: boolean; hardened: boolean } {
  let probe = probed.get(command);
  if (probe === undefined) {
    const settings: SandboxSettings = {
      mode: 'read-only',
      network: false,
      allowHosts: [],
      readDeny: [],
      writeAllow: [],
      env: { inherit: 'all', pass: [] },
    };
    const args = bwrapArgs(planSandbox(settings, '/'));
    const program = seccompProgramFor();
    const works = runs(command, args);
    const hardened =
      works &&
      program !== undefined &&
      runs(command, bwrapArgs(planSandbox(settings, '/'), undefined, SECCOMP_FD), program);
    probe = { works, hardened };
    probed.set(command, probe);
  }
  return probe;
}

/** This machine's backend, or undefined when there is none that works. */
export function findSandboxBackend(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): SandboxBackend | undefined {
  if (platform === 'darwin')
    return fs.existsSync('/usr/bin/sandbox-exec') ? { kind: 'seatbelt', command: '/usr/bin/sandbox-exec' } : undefined;
  if (platform !== 'linux') return undefined;
  const named = env.MINICODE_BWRAP;
  const command = named !== undefined ? named || undefined : onPath('bwrap', env);
  if (!command) return undefined;
  const probe = bwrapProbe(command);
  return probe.works ? { kind: 'bwrap', command, hardened: probe.hardened } : undefined;
}

/**
 * The backend `settings` need: undefined under `off`, else this machine's, or
 * MINICODE_E_SANDBOX_UNAVAILABLE (exit 1) naming how to install one. Never a silent fallback to
 * running unsandboxed.
 */
export function requireSandboxBackend(
  settings: Pick<SandboxSettings, 'mode'>,
  env: NodeJS.ProcessEnv = process.env,
): SandboxBackend | undefined {
  if (settings.mode === 'off') return undefined;
  const backend = findSandboxBackend(env);
  if (backend) return backend;
  throw new MinicodeError(
    'MINICODE_E_SANDBOX_UNAVAILABLE',
    `--sandbox ${settings.mode} needs a sandbox backend and none works here`,
    { action: installHint() },
  );
}
