/**
 * bench/isolation: what `batch --isolate worktree` costs per line on a 10,000-file repository,
 * against the floor, raw `git worktree add --detach` + `git worktree remove --force` of the
 * same repository (what any worktree-per-task harness pays per line). Ours is the product path
 * (`runIsolated` with the batch's worktree pool): the line's start read from the repository's
 * files (git once per folder and commit), a worktree from the pool, a run that edits one file,
 * the patch (`git add -A`, the staged diff against the start) written to OUT/patches, and the
 * reset that hands the worktree back (`git read-tree -u --reset`, `git clean -ffdx`). The peer
 * edits the same file.
 *
 * A pooled round is a small batch: its first line makes the pool's worktree (first use), the
 * next lines reuse it (the steady state, one line after another), and the batch's end removes
 * it; amortised is the round's total over its lines. Also timed: one `git status --porcelain`
 * of the worktree, the full check the reset does without (see lib/batch/worktree-pool.ts); a
 * reuse over it is a figure that the machine's load moves little (both are a git process
 * that stats every tracked file). Rounds alternate between ours and the floor, ABBA. Target:
 * under 150 ms per line.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runIsolated } from '../lib/batch/harness.js';
import type { BatchRecord } from '../lib/batch/records.js';
import { endWorkspaces } from '../lib/batch/workspace.js';
import { measurement, ratio, runIfMain, timeOnce, type BenchOptions, type BenchReport } from './harness.js';

const FILES = 10_000;
const gitAsync = promisify(execFile);

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository of `FILES` small source files in 100 folders, one commit. */
function makeRepository(dir: string): string {
  const repo = path.join(dir, 'repo');
  for (let d = 0; d < 100; d++) {
    const folder = path.join(repo, 'src', `module-${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < FILES / 100; f++)
      fs.writeFileSync(path.join(folder, `file-${f}.ts`), `export const value${d}_${f} = ${d * 1000 + f};\n`);
  }
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  return repo;
}

const EDITED = path.join('src', 'module-0', 'file-0.ts');

interface PooledRound {
  firstMs: number;
  /** Each reusing line's time. */
  reuseMs: number[];
  teardownMs: number;
  statusMs: number;
}

/** Run the benchmark. */
export async function run(options: BenchOptions): Promise<BenchReport> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-isolation-'));
  const repo = makeRepository(work);
  // Writing 10,000 files is disk-bound: a worktree is seconds on a busy machine, so rounds are few.
  const reusePerRound = options.quick ? 3 : 8;
  const floorPerRound = options.quick ? 1 : 2;
  const rounds = options.quick ? 2 : 4;
  let n = 0;
  const line = async (outDir: string): Promise<string> => {
    const id = `line-${n++}`;
    let cwd = '';
    const record = await runIsolated(
      { id, line: n, prompt: 'edit' },
      { isolate: 'worktree', outDir, baseDir: repo, cwd: repo, poolSize: 1 },
      async (l) => {
        cwd = l.cwd!;
        fs.appendFileSync(path.join(cwd, EDITED), '// edited\n');
        return {
          kind: 'result',
          id,
          line: n,
          outcome: 'completed',
          reason: 'completed',
          finalText: '',
        } satisfies BatchRecord;
      },
    );
    if (!record.patch) throw new Error(`no patch for ${id}: ${JSON.stringify(record)}`);
    return cwd;
  };
  const pooledRound = async (r: number): Promise<PooledRound> => {
    const outDir = path.join(work, `out-${r}`);
    let cwd = '';
    const firstMs = await timeOnce(async () => (cwd = await line(outDir)));
    const reuseMs: number[] = [];
    for (let i = 0; i < reusePerRound; i++) {
      reuseMs.push(
        await timeOnce(async () => {
          if ((await line(outDir)) !== cwd) throw new Error('the pool did not reuse its worktree');
        }),
      );
    }
    const statusMs = await timeOnce(() => gitAsync('git', ['status', '--porcelain'], { cwd }));
    const teardownMs = await timeOnce(() => endWorkspaces(outDir));
    return { firstMs, reuseMs, teardownMs, statusMs };
  };
  // Spawned the same way as ours (asynchronously), into the same temp folder.
  const peerRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-bench-isolation-peer-'));
  const floorRound = async (): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < floorPerRound; i++) {
      const root = path.join(peerRoot, `peer-${n++}`);
      times.push(
        await timeOnce(async () => {
          await gitAsync('git', ['worktree', 'add', '--detach', '--quiet', root, 'HEAD'], { cwd: repo });
          fs.appendFileSync(path.join(root, EDITED), '// edited\n');
          await gitAsync('git', ['worktree', 'remove', '--force', root], { cwd: repo });
        }),
      );
    }
    return times;
  };
  // ABBA order: a round's deletions (10,000 files, discarded by the disk afterwards) slow down
  // whatever runs next, so each side goes first in half of the rounds.
  const pooled: PooledRound[] = [];
  const floor: number[] = [];
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      pooled.push(await pooledRound(r));
      floor.push(mean(await floorRound()));
    } else {
      floor.push(mean(await floorRound()));
      pooled.push(await pooledRound(r));
    }
  }
  const linesPerRound = reusePerRound + 1;
  const mReuse = measurement(
    '--isolate worktree per line, reusing a pooled worktree (patch, reset)',
    'ms',
    pooled.map((p) => mean(p.reuseMs)),
    false,
  );
  const mFirst = measurement(
    '--isolate worktree, first use of the pool (the worktree is made)',
    'ms',
    pooled.map((p) => p.firstMs),
    false,
  );
  const mTeardown = measurement(
    'end of batch: the pool removed',
    'ms',
    pooled.map((p) => p.teardownMs),
    false,
  );
  const mAmortised = measurement(
    `--isolate worktree per line, amortised over a ${linesPerRound}-line batch (first use, reuse, removal)`,
    'ms',
    pooled.map((p) => (p.firstMs + p.reuseMs.reduce((a, b) => a + b, 0) + p.teardownMs) / linesPerRound),
    false,
  );
  const mStatus = measurement(
    'git status --porcelain of the worktree (the full check the reset skips)',
    'ms',
    pooled.map((p) => p.statusMs),
    false,
  );
  const mFloor = measurement('git worktree add + remove per line (floor)', 'ms', floor, false);
  const leftovers = git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree ')).length;
  const prunable = git(repo, 'worktree', 'prune', '--dry-run', '--verbose').trim();
  const clean = git(repo, 'status', '--porcelain') === '';
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(peerRoot, { recursive: true, force: true });
  return {
    name: 'isolation',
    title: `batch --isolate worktree: cost per line on a ${FILES.toLocaleString('en')}-file repository`,
    description:
      'The product path (runIsolated with the worktree pool: the start read from files, a pooled worktree, one-file edit, the staged diff to OUT/patches, the reset by read-tree and clean) against raw git worktree add + remove; first use, reuse, end-of-batch removal and the amortised cost per line; medians of interleaved rounds. Target: < 150 ms per line.',
    measurements: [mReuse, mFirst, mTeardown, mAmortised, mStatus, mFloor],
    ratios: [
      ratio('pooled worktree per line (reuse) / raw git worktree add + remove', mReuse, mFloor),
      ratio(
        `pooled worktree per line (amortised over ${linesPerRound} lines) / raw git worktree add + remove`,
        mAmortised,
        mFloor,
      ),
      ratio('first use of the pool / raw git worktree add + remove', mFirst, mFloor),
      ratio(
        'pooled worktree per line (reuse) / one git status --porcelain of the worktree (same rounds)',
        mReuse,
        mStatus,
      ),
      {
        label: '--isolate worktree per line, reusing the pool (ms), target <= 150',
        value: mReuse.median,
        target: { op: '<=', value: 150 },
        unit: 'ms',
      },
    ],
    notes: [
      `${rounds} rounds in ABBA order; a pooled round is a batch of ${linesPerRound} lines one after another (1 first use + ${reusePerRound} reuses, then the pool's removal); a floor round is ${floorPerRound} add + remove`,
      `after the run: ${leftovers - 1} stray worktree(s), ${prunable === '' ? 'nothing' : 'something'} for git worktree prune, original repository ${clean ? 'untouched' : 'MODIFIED'}`,
      `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
    ],
  };
}

await runIfMain(import.meta.url, run);
