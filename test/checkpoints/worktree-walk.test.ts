/**
 * The in-process listing of a work tree (lib/checkpoints/worktree-walk.ts) against git's own
 * `ls-files --modified --deleted --others --exclude-standard` on real repositories: the same
 * new files exactly, every file git lists as changed or deleted among the touched entries, and
 * git's listing wherever the ignore rules go beyond what the walk matches itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runGit, splitNul } from '../../lib/checkpoints/git.js';
import { nameAt, viewIndex } from '../../lib/checkpoints/index-file.js';
import { DEFAULT_CHECKPOINT_LIMITS } from '../../lib/checkpoints/settings.js';
import { seedIndex, sharedIndexOf, takeSnapshot } from '../../lib/checkpoints/snapshot.js';
import { openWorkspaceStore, type WorkspaceStore } from '../../lib/checkpoints/store.js';
import { listWorkTree } from '../../lib/checkpoints/worktree-walk.js';
import { git, tempDir } from './helpers.js';

const SLOW = { timeout: 240_000 };

const DIRS = ['', 'a/', 'b/', 'build/', 'src/', 'a/b/', 'src/gen/', 'logs/'];
const NAMES = ['x.txt', 'y.log', 'z', 'build', 'tmp1', '.env', 'notes.md', 'b'];
/** Patterns the walk matches itself. */
const PLAIN_PATTERNS = ['*.log', 'build/', '/z', 'src/gen/', 'tmp*', '*.t*t', 'a/*.txt', 'x.txt', '/a/b/', 'b', '# a comment', '', 'z   ', 'logs', '.env', '/notes.md', 'gen/'];
/** Patterns it leaves to git. */
const GIT_PATTERNS = ['!y.log', '**/z', 'tmp?', '[xy].txt', '\\#x'];

const fileArb = fc.tuple(fc.constantFrom(...DIRS), fc.constantFrom(...NAMES)).map(([d, n]) => d + n);
const ignoreArb = (patterns: readonly string[]): fc.Arbitrary<{ dir: string; lines: string[] }> =>
  fc.record({ dir: fc.constantFrom(...DIRS), lines: fc.array(fc.constantFrom(...patterns), { maxLength: 5 }) });

/** Write `rel` under `root`, unless a file or folder is in the way. */
function put(root: string, rel: string, content: string): void {
  try {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    if (fs.existsSync(path.join(root, rel)) && fs.statSync(path.join(root, rel)).isDirectory()) return;
    fs.writeFileSync(path.join(root, rel), content);
  } catch {
    // a file where a folder should be
  }
}

/** Remove `rel` under `root`, if it is there. */
function remove(root: string, rel: string): void {
  try {
    fs.rmSync(path.join(root, rel), { force: true });
  } catch {
    // a file where a folder should be
  }
}

