import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runIsolated, type HarnessContext } from '../../lib/batch/harness.js';
import type { BatchRecord } from '../../lib/batch/records.js';
import { endWorkspaces } from '../../lib/batch/workspace.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
const commitAll = (repo: string, message: string): void => {
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', message);
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-pool-patch-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Text, binary, executable, symlink, odd names, an ignore rule (and a CRLF rule when `attributes`); one commit. */
function makeRepository(name: string, attributes: boolean): string {
  const repo = path.join(dir, name);
  fs.mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'src', 'a.ts'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(repo, 'src', 'deep', 'b.ts'), 'export const b = 2;\n');
  fs.writeFileSync(path.join(repo, 'no-newline.txt'), 'last line');
  fs.writeFileSync(path.join(repo, 'empty.txt'), '');
  fs.writeFileSync(path.join(repo, 'bin.dat'), Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]));
  fs.writeFileSync(path.join(repo, 'run.sh'), '#!/bin/sh\necho hi\n');
  fs.writeFileSync(path.join(repo, 'with space é.md'), 'spaced\n');
  fs.writeFileSync(path.join(repo, 'tab\tname.txt'), 'quoted by git\n');
  fs.writeFileSync(path.join(repo, 'windows.crlf'), 'one\r\ntwo\r\n');
  if (attributes) fs.writeFileSync(path.join(repo, '.gitattributes'), '*.crlf text eol=crlf\n');
  fs.writeFileSync(path.join(repo, '.gitignore'), 'dist/\n*.log\n');
  fs.symlinkSync('src/a.ts', path.join(repo, 'link'));
  git(repo, 'init', '-q');
  commitAll(repo, 'init');
  return repo;
}

/** What a line does in its workspace, each leaving a different kind of change. */
const ACTIONS: Record<string, (cwd: string) => void> = {
  'an edit': (cwd) => fs.appendFileSync(path.join(cwd, 'src/a.ts'), 'export const a2 = 2;\n'),
  'a mode change only': (cwd) => fs.chmodSync(path.join(cwd, 'run.sh'), 0o755),
  'an edit and a mode change': (cwd) => {
    fs.appendFileSync(path.join(cwd, 'run.sh'), 'echo more\n');
    fs.chmodSync(path.join(cwd, 'run.sh'), 0o755);
  },
  'a binary edit': (cwd) => fs.writeFileSync(path.join(cwd, 'bin.dat'), Buffer.from([9, 0, 8, 0, 7, 255])),
  'text made binary': (cwd) => fs.writeFileSync(path.join(cwd, 'src/deep/b.ts'), Buffer.from([0, 0, 1])),
  'a deletion': (cwd) => fs.rmSync(path.join(cwd, 'src/deep/b.ts')),
  'a whole folder deleted': (cwd) => fs.rmSync(path.join(cwd, 'src'), { recursive: true }),
  'a file made a symlink': (cwd) => {
    fs.rmSync(path.join(cwd, 'empty.txt'));
    fs.symlinkSync('no-newline.txt', path.join(cwd, 'empty.txt'));
  },
  'a symlink retargeted': (cwd) => {
    fs.rmSync(path.join(cwd, 'link'));
    fs.symlinkSync('src/deep/b.ts', path.join(cwd, 'link'));
  },
  'a symlink made a file': (cwd) => {
    fs.rmSync(path.join(cwd, 'link'));
    fs.writeFileSync(path.join(cwd, 'link'), 'now a file\n');
  },
  'edits to odd names and no final newline': (cwd) => {
    fs.appendFileSync(path.join(cwd, 'with space é.md'), 'more\n');
    fs.appendFileSync(path.join(cwd, 'tab\tname.txt'), 'more\n');
    fs.appendFileSync(path.join(cwd, 'no-newline.txt'), ' continued');
    fs.writeFileSync(path.join(cwd, 'empty.txt'), 'filled\n');
  },
  'an edit under a CRLF rule': (cwd) => fs.writeFileSync(path.join(cwd, 'windows.crlf'), 'one\r\ntwo\r\nthree\r\n'),
  'a touch with no change': (cwd) => {
    const file = path.join(cwd, 'src/a.ts');
    fs.writeFileSync(file, fs.readFileSync(file));
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
  },
  'an edit staged, then edited again': (cwd) => {
    fs.appendFileSync(path.join(cwd, 'src/a.ts'), 'staged\n');
    git(cwd, 'add', 'src/a.ts');
    fs.appendFileSync(path.join(cwd, 'src/a.ts'), 'then more\n');
  },
  'a file untracked with git rm --cached': (cwd) => git(cwd, 'rm', '-q', '--cached', 'src/a.ts'),
  'a commit': (cwd) => {
    fs.appendFileSync(path.join(cwd, 'src/a.ts'), 'committed\n');
    git(cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'line');
  },
  'new files, ignored ones and an edit': (cwd) => {
    fs.writeFileSync(path.join(cwd, 'src/new.ts'), 'export const n = 1;\n');
    fs.mkdirSync(path.join(cwd, 'dist'));
    fs.writeFileSync(path.join(cwd, 'dist/out.js'), 'ignored\n');
    fs.writeFileSync(path.join(cwd, 'run.log'), 'ignored\n');
    fs.appendFileSync(path.join(cwd, 'src/a.ts'), 'edited\n');
  },
  'only ignored files and an empty folder': (cwd) => {
    fs.writeFileSync(path.join(cwd, 'debug.log'), 'ignored\n');
    fs.mkdirSync(path.join(cwd, 'empty-dir'));
  },
  'a folder where a file was': (cwd) => {
    fs.rmSync(path.join(cwd, 'src/a.ts'));
    fs.mkdirSync(path.join(cwd, 'src/a.ts'));
    fs.writeFileSync(path.join(cwd, 'src/a.ts/inner.ts'), 'inside\n');
  },
  'a file where a folder was': (cwd) => {
    fs.rmSync(path.join(cwd, 'src/deep'), { recursive: true });
    fs.writeFileSync(path.join(cwd, 'src/deep'), 'a file now\n');
  },
};

