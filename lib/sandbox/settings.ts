/**
 * The sandbox settings of a run: which mode, whether the network is open, which paths are
 * hidden or additionally writable, and which environment the commands inherit. Filled once
 * where a run is set up (flags over config over defaults) and passed whole to every launch.
 * Pure: the home directory, `MINICODE_HOME` and the store are passed in.
 */
import path from 'node:path';

/** The sandbox modes, in the order of what they allow. */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'off'] as const;
/** `read-only`: read the system and the workspace, write only a private temp folder; `workspace-write`: also write the workspace; `off`: no sandbox. */
export type SandboxMode = (typeof SANDBOX_MODES)[number];
/** The mode when neither a flag nor the config names one. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'workspace-write';

/** The variables a command keeps under `sandbox.env.inherit: "core"` (besides `LC_*` and the names in `pass`). */
export const CORE_ENV_NAMES: readonly string[] = ['PATH', 'HOME', 'USER', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ'];

/** What the commands' environment starts from: all the user's variables less credentials, or only the core ones. */
export type EnvInherit = 'all' | 'core';

/**
 * A backend and the executable that runs it (found by backend.ts). `hardened` (bwrap): the
 * seccomp filter (seccomp.ts) and `--disable-userns` work here too, and every command gets them.
 */
export type SandboxBackend =
  | { kind: 'bwrap'; command: string; hardened: boolean }
  | { kind: 'seatbelt'; command: string };

/** Everything the launcher needs to know about the sandbox of a run. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** True opens the network inside the sandbox (`--allow-network`); default false. */
  network: boolean;
  /**
   * Hosts reachable through the allowlisting proxy while the network is otherwise off
   * (`sandbox.network.allow`: names and `*.name` patterns); default none, no proxy.
   */
  allowHosts: readonly string[];
  /** Absolute paths nobody inside may read (hidden behind an empty directory or file). */
  readDeny: readonly string[];
  /** Absolute paths writable besides the workspace (`workspace-write` only). */
  writeAllow: readonly string[];
  env: { inherit: EnvInherit; pass: readonly string[] };
  /** The backend that applies it, found once at set-up; absent under `off`. */
  backend?: SandboxBackend;
}

/** The `sandbox` section of the config file (validated by lib/config.ts). */
export interface SandboxConfig {
  mode?: SandboxMode | undefined;
  readDeny?: string[] | undefined;
  writeAllow?: string[] | undefined;
  network?: { allow?: string[] | undefined } | undefined;
  env?: { inherit?: EnvInherit | undefined; pass?: string[] | undefined } | undefined;
}

/** Inputs of {@link sandboxSettingsOf}. */
export interface SandboxSettingsInput {
  /** `--sandbox`, already checked to be one of {@link SANDBOX_MODES}. */
  flagMode?: SandboxMode | undefined;
  /** `--allow-network`. */
  allowNetwork?: boolean | undefined;
  config?: SandboxConfig | undefined;
  home: string;
  /** `MINICODE_HOME` when set, else the user config's folder. */
  minicodeHome: string;
  storeDir: string;
  /** Base of relative config paths (the workspace). */
  cwd: string;
}

/**
 * Where host daemons that act for the user listen: a unix socket on a visible path can be
 * connected to from inside (it is no write, and the network namespace does not cover it), and
 * the daemon behind it (Docker, the user's D-Bus session bus and agents under `/run/user`) may
 * act outside the sandbox. Hidden by default; a missing one is skipped.
 */
const HOST_DAEMON_SOCKETS = ['/run/docker.sock', '/run/podman', '/run/containerd', '/run/user'];

/**
 * The credential paths hidden by default: keys and tokens a command has no business reading,
 * and minicode's own folders (config with provider keys, the store with every session).
 * `/etc/shadow` and `/etc/gshadow` too: a sandbox entered as root keeps uid 0, and the owner
 * may read them even without capabilities.
 */
export function defaultReadDeny(home: string, minicodeHome: string, storeDir: string): string[] {
  const inHome = [
    '.ssh',
    '.aws',
    '.config/gcloud',
    '.netrc',
    '.docker/config.json',
    '.gnupg',
    '.kube/config',
    '.npmrc',
    '.pypirc',
    '.git-credentials',
  ];
  return [
    ...inHome.map((p) => path.join(home, p)),
    minicodeHome,
    storeDir,
    '/etc/shadow',
    '/etc/gshadow',
    ...HOST_DAEMON_SOCKETS,
  ];
}

/** `~/x` and relative paths of the config made absolute (relative to the workspace). */
function absolute(p: string, home: string, cwd: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(cwd, p);
}

/**
 * The settings of a run: the flag's mode over the config's over `workspace-write`; the default
 * deny list plus `sandbox.readDeny` (a path given as `!PATH` is taken off the list instead);
 * `--allow-network` opens the network, else `sandbox.network.allow` names the hosts the proxy lets through.
 */
export function sandboxSettingsOf(input: SandboxSettingsInput): SandboxSettings {
  const config = input.config ?? {};
  const abs = (p: string) => absolute(p, input.home, input.cwd);
  const deny = new Set(defaultReadDeny(input.home, input.minicodeHome, input.storeDir).map(abs));
  for (const entry of config.readDeny ?? []) {
    if (entry.startsWith('!')) deny.delete(abs(entry.slice(1)));
    else deny.add(abs(entry));
  }
  const network = input.allowNetwork === true;
  return {
    mode: input.flagMode ?? config.mode ?? DEFAULT_SANDBOX_MODE,
    network,
    // An open network needs no proxy: every host is reachable already.
    allowHosts: network ? [] : (config.network?.allow ?? []),
    readDeny: [...deny],
    writeAllow: (config.writeAllow ?? []).map(abs),
    env: { inherit: config.env?.inherit ?? 'all', pass: config.env?.pass ?? [] },
  };
}

/**
 * The sandbox of a stdio MCP server: none when the run has none (`off`), else the run's with
 * the server's own mode, `read-only` unless its config says otherwise: a server is a program
 * the user installed, not the model's command, and has no business writing the workspace.
 */
export function serverSandbox(
  run: SandboxSettings | undefined,
  configured: SandboxMode | undefined,
): SandboxSettings | undefined {
  if (!run || run.mode === 'off') return run;
  return withMode(run, configured ?? 'read-only');
}

/** The same settings under another mode (a batch line's `"sandbox"`, an MCP server's own). */
export function withMode(settings: SandboxSettings, mode: SandboxMode): SandboxSettings {
  return mode === settings.mode ? settings : { ...settings, mode };
}
