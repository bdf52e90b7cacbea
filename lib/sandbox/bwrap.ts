/**
 * A {@link SandboxPlan} as bubblewrap arguments (Linux). bwrap applies mounts in argument order,
 * so the order below is the policy:
 *
 * 1. the whole file system read-only: `/` bound once, recursively, with every mount below it
 *    made read-only by bwrap; then a fresh `/dev` and a `/proc` of the new PID namespace over
 *    the host's (so `/proc/self/cwd` and `/proc/PID/root` lead only into the sandbox);
 * 2. a private tmpfs on `/tmp`: the command's temp folder, gone when it ends, and the host's
 *    `/tmp` (other runs' worktrees, sockets) out of sight beneath it;
 * 3. hidden paths (an empty tmpfs or `/dev/null` in their place) outside the writable roots, then the writable roots bound read-write (a
 *    workspace under `/tmp` or under a hidden folder shows through), then hidden paths inside
 *    them, then `.git/hooks` and `.git/config` read-only again.
 *
 * Process side: a PID namespace (nothing outside can be signalled or traced), an IPC namespace
 * (the host's System V shared memory, semaphores and message queues, and its POSIX message
 * queues, are out of reach; its teardown happens after the command, off its path), `--die-with-parent`
 * (when bwrap is killed, by a timeout's process-group kill, the namespace's init dies and the
 * kernel kills every process in it), `--new-session` (no terminal to push keystrokes into), all
 * capabilities dropped (a sandbox entered as root could otherwise remount), and a network
 * namespace with only a loopback of its own unless the network is open. With a host allowlist,
 * the allowlisting proxy's unix socket (`proxySocket`, on the host) is bound at
 * {@link SANDBOX_PROXY_SOCKET}, the one way out of that namespace (proxy-bridge.ts).
 *
 * Hazards of binding `/` whole:
 * - the host's `/tmp`, `/proc` and `/dev` are in the sandbox's mount table, beneath its own:
 *   covering them is the boundary, and it holds because nothing inside can unmount (no
 *   capabilities; nested user namespaces refused; and a nested namespace would get the mounts
 *   locked together, which the kernel does not let it take apart);
 * - bwrap fails to start when a mount below `/` cannot be remounted read-only (one unmounted in
 *   the instant between bwrap reading the mount table and remounting it, or one the kernel
 *   refuses): the command fails with bwrap's message, never runs unsandboxed, and a machine
 *   where it always fails has no working backend (the probe of backend.ts runs these arguments).
 */
import type { SandboxPlan } from './plan.js';
import { SANDBOX_PROXY_SOCKET } from './proxy-bridge.js';

/**
 * The bwrap arguments for `plan`, before `--` and the command; `proxySocket`: the host path of
 * the command's proxy; `seccompFd`: the descriptor carrying the seccomp program (seccomp.ts),
 * which also turns on `--disable-userns` (no nested user namespaces; it needs `--unshare-user`).
 */
export function bwrapArgs(plan: SandboxPlan, proxySocket?: string, seccompFd?: number): string[] {
  // One bind of `/` rather than one per entry of `/`: each bind makes bwrap read the mount
  // table and remount what it bound, so the count of binds is most of what a start costs.
  const args: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const hide = (p: SandboxPlan['hiddenOutside'][number]) => {
    // Left writable: a writable root below it needs its mount point made there, and what is
    // written in it stays in the sandbox's memory, never reaching the hidden folder.
    if (p.kind === 'dir') args.push('--tmpfs', p.path);
    else args.push('--ro-bind', '/dev/null', p.path);
  };
  plan.hiddenOutside.forEach(hide);
  for (const root of plan.readableRoots) args.push('--ro-bind', root, root);
  for (const root of plan.writableRoots) args.push('--bind', root, root);
  plan.hiddenInside.forEach(hide);
  for (const p of plan.protectedPaths) {
    if (p.missing) args.push('--tmpfs', p.path, '--remount-ro', p.path);
    else args.push('--ro-bind', p.path, p.path);
  }
  // Last, so no root bound over /tmp covers it; read-only is enough, connecting to a socket is no write.
  if (proxySocket !== undefined) args.push('--ro-bind', proxySocket, SANDBOX_PROXY_SOCKET);
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (!plan.network) args.push('--unshare-net');
  if (seccompFd !== undefined) args.push('--unshare-user', '--disable-userns', '--seccomp', String(seccompFd));
  args.push('--chdir', plan.cwd);
  return args;
}
