/**
 * A {@link SandboxPlan} as a macOS Seatbelt profile for `sandbox-exec -p PROFILE`. Seatbelt
 * decides by the last matching rule, so the profile reads top-down like bwrap's mount order:
 * deny everything, allow process basics and reading, deny the hidden paths, allow writing the
 * writable roots and the temp folder, deny writing the protected git paths; network rules last.
 * Paths are matched at their real location (planned with links resolved) and quoted as
 * Scheme strings.
 */
import type { SandboxPlan } from './plan.js';

/** A path as a Seatbelt string literal. */
function quote(p: string): string {
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The Seatbelt profile text for `plan`; `tmpdir` is the command's private temp folder;
 * `proxyPort`: the loopback port of the command's allowlisting proxy, the one connection allowed
 * out when the network is otherwise off.
 */
export function seatbeltProfile(plan: SandboxPlan, tmpdir: string, proxyPort?: number): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow pseudo-tty)',
    '(allow file-ioctl)',
    '(allow file-read*)',
  ];
  const hidden = [...plan.hiddenOutside, ...plan.hiddenInside];
  if (hidden.length > 0)
    lines.push(
      `(deny file-read* ${hidden.map((h) => `(${h.kind === 'dir' ? 'subpath' : 'literal'} ${quote(h.path)})`).join(' ')})`,
    );
  const writable = [
    ...plan.writableRoots.map((r) => `(subpath ${quote(r)})`),
    `(subpath ${quote(tmpdir)})`,
    '(literal "/dev/null")',
    '(literal "/dev/tty")',
  ];
  lines.push(`(allow file-write* ${writable.join(' ')})`);
  if (plan.protectedPaths.length > 0)
    lines.push(`(deny file-write* ${plan.protectedPaths.map((p) => `(subpath ${quote(p.path)})`).join(' ')})`);
  // Network off: no rule, so `deny default` refuses every socket connection.
  if (plan.network) lines.push('(allow network*)');
  else if (proxyPort !== undefined) lines.push(`(allow network-outbound (remote ip "localhost:${proxyPort}"))`);
  return `${lines.join('\n')}\n`;
}
