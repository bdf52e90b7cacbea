/**
 * The peer agent CLIs bench/exec-cost measures beside minicode: pinned releases of Codex and
 * Claude Code, installed with npm into a cache folder on request (`--peers`), each run through
 * its own native executable with the same job against the same loopback provider.
 *
 * Both npm packages are thin launchers over a native binary shipped in a per-platform package:
 * the bench runs that binary directly, so a launcher's own start-up (Codex's is a Node script)
 * is not billed to the peer. That makes the peers cheaper, our ratios harder.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JOB_PROMPT } from './agent-provider.js';

/** One peer: its pinned package, the native binary inside the install, and how to run the job. */
export interface PeerCli {
  name: string;
  /** `package@version` installed by npm. */
  spec: string;
  /** The native executable, relative to the install's node_modules, for this platform. */
  binary: string;
  /** Command-line arguments and environment for one run of the job in `cwd` against `origin`. */
  invocation(origin: string, cwd: string, home: string): { args: string[]; env: NodeJS.ProcessEnv };
}

const TRIPLE: Record<string, string> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
};
const PLATFORM = `${os.platform()}-${os.arch()}`;

/** Codex and Claude Code at the versions the bench pins. */
export const PEER_CLIS: readonly PeerCli[] = [
  {
    name: 'Codex 0.171.0',
    spec: '@openai/codex@0.171.0',
    binary: `@openai/codex-${PLATFORM}/vendor/${TRIPLE[PLATFORM] ?? 'unsupported'}/bin/codex`,
    invocation: (origin, cwd, home) => ({
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '-C',
        cwd,
        '-m',
        'gpt-5',
        '-c',
        'model_provider="loopback"',
        '-c',
        `model_providers.loopback={name="loopback",base_url="${origin}/v1",wire_api="responses",env_key="LOOPBACK_API_KEY"}`,
        JOB_PROMPT,
      ],
      // What the npm launcher would pass; CODEX_HOME keeps its config and sessions in the bench's folder.
      env: {
        CODEX_HOME: path.join(home, 'codex'),
        LOOPBACK_API_KEY: 'sk-bench-loopback-0123456789',
        CODEX_MANAGED_BY_NPM: '1',
      },
    }),
  },
  {
    name: 'Claude Code 2.1.332',
    spec: '@anthropic-ai/claude-code@2.1.332',
    binary: `@anthropic-ai/claude-code-${PLATFORM}/claude`,
    invocation: (origin) => ({
      args: [
        '-p',
        JOB_PROMPT,
        '--output-format',
        'stream-json',
        '--verbose',
        '--allowedTools',
        'Bash',
        '--model',
        'claude-sonnet-4-5',
      ],
      env: {
        ANTHROPIC_BASE_URL: origin,
        ANTHROPIC_API_KEY: 'sk-ant-bench-loopback-0123456789',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    }),
  },
];

/** The default cache folder for peer installs: `$XDG_CACHE_HOME/minicode/bench-peers`, else `~/.cache/minicode/bench-peers`. */
export function defaultPeersDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'minicode', 'bench-peers');
}

/**
 * Install `peer` into `<dir>/<spec>` unless its binary is already there; returns the binary's
 * path. Install scripts are skipped: the binary comes from the platform package npm picks as an
 * optional dependency. Throws with npm's output when the install fails.
 */
export function installPeer(peer: PeerCli, dir: string): string {
  const prefix = path.join(dir, peer.spec.replace(/[/@]/g, '_'));
  const binary = path.join(prefix, 'node_modules', peer.binary);
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(prefix, { recursive: true });
  fs.writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
  const npm = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--engine-strict=false', peer.spec],
    { cwd: prefix, encoding: 'utf8' },
  );
  if (npm.status !== 0 || !fs.existsSync(binary))
    throw new Error(
      `installing ${peer.spec} into ${prefix} failed (no ${peer.binary}): ${(npm.stderr || npm.stdout || '').slice(-600)}`,
    );
  return binary;
}
