/**
 * Snapshots from the store's persistent index against git from scratch: on random work trees
 * changed at random (edits, new folders, deletions, modes, symlinks, ignored files, same-size
 * rewrites within the index's own second), each snapshot, which hashes only what git's stat
 * cache says changed, gives the tree `git add -A && git write-tree` gives with a fresh index,
 * and leaves an index git finds clean against the work tree.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKPOINT_LIMITS } from '../../lib/checkpoints/settings.js';
import { takeSnapshot } from '../../lib/checkpoints/snapshot.js';
import { openWorkspaceStore } from '../../lib/checkpoints/store.js';
import { git, tempDir } from './helpers.js';

const SLOW = { timeout: 240_000 };

/** Git on an explicit git dir / work tree / index, the test's own (never the store's code). */
function gitAt(env: { dir: string; work: string; index: string }, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: env.work,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_DIR: env.dir,
      GIT_WORK_TREE: env.work,
      GIT_INDEX_FILE: env.index,
    },
  });
}

const NAMES = ['a', 'b', 'src', 'lib', 'x.txt', 'y.bin', 'é', 'a-b', 'a.b', 'z'];
const pathArb = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

/** Write `file` unless a parent is a file or it is a folder; false when it could not be. */
function writeAt(root: string, rel: string, content: Buffer | string): boolean {
  try {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    if (fs.existsSync(path.join(root, rel)) && fs.lstatSync(path.join(root, rel)).isDirectory()) return false;
    fs.writeFileSync(path.join(root, rel), content);
    return true;
  } catch {
    return false;
  }
}

/** One random change of the work tree. */
type Change =
  | { op: 'write'; path: string; text: string }
  | { op: 'rm'; pick: number }
  | { op: 'chmod'; pick: number }
  | { op: 'symlink'; path: string; target: string }
  | { op: 'ignored'; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'same-size'; pick: number };

const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path: pathArb, text: fc.string({ maxLength: 20 }) }),
  fc.record({ op: fc.constant('rm' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('chmod' as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant('symlink' as const),
    path: pathArb,
    target: fc.constantFrom('x.txt', '../a', 'nowhere'),
  }),
  fc.record({ op: fc.constant('ignored' as const), path: pathArb }),
  fc.record({ op: fc.constant('mkdir' as const), path: pathArb }),
  fc.record({ op: fc.constant('same-size' as const), pick: fc.nat() }),
);

/** Files of the work tree (not .git), relative. */
function filesOf(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(root, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)))
    .filter((p) => !p.startsWith('.git'))
    .sort();
}

function apply(root: string, change: Change): void {
  const files = filesOf(root).filter((f) => f !== '.gitignore');
  const picked = files.length > 0 && 'pick' in change ? path.join(root, files[change.pick % files.length]!) : undefined;
  switch (change.op) {
    case 'write':
      writeAt(root, change.path, change.text);
      break;
    case 'rm':
      if (picked) fs.rmSync(picked, { force: true });
      break;
    case 'chmod':
      if (picked && !fs.lstatSync(picked).isSymbolicLink()) fs.chmodSync(picked, fs.statSync(picked).mode ^ 0o111);
      break;
    case 'symlink':
      try {
        fs.mkdirSync(path.dirname(path.join(root, change.path)), { recursive: true });
        fs.symlinkSync(change.target, path.join(root, change.path));
      } catch {
        // a path already there
      }
      break;
    case 'ignored':
      writeAt(root, `${change.path}.log`, 'ignored\n');
      break;
    case 'mkdir':
      try {
        fs.mkdirSync(path.join(root, change.path), { recursive: true });
      } catch {
        // a file in the way
      }
      break;
    case 'same-size':
      // Same size, rewritten at once: only the racy-clean rule can tell.
      if (picked && fs.lstatSync(picked).isFile()) {
        const data = fs.readFileSync(picked);
        if (data.length > 0) {
          data[0] = data[0] === 0x41 ? 0x42 : 0x41;
          fs.writeFileSync(picked, data);
        }
      }
      break;
  }
}

describe('a snapshot from the store index', () => {
  it('gives the tree git gives from a fresh index, after any sequence of changes', SLOW, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(changeArb, { maxLength: 6 }), { minLength: 2, maxLength: 5 }),
        async (rounds) => {
          const work = tempDir('minicode-ckpt-snap-');
          const home = tempDir('minicode-ckpt-snap-home-');
          fs.writeFileSync(path.join(work, '.gitignore'), '*.log\nbuild/\n');
          writeAt(work, 'src/x.txt', 'x\n');
          // Ignored files kept (their own rule, test/checkpoints/ignored-files.test.ts) are off here:
          // the reference is git's own add -A.
          const store = await openWorkspaceStore(home, work, { ...DEFAULT_CHECKPOINT_LIMITS, maxIgnoredFileBytes: 0 });
          const reference = {
            dir: path.join(home, 'reference.git'),
            work: fs.realpathSync(work),
            index: path.join(home, 'reference-index'),
          };
          execFileSync('git', ['init', '-q', '--bare', reference.dir]);
          fs.copyFileSync(path.join(store.gitDir, 'info', 'exclude'), path.join(reference.dir, 'info', 'exclude'));
          const gitTree = (): string => {
            fs.rmSync(reference.index, { force: true });
            gitAt(reference, 'add', '-A');
            return gitAt(reference, 'write-tree').trim();
          };
          expect((await takeSnapshot(store, { message: 'first' })).tree).toBe(gitTree());
          for (const changes of rounds) {
            for (const change of changes) apply(work, change);
            const snap = await takeSnapshot(store, { message: 'later', reportSkippedDirs: false });
            expect(snap.tree).toBe(gitTree());
            // The index it leaves is the snapshot's tree, clean against the work tree.
            const check = { dir: store.gitDir, work: reference.work, index: path.join(store.gitDir, 'minicode-index') };
            expect(gitAt(check, 'write-tree').trim()).toBe(snap.tree);
            expect(gitAt(check, 'ls-files', '--modified', '--deleted').trim()).toBe('');
          }
          fs.rmSync(work, { recursive: true, force: true });
          fs.rmSync(home, { recursive: true, force: true });
        },
      ),
      { numRuns: 12 },
    );
  });
});
