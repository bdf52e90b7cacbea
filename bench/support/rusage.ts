/**
 * What measures a child process's CPU time and peak RSS: `rusage-run` (bench/support/rusage-run.c,
 * compiled here with the machine's C compiler: wait4's figures to the microsecond), else
 * `/usr/bin/time` (the same figures in hundredths of a second, too coarse for a run of 0.1-0.2
 * s), else nothing. Both count the process and the children it waited for.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TIME = '/usr/bin/time';

/** A wrapper that runs a command and writes "<user s> <sys s> <max RSS KiB>" to a file. */
export interface Meter {
  /** The wrapper's command line before the measured command. */
  prefix: (file: string) => string[];
  /** What the figures come from, for a report's note. */
  describe: string;
}

/** Build (into `scratch`) or find a meter; `root` holds bench/support/rusage-run.c. */
export function cpuMeter(root: string, scratch: string): Meter | undefined {
  const source = path.join(root, 'bench/support/rusage-run.c');
  const binary = path.join(scratch, 'rusage-run');
  for (const cc of ['cc', 'gcc', 'clang']) {
    if (!fs.existsSync(source)) break;
    const built = spawnSync(cc, ['-O2', '-o', binary, source], { stdio: 'ignore' });
    if (built.status === 0) {
      return {
        prefix: (file) => [binary, file],
        describe: 'wait4(2) in a small wrapper (bench/support/rusage-run.c), to the microsecond',
      };
    }
  }
  if (!fs.existsSync(TIME)) return undefined;
  return {
    prefix: (file) => [TIME, '-o', file, '-f', '%U %S %M'],
    describe: '/usr/bin/time -f "%U %S %M", in hundredths of a second (no C compiler for bench/support/rusage-run.c)',
  };
}

/** The figures a meter wrote: CPU seconds (user + sys) and peak RSS in MB. */
export function readMeter(file: string): { cpuS: number; rssMB: number } {
  const [user, sys, maxKb] = fs.readFileSync(file, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { cpuS: user! + sys!, rssMB: maxKb! / 1024 };
}
