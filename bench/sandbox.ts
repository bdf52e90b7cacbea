/**
 * bench/sandbox: what the sandbox adds to each command the agent runs. `bash -c true` started
 * through the launcher (lib/sandbox/launch.ts) the way the bash tool starts it (own process
 * group, the command environment), in the default `workspace-write` sandbox (bubblewrap:
 * namespaces, the mounts of a workspace with a git folder, hidden credential paths) against two
 * floors: the same launch with the sandbox off, and bubblewrap's own minimal sandbox with the
 * same namespaces as the launcher's (PID, network, and user where the seccomp layer needs one),
 * spawned directly the same way with no minicode code and no policy (`bwrap --ro-bind / / --dev
 * /dev --proc /proc --unshare-pid --unshare-net [--unshare-user] --die-with-parent -- bash -c
 * true`), which no launcher built on bwrap can go below. The three
 * alternate one by one in the same run (the order rotating), so the machine's load falls on all
 * alike; p50 and p99 of each, the overhead of the sandbox over unsandboxed (the target:
 * at most 15 ms at p50) and what the launcher adds over bwrap's floor.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { findSandboxBackend } from '../lib/sandbox/backend.js';
import { commandEnv } from '../lib/sandbox/environment.js';
import { launch } from '../lib/sandbox/launch.js';
import { sandboxSettingsOf, type SandboxSettings } from '../lib/sandbox/settings.js';
import { measurement, median, runIfMain, type BenchOptions, type BenchReport } from './harness.js';

/** The p-th percentile (nearest rank) of `values`. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** One `bash -c true`, launched as the bash tool launches it; its wall time in ms. */
function once(cwd: string, sandbox: SandboxSettings | undefined): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = launch('bash', ['-c', 'true'], {
      cwd,
      env: commandEnv(process.env, sandbox),
      detached: true,
      sandbox,
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`bash -c true exited ${code}`)),
    );
  });
}

/**
 * The floor: bwrap's minimal sandbox around the same command, spawned directly, with the
 * namespaces the launcher's sandbox has (a user namespace where the seccomp layer needs one) and
 * none it has not: each namespace costs its creation and its teardown.
 */
function bare(bwrap: string, cwd: string, userNamespace: boolean): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const args = [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-pid',
      '--unshare-net',
      ...(userNamespace ? ['--unshare-user'] : []),
      '--die-with-parent',
      '--',
      'bash',
      '-c',
      'true',
    ];
    const child = spawn(bwrap, args, {
      cwd,
      env: commandEnv(process.env, undefined),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`bare bwrap exited ${code}`)),
    );
  });
}

export async function run(options: BenchOptions): Promise<BenchReport> {
  const backend = findSandboxBackend();
  if (!backend) throw new Error('no sandbox backend works here (apt-get install bubblewrap)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-sandbox-'));
  const workspace = path.join(work, 'ws');
  fs.mkdirSync(path.join(workspace, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.git/config'), '[core]\n');
  const home = path.join(work, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  const settings = {
    ...sandboxSettingsOf({
      home,
      minicodeHome: path.join(home, '.minicode'),
      storeDir: path.join(home, '.minicode/store'),
      cwd: workspace,
    }),
    backend,
  };
  const n = options.quick ? 60 : 300;
  const plain: number[] = [];
  const boxed: number[] = [];
  const floor: number[] = [];
  const kinds = [
    () => once(workspace, undefined).then((ms) => plain.push(ms)),
    () => once(workspace, settings).then((ms) => boxed.push(ms)),
    () => bare(backend.command, workspace, backend.kind === 'bwrap' && backend.hardened).then((ms) => floor.push(ms)),
  ];
  for (let i = 0; i < 10; i++) await once(workspace, i % 2 ? settings : undefined);
  for (let i = 0; i < n; i++) {
    // All three each round, the order rotating so none always runs first.
    for (let k = 0; k < kinds.length; k++) await kinds[(i + k) % kinds.length]!();
  }
  fs.rmSync(work, { recursive: true, force: true });
  const overhead = median(boxed) - median(plain);
  const floorOverhead = median(floor) - median(plain);
  return {
    name: 'sandbox',
    title: 'the sandbox around one command: `bash -c true` in workspace-write vs unsandboxed and vs bare bwrap',
    description: `Wall time of \`bash -c true\` launched as the bash tool launches it, in the default workspace-write sandbox (${backend.kind}), with the sandbox off, and under bwrap's minimal sandbox with the same namespaces spawned directly (\`--ro-bind / / --unshare-pid --unshare-net\`, and \`--unshare-user\` with the seccomp layer; no minicode code, no policy: the floor of any bwrap launcher), rotated one by one in the same run; p50 and p99.`,
    measurements: [
      measurement('bash -c true, unsandboxed, p50', 'ms', [median(plain)], false),
      measurement('bash -c true, unsandboxed, p99', 'ms', [percentile(plain, 99)], false),
      measurement('bash -c true, bare bwrap (floor), p50', 'ms', [median(floor)], false),
      measurement('bash -c true, bare bwrap (floor), p99', 'ms', [percentile(floor, 99)], false),
      measurement('bash -c true, workspace-write sandbox, p50', 'ms', [median(boxed)], false),
      measurement('bash -c true, workspace-write sandbox, p99', 'ms', [percentile(boxed, 99)], false),
    ],
    ratios: [
      {
        label: 'sandbox overhead per command, p50 (ms), target <= 15',
        value: overhead,
        target: { op: '<=', value: 15 },
        unit: 'ms',
      },
      {
        label: 'sandbox overhead per command, p99 (ms)',
        value: percentile(boxed, 99) - percentile(plain, 99),
        unit: 'ms',
      },
      { label: "bare bwrap's own overhead, p50 (ms): the floor of the overhead", value: floorOverhead, unit: 'ms' },
      { label: 'what the launcher adds over bare bwrap, p50 (ms)', value: median(boxed) - median(floor), unit: 'ms' },
      { label: 'bash -c true: sandboxed / unsandboxed, p50', value: median(boxed) / median(plain) },
      { label: 'bash -c true: sandboxed / bare bwrap, p50', value: median(boxed) / median(floor) },
    ],
    notes: [
      `${n} launches of each, rotated; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
      `bare bwrap's own overhead is the floor of any bwrap launcher: ${floorOverhead.toFixed(1)} ms at p50 in this run${floorOverhead > 15 ? ', above the 15 ms target, which no bwrap launcher can meet on this machine' : ''}`,
      `the launcher's sandbox: ${backend.kind === 'bwrap' && backend.hardened ? 'with the seccomp filter and --disable-userns' : 'namespaces and mounts only (no seccomp layer on this machine)'}`,
    ],
  };
}

await runIfMain(import.meta.url, run);
