/**
 * Paired A/B of the product's git work across two builds, both in ONE process, rounds
 * interleaved (A B, B A, ...), each build on its own copy of the same generated repository:
 *  - checkpoints (bench/checkpoints.ts's workload: 10,000 files of 2,000 bytes, committed): the
 *    first checkpoint of a workspace, a later turn (the checkpoint before the first changing
 *    call plus the snapshot after it; the call modifies 5 files, creates 2 and deletes 1) and
 *    the undo of that turn; beside them the floor, git itself on a third copy: `git add -A` +
 *    `git write-tree` into a persistent index (its stat cache warm) before and after the same
 *    changes;
 *  - batch isolation (bench/isolation.ts's workload: 10,000 small files): a line reusing a
 *    pooled worktree (its start, a one-file edit, the patch, the reset); beside it the floor of
 *    a reset through git, the same git commands run bare on a worktree of their own.
 *
 *   node bench/dist/bench/support/ab-git-paths.js <root A> <root B> [--rounds N] [--only checkpoints|isolation]
 *
 * A root is a checkout with a compiled `dist/`. Prints each side's medians and the median of the
 * per-round ratios B / A.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { abRoots, flagValue, median, option } from './ab-args.js';

type Turns = typeof import('../../lib/checkpoints/turn.js');
type Undo = typeof import('../../lib/checkpoints/undo.js');
type Harness = typeof import('../../lib/batch/harness.js');
type Workspaces = typeof import('../../lib/batch/workspace.js');

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  // No automatic gc in the background: the generated repository is copied right after its commit.
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_AUTHOR_NAME: 'ab',
  GIT_AUTHOR_EMAIL: 'ab@example.invalid',
  GIT_COMMITTER_NAME: 'ab',
  GIT_COMMITTER_EMAIL: 'ab@example.invalid',
};
const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): string =>
  execFileSync('git', args, { cwd, env: { ...GIT_ENV, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });

/** `files` files of `bytes` bytes each in `folders(i)`, committed. */
function repository(dir: string, files: number, folder: (i: number) => string, content: (i: number) => string): void {
  for (let i = 0; i < files; i++) {
    fs.mkdirSync(path.join(dir, folder(i)), { recursive: true });
    fs.writeFileSync(path.join(dir, folder(i), `f${i}.ts`), content(i));
  }
  git(dir, ['init', '-q']);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-qm', 'generated']);
}

/** bench/checkpoints.ts's turn: 5 files modified, 2 created, 1 deleted (round `r` picks others). */
function changeFiles(dir: string, r: number): void {
  const file = (i: number): string => path.join(dir, 'src', `m${i % 100}`, `s${i % 7}`, `f${i}.ts`);
  for (let k = 0; k < 5; k++) fs.appendFileSync(file(r * 5 + k), `\n// round ${r}\n`);
  fs.writeFileSync(path.join(dir, `new-${r}-a.ts`), `export const a = ${r};\n`);
  fs.writeFileSync(path.join(dir, `new-${r}-b.ts`), `export const b = ${r};\n`);
  fs.rmSync(file(5000 + r), { force: true });
}

const time = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

interface Row {
  label: string;
  a: number[];
  b: number[];
}

function report(rows: Row[], roots: readonly string[]): void {
  for (const row of rows) {
    const ratios = row.a.map((x, i) => (row.b[i] ?? Number.NaN) / x);
    process.stdout.write(
      `${row.label}\n  A ${median(row.a).toFixed(1)} ms  B ${median(row.b).toFixed(1)} ms  B/A per round, median ${median(ratios).toFixed(2)}x  (n=${row.a.length})\n`,
    );
  }
  process.stdout.write(
    `A = ${roots[0]}\nB = ${roots[1]}\nload average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} on ${os.cpus().length} cores\n`,
  );
}

