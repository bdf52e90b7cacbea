/**
 * Whether a process id on this host belongs to a running process: the one probe behind every
 * lock and writer file that names its holder's pid (store open lock, session index, batch output
 * and repository locks).
 */

/** True when a process with this pid exists (signal 0 probes without sending anything; EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
