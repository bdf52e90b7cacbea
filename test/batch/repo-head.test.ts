import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHead } from '../../lib/batch/repo-head.js';
import { resolveBase } from '../../lib/batch/workspace-git.js';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-repo-head-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function repository(name: string): { repo: string; place: { gitDir: string; common: string } } {
  const repo = path.join(dir, name);
  fs.mkdirSync(path.join(repo, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'sub', 'f.txt'), 'one\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
  const gitDir = path.join(repo, '.git');
  return { repo, place: { gitDir, common: gitDir } };
}

describe("a line's starting commit read from the repository's files", () => {
  it('is the commit git names for a loose branch, a packed one, a detached HEAD and a linked worktree, and unknown for what only git resolves', () => {
    const { repo, place } = repository('files');
    expect(readHead(place)).toBe(git(repo, 'rev-parse', 'HEAD'));
    git(repo, 'pack-refs', '--all');
    expect(fs.existsSync(path.join(repo, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(readHead(place)).toBe(git(repo, 'rev-parse', 'HEAD'));
    git(repo, 'checkout', '-q', '--detach');
    expect(readHead(place)).toBe(git(repo, 'rev-parse', 'HEAD'));

    const linked = path.join(dir, 'linked');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', linked);
    const linkedPlace = { gitDir: git(linked, 'rev-parse', '--absolute-git-dir'), common: place.common };
    expect(readHead(linkedPlace)).toBe(git(linked, 'rev-parse', 'HEAD'));

    // A symbolic ref chain and an unborn branch: git's to resolve.
    git(repo, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/alias');
    expect(readHead(place)).toBeUndefined();
    git(repo, 'symbolic-ref', 'HEAD', 'refs/heads/unborn');
    expect(readHead(place)).toBeUndefined();
  });

  it('follows a new commit of the folder between lines, from a subfolder too', async () => {
    const { repo } = repository('follows');
    const sub = path.join(repo, 'sub');
    const first = await resolveBase(sub, false);
    expect(first).toMatchObject({
      top: fs.realpathSync(repo),
      prefix: 'sub/',
      commit: git(repo, 'rev-parse', 'HEAD'),
      tree: git(repo, 'rev-parse', 'HEAD^{tree}'),
    });
    fs.writeFileSync(path.join(sub, 'f.txt'), 'two\n');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'two');
    const second = await resolveBase(sub, false);
    expect(second.commit).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(second.tree).toBe(git(repo, 'rev-parse', 'HEAD^{tree}'));
    expect(second.commit).not.toBe(first.commit);
    // Back at the first commit: its tree is known, and the files name the commit.
    git(repo, 'checkout', '-q', first.commit);
    expect(await resolveBase(sub, false)).toEqual(first);
  });
});