async function checkpoints(roots: readonly string[], rounds: number, work: string): Promise<Row[]> {
  const base = path.join(work, 'ckpt');
  let seed = 20;
  const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  const content = (i: number): string => {
    const lines: string[] = [];
    for (let size = 0; size < 2000; size += lines.at(-1)!.length + 1)
      lines.push(`export const v${i}_${lines.length} = ${next()}; // ${next().toString(36)}`);
    return lines.join('\n').slice(0, 2000);
  };
  repository(base, 10_000, (i) => path.join('src', `m${i % 100}`, `s${i % 7}`), content);
  const sides = await Promise.all(
    roots.map(async (root, n) => {
      const dist = (file: string): string => pathToFileURL(path.resolve(root, 'dist', file)).href;
      const repo = path.join(work, `ckpt-${n}`);
      fs.cpSync(base, repo, { recursive: true });
      const settings = await import(dist('lib/checkpoints/settings.js'));
      const limits = { ...settings.DEFAULT_CHECKPOINT_LIMITS };
      return {
        repo,
        limits,
        turns: (await import(dist('lib/checkpoints/turn.js'))) as Turns,
        undo: (await import(dist('lib/checkpoints/undo.js'))) as Undo,
      };
    }),
  );
  const floorRepo = path.join(work, 'ckpt-floor');
  fs.cpSync(base, floorRepo, { recursive: true });
  const floorEnv = {
    GIT_DIR: path.join(work, 'floor.git'),
    GIT_WORK_TREE: floorRepo,
    GIT_INDEX_FILE: path.join(work, 'floor-index'),
  };
  git(work, ['init', '-q', '--bare', floorEnv.GIT_DIR]);
  const floorSnapshot = (): void => {
    git(floorRepo, ['add', '-A'], floorEnv);
    git(floorRepo, ['write-tree'], floorEnv);
  };
  floorSnapshot();
  const emit = (): void => {};
  const first: Row = { label: 'first checkpoint of the workspace (fresh store)', a: [], b: [] };
  const turn: Row = { label: 'a later turn (checkpoint + snapshot after one changing call)', a: [], b: [] };
  const undo: Row = { label: 'undo of that turn', a: [], b: [] };
  const floor: Row = {
    label: 'floor: git add -A + write-tree, persistent index, before and after the same changes',
    a: [],
    b: [],
  };
  const firstRounds = Math.max(3, Math.ceil(rounds / 2));
  for (let r = 0; r < firstRounds; r++) {
    for (const n of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[n]!;
      const hooks = side.turns.createTurnCheckpoints({
        settings: { home: path.join(work, `first-${n}-${r}`), limits: side.limits },
        cwd: side.repo,
        sessionId: 'ab',
        turn: 1,
        emit,
      });
      (n === 0 ? first.a : first.b).push(await time(() => hooks.beforeChange()));
    }
  }
  const homes = sides.map((_, n) => path.join(work, `home-${n}`));
  for (const [n, side] of sides.entries())
    await side.turns
      .createTurnCheckpoints({
        settings: { home: homes[n]!, limits: side.limits },
        cwd: side.repo,
        sessionId: 'ab',
        turn: 0,
        emit,
      })
      .beforeChange();
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[n]!;
      const settings = { home: homes[n]!, limits: side.limits };
      const hooks = side.turns.createTurnCheckpoints({ settings, cwd: side.repo, sessionId: 'ab', turn: r + 1, emit });
      let ms = await time(() => hooks.beforeChange());
      changeFiles(side.repo, r);
      let changed = 0;
      ms += await time(async () => (changed = (await hooks.afterChange())?.length ?? 0));
      if (changed !== 8) throw new Error(`${roots[n]}: expected 8 changed files, saw ${changed}`);
      (n === 0 ? turn.a : turn.b).push(ms);
      (n === 0 ? undo.a : undo.b).push(await time(() => side.undo.undoWorkspace({ settings, cwd: side.repo })));
    }
    let ms = await time(async () => floorSnapshot());
    changeFiles(floorRepo, r);
    ms += await time(async () => floorSnapshot());
    floor.a.push(ms);
    floor.b.push(ms);
  }
  return [first, turn, undo, floor];
}

