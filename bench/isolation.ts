/**
 * bench/isolation: what `batch --isolate worktree` costs per line on a 10,000-file repository,
 * against the floor, raw `git worktree add --detach` + `git worktree remove --force` of the
 * same repository (what any worktree-per-task harness pays). Ours is the product path
 * (`runIsolated`): one `git rev-parse` for the repository, its commit and tree (the starting
 * snapshot), the marker, the worktree under the repository's worktree lock, a run that edits
 * one file, the patch (`git add -A` + `diff --cached --binary`) written to OUT/patches, and the
 * removal; the peer edits the same file. Lines run one after another (the cost of one
 * line, not the throughput of many); rounds of a few lines each alternate between the two.
 * Target: under 150 ms per line; the ratio to the floor says what our snapshot and patch add.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIsolated } from '../lib/batch/harness.js';
import type { BatchRecord } from '../lib/batch/records.js';
import { interleave, measurement, ratio, runIfMain, timeOnce, type BenchOptions, type BenchReport } from './harness.js';

const FILES = 10_000;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository of `FILES` small source files in 100 folders, one commit. */
function makeRepository(dir: string): string {
  const repo = path.join(dir, 'repo');
  for (let d = 0; d < 100; d++) {
    const folder = path.join(repo, 'src', `module-${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < FILES / 100; f++) fs.writeFileSync(path.join(folder, `file-${f}.ts`), `export const value${d}_${f} = ${d * 1000 + f};\n`);
  }
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  return repo;
}

const EDITED = path.join('src', 'module-0', 'file-0.ts');

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-isolation-'));
  const repo = makeRepository(work);
  const outDir = path.join(work, 'out');
  fs.mkdirSync(outDir);
  // Writing 10,000 files is disk-bound: a round is seconds on a busy machine, so rounds are few.
  const linesPerRound = options.quick ? 1 : 2;
  const rounds = options.quick ? 4 : 6;
  let n = 0;
  const ours = async (): Promise<void> => {
    for (let i = 0; i < linesPerRound; i++) {
      const id = `line-${n++}`;
      const record = await runIsolated({ id, line: n, prompt: 'edit' }, { isolate: 'worktree', outDir, baseDir: repo, cwd: repo }, async (line) => {
        fs.appendFileSync(path.join(line.cwd!, EDITED), '// edited\n');
        return { kind: 'result', id, line: n, outcome: 'completed', reason: 'completed', finalText: '' } satisfies BatchRecord;
      });
      if (!record.patch) throw new Error(`no patch for ${id}: ${JSON.stringify(record)}`);
    }
  };
  // Spawned the same way as ours (asynchronously), into the same temp folder.
  const gitAsync = promisify(execFile);
  const peerRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-isolation-peer-'));
  const floor = async (): Promise<void> => {
    for (let i = 0; i < linesPerRound; i++) {
      const root = path.join(peerRoot, `peer-${n++}`);
      await gitAsync('git', ['worktree', 'add', '--detach', '--quiet', root, 'HEAD'], { cwd: repo });
      fs.appendFileSync(path.join(root, EDITED), '// edited\n');
      await gitAsync('git', ['worktree', 'remove', '--force', root], { cwd: repo });
    }
  };
  // ABBA order: a round's deletions (10,000 files, discarded by the disk afterwards) slow down
  // whatever runs next, so each side goes first in half of the rounds.
  const samples: Record<'ours' | 'floor', number[]> = { ours: [], floor: [] };
  if (!options.quick) await interleave(1, { ours, floor }, 0);
  for (let r = 0; r < rounds; r++) {
    const order: ('ours' | 'floor')[] = r % 2 === 0 ? ['ours', 'floor'] : ['floor', 'ours'];
    for (const name of order) samples[name].push(await timeOnce(name === 'ours' ? ours : floor));
  }
  const perLine = (ms: number[]): number[] => ms.map((m) => m / linesPerRound);
  const mOurs = measurement('--isolate worktree per line (worktree, snapshot, patch, removal)', 'ms', perLine(samples.ours), false);
  const mFloor = measurement('git worktree add + remove per line (floor)', 'ms', perLine(samples.floor), false);
  const leftovers = git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;
  const clean = git(repo, 'status', '--porcelain') === '';
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(peerRoot, { recursive: true, force: true });
  return {
    name: 'isolation',
    title: `batch --isolate worktree: cost per line on a ${FILES.toLocaleString('en')}-file repository`,
    description:
      'The product path (runIsolated: rev-parse, worktree under the lock, one-file edit, patch to OUT/patches, removal) against raw git worktree add + remove; medians of interleaved rounds. Target: < 150 ms per line.',
    measurements: [mOurs, mFloor],
    ratios: [
      ratio('--isolate worktree / raw git worktree (per line)', mOurs, mFloor),
      { label: '--isolate worktree per line (ms), target <= 150', value: mOurs.median, target: { op: '<=', value: 150 }, unit: 'ms' },
    ],
    notes: [
      `${rounds} rounds of ${linesPerRound} line(s) each, in ABBA order; lines one after another`,
      `after the run: ${leftovers - 1} stray worktree(s), original repository ${clean ? 'untouched' : 'MODIFIED'}`,
      `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    ],
  };
}

await runIfMain(import.meta.url, run);
