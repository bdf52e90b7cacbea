/**
 * The generated seccomp program (lib/sandbox/seccomp.ts), read back instruction by instruction:
 * the architecture is checked before any syscall number, x32 numbers are refused, the refused
 * calls answer EPERM (io_uring ENOSYS), everything else is allowed, and an unknown architecture
 * gets EPERM for everything. The escape suite proves it against the real kernel.
 */
import { describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../lib/sandbox/bwrap.js';
import { planSandbox } from '../../lib/sandbox/plan.js';
import { seccompProgram, seccompTables } from '../../lib/sandbox/seccomp.js';

/** The program as [code, jt, jf, k] tuples. */
function decode(bytes: Buffer): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let i = 0; i < bytes.length; i += 8)
    out.push([bytes.readUInt16LE(i), bytes.readUInt8(i + 2), bytes.readUInt8(i + 3), bytes.readUInt32LE(i + 4)]);
  return out;
}

/** Run the program the way the kernel would, on (arch, nr): its return value. */
function evaluate(program: [number, number, number, number][], arch: number, nr: number): number {
  let a = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const [code, jt, jf, k] = program[pc]!;
    if (code === 0x20) a = k === 4 ? arch : nr;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end');
}

describe('the seccomp program', () => {
  const program = decode(seccompProgram(seccompTables('x64')!));
  const X86_64 = 0xc000003e;
  const I386 = 0x40000003;

  it('checks the architecture first and ends refusing every call of an unknown one', () => {
    expect(program[0]).toEqual([0x20, 0, 0, 4]);
    expect(program.at(-1)).toEqual([0x06, 0, 0, 0x50001]);
    expect(evaluate(program, 0xc00000b7, 0)).toBe(0x50001);
  });

  it('refuses the keyring, bpf, perf and module calls with EPERM, io_uring with ENOSYS, x32 numbers, and allows the rest', () => {
    for (const nr of [250, 248, 249, 321, 298, 323, 175]) expect(evaluate(program, X86_64, nr)).toBe(0x50001);
    expect(evaluate(program, X86_64, 425)).toBe(0x50026);
    expect(evaluate(program, X86_64, 0x40000000 + 1)).toBe(0x50001);
    for (const nr of [0, 1, 2, 56, 59, 101, 272, 435]) expect(evaluate(program, X86_64, nr)).toBe(0x7fff0000);
    expect(evaluate(program, I386, 288)).toBe(0x50001);
    expect(evaluate(program, I386, 11)).toBe(0x7fff0000);
  });

  it('has no table for an architecture it does not know, and bwrap gets it with nested user namespaces disabled', () => {
    expect(seccompTables('ia32')).toBeUndefined();
    const args = bwrapArgs(
      planSandbox(
        {
          mode: 'read-only',
          network: false,
          allowHosts: [],
          readDeny: [],
          writeAllow: [],
          env: { inherit: 'all', pass: [] },
        },
        '/',
      ),
      undefined,
      3,
    );
    expect(args.join(' ')).toContain('--unshare-user --disable-userns --seccomp 3');
  });
});