async function isolation(roots: readonly string[], rounds: number, work: string): Promise<Row[]> {
  const repo = path.join(work, 'iso');
  repository(
    repo,
    10_000,
    (i) => path.join('src', `module-${i % 100}`),
    (i) => `export const value${i} = ${i};\n`,
  );
  const edited = path.join('src', 'module-0', 'f0.ts');
  const sides = await Promise.all(
    roots.map(async (root, n) => {
      const dist = (file: string): string => pathToFileURL(path.resolve(root, 'dist', file)).href;
      return {
        outDir: path.join(work, `iso-out-${n}`),
        harness: (await import(dist('lib/batch/harness.js'))) as Harness,
        workspaces: (await import(dist('lib/batch/workspace.js'))) as Workspaces,
      };
    }),
  );
  let id = 0;
  const line = async (n: number): Promise<void> => {
    const side = sides[n]!;
    const lineId = `line-${id++}`;
    const record = await side.harness.runIsolated(
      { id: lineId, line: id, prompt: 'edit' },
      { isolate: 'worktree', outDir: side.outDir, baseDir: repo, cwd: repo, poolSize: 1 },
      async (l) => {
        fs.appendFileSync(path.join(l.cwd!, edited), '// edited\n');
        return { kind: 'result', id: lineId, line: id, outcome: 'completed', reason: 'completed', finalText: '' };
      },
    );
    if (!record.patch) throw new Error(`${roots[n]}: no patch for ${lineId}: ${JSON.stringify(record)}`);
  };
  const reuse: Row = {
    label: 'batch --isolate worktree: a line reusing a pooled worktree (start, edit, patch, reset)',
    a: [],
    b: [],
  };
  const floor: Row = {
    label:
      'floor: the same edit, patch and reset as bare git commands (add -A, diff --cached beside clean -ffdx, read-tree -u --reset)',
    a: [],
    b: [],
  };
  // A worktree of its own for the floor, reset by git alone with the commands the pool runs.
  const floorTree = path.join(work, 'iso-floor');
  git(repo, ['worktree', 'add', '--detach', '--quiet', floorTree, 'HEAD']);
  const tree = git(repo, ['rev-parse', 'HEAD^{tree}']).trim();
  const gitAsync = promisify(execFile);
  const floorLine = async (): Promise<void> => {
    fs.appendFileSync(path.join(floorTree, edited), '// edited\n');
    await gitAsync('git', ['add', '-A'], { cwd: floorTree, env: GIT_ENV });
    await Promise.all([
      gitAsync('git', ['diff', '--cached', '--binary', '--no-renames', tree], {
        cwd: floorTree,
        env: GIT_ENV,
        maxBuffer: 1 << 26,
      }),
      gitAsync('git', ['clean', '-ffdxq'], { cwd: floorTree, env: GIT_ENV }),
    ]);
    await gitAsync('git', ['read-tree', '-u', '--reset', tree], { cwd: floorTree, env: GIT_ENV });
  };
  // First use makes each side's worktree (seconds, disk-bound): not timed.
  for (const n of [0, 1]) await line(n);
  await floorLine();
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 === 0 ? [0, 1] : [1, 0]) (n === 0 ? reuse.a : reuse.b).push(await time(() => line(n)));
    const ms = await time(floorLine);
    floor.a.push(ms);
    floor.b.push(ms);
  }
  for (const side of sides) await side.workspaces.endWorkspaces(side.outDir);
  return [reuse, floor];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roots = abRoots(
    args,
    ['--rounds', '--only'],
    'ab-git-paths.js <root A> <root B> [--rounds N] [--only checkpoints|isolation]',
  );
  const rounds = option(args, '--rounds', 9);
  const only = flagValue(args, '--only');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-ab-git-paths-'));
  try {
    const rows = [
      ...(only !== 'isolation' ? await checkpoints(roots, rounds, work) : []),
      ...(only !== 'checkpoints' ? await isolation(roots, rounds, work) : []),
    ];
    report(rows, roots);
  } finally {
    // Retried: a checkpoint store's background gc may still be writing.
    fs.rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  }
}

await main();
