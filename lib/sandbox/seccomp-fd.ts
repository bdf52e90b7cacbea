/**
 * The seccomp program (seccomp.ts) where bwrap reads it, `--seccomp FD`: bwrap reads the
 * descriptor to its end before it sets up the sandbox. The program is written once per process
 * to a private file that is removed at once, its descriptor kept; each command gets a fresh
 * descriptor of it, opened through `/proc/self/fd`, which starts at offset 0 (a duplicate would
 * share one offset, and the second command would read nothing).
 *
 * Why a file and not a pipe: a pipe reaches its end only when node's event loop closes the
 * writing side, after the spawn, so every start waited for node to be scheduled again; a
 * file is readable to its end at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const held = new Map<Buffer, number>();

/** The descriptor kept for `program`, written and unlinked on first use. */
function heldDescriptor(program: Buffer): number {
  let fd = held.get(program);
  if (fd === undefined) {
    // A folder of mode 0700: nobody else can open or swap the file in the instant it has a name.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-seccomp-'));
    try {
      const file = path.join(dir, 'filter.bpf');
      fs.writeFileSync(file, program, { mode: 0o600 });
      fd = fs.openSync(file, 'r');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    held.set(program, fd);
  }
  return fd;
}

/** A new read-only descriptor of `program` at offset 0, for one bwrap start; the caller closes it once spawned. */
export function openSeccompProgram(program: Buffer): number {
  return fs.openSync(`/proc/self/fd/${heldDescriptor(program)}`, 'r');
}
