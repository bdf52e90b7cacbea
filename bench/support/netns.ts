/**
 * A loopback-only network namespace for benchmarks that run third-party agent CLIs: inside
 * `unshare -n` (with `lo` brought up) the only reachable network is 127.0.0.1, so a peer's
 * telemetry, update checks and model look-ups fail at once instead of going out, and every run
 * talks to the bench's loopback provider alone. `unshare -rn` (a user namespace too) is tried
 * when plain `-n` is refused; when neither works the caller runs in place and says so.
 */
import { spawn, spawnSync } from 'node:child_process';

/** The environment variable that marks a process already inside the namespace (its value: the unshare flags). */
export const NETNS_MARK = 'MINICODE_BENCH_NETNS';
const LO_UP = 'PATH="$PATH:/usr/sbin:/sbin"; ip link set lo up';

/** The unshare flags that give a loopback-only namespace here, or why none can be had. */
export function netnsFlags(): { flags: string[] } | { reason: string } {
  const reasons: string[] = [];
  for (const flags of [['-n'], ['-r', '-n']]) {
    const probe = spawnSync('unshare', [...flags, 'sh', '-c', LO_UP], { encoding: 'utf8' });
    if (probe.status === 0) return { flags };
    reasons.push(
      `unshare ${flags.join(' ')}: ${(probe.error?.message ?? probe.stderr ?? '').trim().split('\n')[0] || `exit ${probe.status}`}`,
    );
  }
  return { reason: reasons.join('; ') };
}

/** Run `node <args>` inside the namespace; resolves with its stdout (stderr passes through) or rejects on a non-zero exit. */
export function runInNetns(
  flags: readonly string[],
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', [...flags, 'sh', '-c', `${LO_UP} && exec "$0" "$@"`, process.execPath, ...args], {
      env: { ...env, [NETNS_MARK]: flags.join(' ') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(Buffer.concat(out).toString('utf8'))
        : reject(new Error(`the benchmark inside the network namespace exited ${code}`)),
    );
  });
}
