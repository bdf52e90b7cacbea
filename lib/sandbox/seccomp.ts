/**
 * The seccomp layer of the bubblewrap sandbox: a classic BPF program, generated here, that bwrap
 * installs (`--seccomp FD`) before it runs the command. It refuses the system calls the
 * namespaces leave open and a command has no business making:
 *
 * - the kernel keyrings (`keyctl`, `add_key`, `request_key`): keyrings are not part of the mount
 *   or PID namespaces, so without this a command could read secrets the user keeps there
 *   (Kerberos tickets, credential helpers);
 * - kernel attack surface unprivileged code can reach (`bpf`, `perf_event_open`, `userfaultfd`,
 *   `io_uring_*`; io_uring also runs operations outside seccomp's view) and what needs
 *   privileges anyway (`kexec_*`, `*_module`).
 *
 * Nested user namespaces, the other big piece of attack surface, are refused by bwrap itself
 * (`--disable-userns`), which needs no filter on `clone`'s flags.
 *
 * Hazards answered here:
 * - the syscall number is only meaningful with its architecture: the program checks
 *   `seccomp_data.arch` first, and has a table for each architecture a process of this machine
 *   can run (x86_64 and i386 on x86_64; aarch64); any other architecture gets EPERM for every call;
 * - the x32 ABI shares x86_64's arch value with numbers from 0x40000000 up: refused;
 * - `io_uring_*` answer ENOSYS, as on a kernel without it, so programs fall back to plain calls;
 *   the rest answer EPERM, as a policy refusal.
 */

/** One architecture's table: its `AUDIT_ARCH_*` value and the numbers of the refused calls. */
interface ArchTable {
  arch: number;
  /** Refuse numbers from here up (x32 on x86_64). */
  refuseFrom?: number;
  eperm: readonly number[];
  enosys: readonly number[];
}

const EPERM = 1;
const ENOSYS = 38;

// keyctl, add_key, request_key, bpf, perf_event_open, userfaultfd, kexec_load, kexec_file_load, init_module, finit_module, delete_module
const X86_64: ArchTable = {
  arch: 0xc000003e,
  refuseFrom: 0x40000000,
  eperm: [250, 248, 249, 321, 298, 323, 246, 320, 175, 313, 176],
  enosys: [425, 426, 427],
};
// The same calls in the i386 numbering (no kexec_file_load there).
const I386: ArchTable = {
  arch: 0x40000003,
  eperm: [288, 286, 287, 357, 336, 374, 283, 128, 350, 129],
  enosys: [425, 426, 427],
};
const AARCH64: ArchTable = {
  arch: 0xc00000b7,
  eperm: [219, 217, 218, 280, 241, 282, 104, 294, 105, 273, 106],
  enosys: [425, 426, 427],
};

/** The tables for a Node `process.arch`; undefined where there is none (no seccomp layer). */
export function seccompTables(arch: string = process.arch): readonly ArchTable[] | undefined {
  if (arch === 'x64') return [X86_64, I386];
  if (arch === 'arm64') return [AARCH64];
  return undefined;
}

// Classic BPF opcodes (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;
/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The instructions of one architecture's block, after its arch check: load the number, refuse the listed ones, allow the rest. */
function archBlock(table: ArchTable): Instruction[] {
  const block: Instruction[] = [[LD_W_ABS, 0, 0, NR]];
  if (table.refuseFrom !== undefined) block.push([JGE_K, 0, 1, table.refuseFrom], [RET_K, 0, 0, retErrno(EPERM)]);
  for (const nr of table.eperm) block.push([JEQ_K, 0, 1, nr], [RET_K, 0, 0, retErrno(EPERM)]);
  for (const nr of table.enosys) block.push([JEQ_K, 0, 1, nr], [RET_K, 0, 0, retErrno(ENOSYS)]);
  block.push([RET_K, 0, 0, RET_ALLOW]);
  return block;
}

/** The filter as the bytes of a `struct sock_filter` array (little-endian: both tables' machines are), for bwrap's `--seccomp`. */
export function seccompProgram(tables: readonly ArchTable[]): Buffer {
  const program: Instruction[] = [];
  for (const table of tables) {
    const block = archBlock(table);
    // On a match fall into the block; else jump over it to the next architecture's check.
    program.push([LD_W_ABS, 0, 0, ARCH], [JEQ_K, 0, block.length, table.arch], ...block);
  }
  program.push([RET_K, 0, 0, retErrno(EPERM)]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}

const programs = new Map<string, Buffer | undefined>();

/** The program for a Node `process.arch` (default this process's), built once per process; undefined where there is no table. */
export function seccompProgramFor(arch: string = process.arch): Buffer | undefined {
  if (!programs.has(arch)) {
    const tables = seccompTables(arch);
    programs.set(arch, tables ? seccompProgram(tables) : undefined);
  }
  return programs.get(arch);
}
