/**
 * A real small file system for full-disk tests: a tmpfs of a few MiB mounted on a scratch
 * folder (root only). Where mounting is not allowed the tests that need it are skipped, and
 * `SMALL_DISK_SKIP` says why.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function probe(): string | undefined {
  if (process.platform !== 'linux') return 'a tmpfs mount needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-disk-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs is not allowed here (${(error as Error).message.split('\n')[0]})`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Why the full-disk tests cannot run here, or undefined when they can. */
export const SMALL_DISK_SKIP = probe();

/** A mounted tmpfs. */
export interface SmallDisk {
  dir: string;
  /** Fill the disk until `leaveBytes` (rounded to pages) are free, with one file. */
  fill(leaveBytes: number): void;
  /** Remove the filler file. */
  unfill(): void;
  unmount(): void;
}

/** Mount a tmpfs of `sizeKiB` on a fresh folder (`readOnly`: one nobody can write, root included). */
export function mountSmallDisk(sizeKiB: number, options: { readOnly?: boolean } = {}): SmallDisk {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `${options.readOnly ? 'ro,' : ''}size=${sizeKiB}k`, 'tmpfs', dir], {
    stdio: 'pipe',
  });
  const filler = path.join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes) {
      const s = fs.statfsSync(dir);
      const bytes = Math.max(0, s.bavail * s.bsize - leaveBytes);
      fs.appendFileSync(filler, Buffer.alloc(bytes, 1));
    },
    unfill() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
