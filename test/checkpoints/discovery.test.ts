/**
 * A workspace outside every repository costs no `git rev-parse`: lib/checkpoints/store.ts looks
 * for a `.git` entry itself first. These tests hold that shortcut to git's own discovery.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { noGitEntryAbove } from '../../lib/checkpoints/store.js';
import { tempDir } from '../exec/helpers.js';
import { git, gitWorkspace, plainWorkspace } from './helpers.js';

/** Whether git finds a work tree around `dir` (the question the store asks it). */
function gitFindsWorkTree(dir: string): boolean {
  try {
    execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: dir,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
    return true;
  } catch {
    return false;
  }
}

describe('finding the user repository around a workspace', () => {
  it('skips git only where git itself finds no work tree', () => {
    const plain = plainWorkspace();
    const repo = gitWorkspace();
    const sub = path.join(repo, 'deep', 'er');
    fs.mkdirSync(sub, { recursive: true });
    const bare = tempDir('minicode-ckpt-bare-');
    git(bare, 'init', '-q', '--bare');
    const cases = [plain, repo, sub, path.join(repo, '.git'), bare, path.join(bare, 'refs')];
    if (!gitFindsWorkTree(plain)) {
      for (const dir of cases) {
        const skipped = noGitEntryAbove(fs.realpathSync(dir));
        // A skipped workspace is one git finds no work tree for; repositories are always asked.
        if (skipped) expect(gitFindsWorkTree(dir), dir).toBe(false);
      }
      expect(noGitEntryAbove(fs.realpathSync(plain))).toBe(true);
      expect(noGitEntryAbove(fs.realpathSync(sub))).toBe(false);
    } else {
      // The temp folder itself sits in a work tree here: nothing can be skipped, nothing is.
      for (const dir of cases) expect(noGitEntryAbove(fs.realpathSync(dir)), dir).toBe(false);
    }
  });
});