/** Both listings from a copy of the store's shared index, as a later snapshot would take them. */
async function listings(store: WorkspaceStore): Promise<{ walked: ReturnType<typeof listWorkTree>; gitNew: string[]; gitChanged: string[]; names: string[] }> {
  const copy = `${sharedIndexOf(store)}.test`;
  expect(seedIndex(sharedIndexOf(store), copy)).toBe(true);
  try {
    const view = viewIndex(fs.readFileSync(copy))!;
    const walked = listWorkTree(store.workTree, view, fs.statSync(copy, { bigint: true }).mtimeNs, store.gitDir);
    const { stdout } = await runGit(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard'], { gitDir: store.gitDir, workTree: store.workTree, indexFile: copy });
    const entries = splitNul(stdout).filter((e) => !e.endsWith('/'));
    const names = Array.from({ length: view.count }, (_, i) => nameAt(view, i));
    return {
      walked,
      gitNew: entries.filter((e) => e.startsWith('?')).map((e) => e.slice(2)),
      gitChanged: [...new Set(entries.filter((e) => !e.startsWith('?')).map((e) => e.slice(2)))],
      names,
    };
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

async function seeded(files: readonly string[], ignores: readonly { dir: string; lines: string[] }[]): Promise<{ work: string; home: string; store: WorkspaceStore }> {
  const work = tempDir('minicode-walk-');
  const home = tempDir('minicode-walk-home-');
  for (const f of files) put(work, f, `${f}\n`);
  for (const g of ignores) put(work, `${g.dir}.gitignore`, g.lines.join('\n') + '\n');
  const store = await openWorkspaceStore(home, work, { ...DEFAULT_CHECKPOINT_LIMITS });
  await takeSnapshot(store, { message: 'first' });
  return { work, home, store };
}

describe('the in-process work-tree listing', () => {
  it('lists the new files git lists and touches every file git finds changed or deleted, for plain ignore rules', SLOW, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileArb, { minLength: 1, maxLength: 12 }),
        fc.array(ignoreArb(PLAIN_PATTERNS), { maxLength: 3 }),
        fc.array(fileArb, { maxLength: 6 }),
        fc.array(fileArb, { maxLength: 4 }),
        fc.array(ignoreArb(PLAIN_PATTERNS), { maxLength: 2 }),
        async (files, ignores, added, removed, laterIgnores) => {
          const { work, home, store } = await seeded(files, ignores);
          for (const f of added) put(work, f, `changed ${f}\n`);
          for (const f of removed) remove(work, f);
          for (const g of laterIgnores) put(work, `${g.dir}.gitignore`, g.lines.join('\n') + '\n');
          const { walked, gitNew, gitChanged, names } = await listings(store);
          expect(walked, 'the walk declined plain rules').toBeDefined();
          expect(walked!.newFiles).toEqual([...gitNew].sort());
          const touched = new Set(walked!.touched.map((i) => names[i]));
          for (const f of gitChanged) expect(touched.has(f), `${f} changed or deleted`).toBe(true);
          fs.rmSync(work, { recursive: true, force: true });
          fs.rmSync(home, { recursive: true, force: true });
        },
      ),
      { numRuns: 25 },
    );
  });

  it('leaves negations, character classes, double stars and escapes to git', SLOW, async () => {
    for (const pattern of GIT_PATTERNS) {
      const { work, home, store } = await seeded(['x.txt', 'a/z'], [{ dir: '', lines: ['*.log', pattern] }]);
      put(work, 'y.log', 'new\n');
      expect((await listings(store)).walked, pattern).toBeUndefined();
      fs.rmSync(work, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('leaves nested repositories, non-ASCII names and a tracked folder turned into a symlink to git', SLOW, async () => {
    const cases: ((work: string) => void)[] = [
      (work) => fs.mkdirSync(path.join(work, 'a', 'inner', '.git'), { recursive: true }),
      (work) => put(work, 'café.txt', 'new\n'),
      (work) => {
        fs.renameSync(path.join(work, 'a'), path.join(work, 'moved'));
        fs.symlinkSync('moved', path.join(work, 'a'));
      },
    ];
    for (const change of cases) {
      const { work, home, store } = await seeded(['x.txt', 'a/z'], []);
      change(work);
      expect((await listings(store)).walked).toBeUndefined();
      fs.rmSync(work, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('leaves an index with assume-unchanged entries (a first index copied from the user repository) to git', SLOW, async () => {
    const work = tempDir('minicode-walk-');
    const home = tempDir('minicode-walk-home-');
    put(work, 'x.txt', 'x\n');
    put(work, 'y.txt', 'y\n');
    git(work, 'init', '-q');
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'one');
    git(work, 'update-index', '--assume-unchanged', 'x.txt');
    const store = await openWorkspaceStore(home, work, { ...DEFAULT_CHECKPOINT_LIMITS });
    await takeSnapshot(store, { message: 'first' });
    put(work, 'x.txt', 'changed\n');
    const { walked, gitChanged } = await listings(store);
    expect(walked).toBeUndefined();
    expect(gitChanged).toEqual([]);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('touches a file whose stat data is not older than the index (racily clean), whatever its stat says', SLOW, async () => {
    const { work, home, store } = await seeded(['x.txt'], []);
    // Give the index a timestamp not later than the file's: its stat data then proves nothing.
    const second = Math.floor(fs.statSync(path.join(work, 'x.txt')).mtimeMs / 1000);
    fs.utimesSync(sharedIndexOf(store), second, second);
    const { walked, names } = await listings(store);
    expect(walked!.touched.map((i) => names[i])).toEqual(['x.txt']);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });
});