const result = (id: string): BatchRecord => ({
  kind: 'result',
  id,
  line: 1,
  outcome: 'completed',
  reason: 'completed',
  finalText: '',
});

/** Every path under `root` but `.git`, with its kind, mode and content: what a line sees. */
function tree(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const name = rel ? `${rel}/${entry.name}` : entry.name;
    if (name === '.git') continue;
    const full = path.join(root, name);
    if (entry.isSymbolicLink()) out.push(`${name} -> ${fs.readlinkSync(full)}`);
    else if (entry.isDirectory()) out.push(`${name}/`, ...tree(root, name));
    else
      out.push(`${name} ${(fs.statSync(full).mode & 0o777).toString(8)} ${fs.readFileSync(full).toString('base64')}`);
  }
  return out;
}

describe('a pooled worktree line patch', () => {
  // Checkout converts what it writes under a CRLF rule: the reset must leave those files as a fresh worktree has them.
  it.each([
    ['without attributes', false],
    ['with a CRLF attribute', true],
  ])(
    'is byte for byte the patch of a fresh worktree (everything staged, then diffed) for every kind of change, and each reuse starts pristine (%s)',
    async (name, attributes) => {
      const repo = makeRepository(name.replace(/\W+/g, '-'), attributes);
      const pooled: HarnessContext = {
        isolate: 'worktree',
        outDir: path.join(dir, `out-pooled-${attributes}`),
        baseDir: repo,
        cwd: repo,
        poolSize: 1,
      };
      const fresh: HarnessContext = {
        isolate: 'worktree',
        keepWorkspaces: true,
        outDir: path.join(dir, `out-fresh-${attributes}`),
        baseDir: repo,
        cwd: repo,
      };
      let pristine: string[] | undefined;
      let poolCwd: string | undefined;
      for (const [name, act] of Object.entries(ACTIONS)) {
        if (!attributes && name === 'an edit under a CRLF rule') continue;
        const id = name.replace(/\W+/g, '-');
        const fromPool = await runIsolated({ id, line: 1, prompt: name }, pooled, async (line) => {
          const cwd = line.cwd!;
          poolCwd ??= cwd;
          expect(cwd, 'the pool reuses its one worktree').toBe(poolCwd);
          pristine ??= tree(cwd);
          expect(tree(cwd), `before "${name}": the worktree is as made`).toEqual(pristine);
          expect(git(cwd, 'status', '--porcelain', '--ignored'), `before "${name}"`).toBe('');
          act(cwd);
          return result(id);
        });
        const fromFresh = await runIsolated({ id, line: 1, prompt: name }, fresh, async (line) => {
          act(line.cwd!);
          return result(id);
        });
        expect(fromPool.patch, JSON.stringify(fromPool)).toBeDefined();
        const patch = fs.readFileSync(path.join(pooled.outDir, fromPool.patch!));
        expect(patch.toString('latin1'), name).toBe(
          fs.readFileSync(path.join(fresh.outDir, fromFresh.patch!)).toString('latin1'),
        );
        git(fromFresh.workspace!, 'worktree', 'remove', '--force', fromFresh.workspace!);
      }
      await endWorkspaces(pooled.outDir);
      expect(git(repo, 'status', '--porcelain')).toBe('');
      expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    },
  );
});
