/**
 * The in-process index reader and snapshot against real git: the parsed entries are what
 * `git ls-files --stage --debug` prints, and on random work trees changed at random (edits,
 * new folders, deletions, modes, symlinks, ignored files, same-instant rewrites) the in-process
 * snapshot gives the tree `git add -A && git write-tree` gives, and the diff `git diff-tree` gives.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastSnapshot } from '../../lib/checkpoints/fast-snapshot.js';
import { editIndex, entryAt, indexBytes, viewIndex } from '../../lib/checkpoints/index-file.js';
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
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_DIR: env.dir, GIT_WORK_TREE: env.work, GIT_INDEX_FILE: env.index },
  });
}

/** `ls-files --stage --debug` as records comparable with parsed entries. */
function lsFilesDebug(dir: string): string[] {
  const out = git(dir, '-c', 'core.quotePath=false', 'ls-files', '--stage', '--debug');
  const records: string[] = [];
  const lines = out.split('\n');
  for (let i = 0; i + 5 < lines.length; i += 6) {
    const [head, ctime, mtime, devIno, uidGid, sizeFlags] = lines.slice(i, i + 6);
    const [meta, name] = head!.split('\t');
    const [mode, oid] = meta!.split(' ');
    const nums = [ctime, mtime, devIno, uidGid, sizeFlags].join(' ').match(/\d+/g)!;
    records.push(`${name} ${mode} ${oid} ${nums.slice(0, 9).join(' ')}`);
  }
  return records;
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

describe('the in-process index reader', () => {
  it('reads every entry of git-written indexes as git lists it, and writes the same bytes back', SLOW, () => {
    fc.assert(
      fc.property(fc.uniqueArray(pathArb, { minLength: 1, maxLength: 25 }), fc.boolean(), (paths, withTree) => {
        const dir = tempDir('minicode-ckpt-idx-');
        git(dir, 'init', '-q');
        for (const p of paths) writeAt(dir, p, `content of ${p}\n`);
        git(dir, 'add', '-A');
        if (withTree) git(dir, 'write-tree');
        const data = fs.readFileSync(path.join(dir, '.git', 'index'));
        const view = viewIndex(data)!;
        expect(view).toBeDefined();
        const ours = Array.from({ length: view.count }, (_, i) => entryAt(view, i)).map((e) =>
          [Buffer.from(e.name, 'latin1').toString('utf8'), e.mode.toString(8), e.oid, e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.uid, e.gid, e.size].join(' '),
        );
        expect(ours.map((r) => r.replace(/^(\S+) (\d+) (\S+) /, '$1 $2 $3 '))).toEqual(
          lsFilesDebug(dir).map((r) => r.replace(/^(\S+) (\d+) (\S+) (.*)$/, (_, n, m, o, rest) => `${n} ${m} ${o} ${rest}`)),
        );
        expect(indexBytes(editIndex(view, new Map(), [])).equals(data)).toBe(true);
        fs.rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 15 },
    );
  });

  it('refuses an index of another version or with a bad checksum', () => {
    const dir = tempDir('minicode-ckpt-idx-');
    git(dir, 'init', '-q');
    fs.writeFileSync(path.join(dir, 'f'), 'f\n');
    git(dir, 'add', '-A');
    const data = fs.readFileSync(path.join(dir, '.git', 'index'));
    const broken = Buffer.from(data);
    broken[broken.length - 1] ^= 1;
    expect(viewIndex(broken)).toBeUndefined();
    git(dir, 'update-index', '--index-version', '4');
    expect(viewIndex(fs.readFileSync(path.join(dir, '.git', 'index')))).toBeUndefined();
  });
});

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
  fc.record({ op: fc.constant('symlink' as const), path: pathArb, target: fc.constantFrom('x.txt', '../a', 'nowhere') }),
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

describe('the in-process snapshot', () => {
  it('gives the tree and the diff git gives, after any sequence of changes', SLOW, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(changeArb, { maxLength: 6 }), { minLength: 2, maxLength: 5 }), async (rounds) => {
        const work = tempDir('minicode-ckpt-fast-');
        const home = tempDir('minicode-ckpt-fast-home-');
        fs.writeFileSync(path.join(work, '.gitignore'), '*.log\nbuild/\n');
        writeAt(work, 'src/x.txt', 'x\n');
        const store = await openWorkspaceStore(home, work, { ...DEFAULT_CHECKPOINT_LIMITS });
        const reference = { dir: path.join(home, 'reference.git'), work: fs.realpathSync(work), index: path.join(home, 'reference-index') };
        execFileSync('git', ['init', '-q', '--bare', reference.dir]);
        fs.copyFileSync(path.join(store.gitDir, 'info', 'exclude'), path.join(reference.dir, 'info', 'exclude'));
        const gitTree = (): string => {
          fs.rmSync(reference.index, { force: true });
          gitAt(reference, 'add', '-A');
          return gitAt(reference, 'write-tree').trim();
        };
        // The first snapshot is git's (it seeds the store); every later one is in-process.
        let last = (await takeSnapshot(store, { message: 'first' })).tree;
        expect(last).toBe(gitTree());
        for (const changes of rounds) {
          for (const change of changes) apply(work, change);
          const fast = await fastSnapshot(store, { reportSkippedDirs: false });
          expect(fast, 'the in-process path declined').toBeDefined();
          const expected = gitTree();
          expect(fast!.tree).toBe(expected);
          expect(fast!.diff?.from).toBe(last);
          const raw = gitAt(reference, 'diff-tree', '-r', '-z', '--no-renames', '--name-status', last, expected).split('\0').filter(Boolean);
          const diffTree: string[] = [];
          for (let i = 0; i + 1 < raw.length; i += 2) diffTree.push(`${raw[i] === 'A' ? 'create' : raw[i] === 'D' ? 'delete' : 'modify'} ${raw[i + 1]}`);
          expect(fast!.diff!.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(diffTree);
          // The index it wrote is one git reads as the same tree.
          const check = { dir: store.gitDir, work: reference.work, index: path.join(store.gitDir, 'minicode-index') };
          expect(gitAt(check, 'write-tree').trim()).toBe(expected);
          expect(gitAt(check, 'ls-files', '--modified', '--deleted').trim()).toBe('');
          last = expected;
        }
        fs.rmSync(work, { recursive: true, force: true });
        fs.rmSync(home, { recursive: true, force: true });
      }),
      { numRuns: 12 },
    );
  });
});
