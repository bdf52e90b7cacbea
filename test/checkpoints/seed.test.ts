/**
 * The first checkpoint of a repository starts from the tree of the user's HEAD: what it records
 * must still be the work tree, file for file (an unstaged edit, a staged one, a file rewritten
 * right after the index), whatever the user's index is (a split index). The user's repository
 * stays as it was either way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECKPOINT_LIMITS, type CheckpointSettings } from '../../lib/checkpoints/settings.js';
import { createTurnCheckpoints } from '../../lib/checkpoints/turn.js';
import { git, gitWorkspace, repoFingerprint, tempDir } from './helpers.js';

/** Take the first checkpoint of `dir`; the store's git dir and the checkpoint's commit. */
async function firstCheckpoint(dir: string): Promise<{ gitDir: string; commit: string }> {
  const home = path.join(tempDir('minicode-home-'), 'checkpoints');
  const settings: CheckpointSettings = { home, limits: { ...DEFAULT_CHECKPOINT_LIMITS } };
  let commit = '';
  const hooks = createTurnCheckpoints({
    settings,
    cwd: dir,
    sessionId: 's',
    turn: 1,
    emit: (d) => d.type === 'checkpoint.created' && (commit = (d.payload as { checkpointId: string }).checkpointId),
  });
  await hooks.beforeChange();
  return { gitDir: path.join(home, fs.readdirSync(home)[0]!), commit };
}

const shown = (gitDir: string, spec: string): string => git(gitDir, '--git-dir', gitDir, 'show', spec);

describe('the first checkpoint of a repository, seeded from the user HEAD', { timeout: 120_000 }, () => {
  it('records the work tree, not the index: unstaged and same-second edits included', async () => {
    const dir = gitWorkspace();
    // Unstaged, same size as the committed content, written right after the index.
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'ONE\nTWO\n');
    const before = repoFingerprint(dir);
    const { gitDir, commit } = await firstCheckpoint(dir);
    expect(shown(gitDir, `${commit}:notes.txt`)).toBe('ONE\nTWO\n');
    // The staged change (the work tree holds the same).
    expect(shown(gitDir, `${commit}:gone.txt`)).toBe('bye\nstaged line\n');
    expect(shown(gitDir, `${commit}:untracked.txt`)).toBe('not in git\n');
    // A small ignored file is kept (docs/checkpoints.md, "What is left out").
    expect(shown(gitDir, `${commit}:debug.log`)).toBe('ignored, small: checkpointed\n');
    expect(repoFingerprint(dir)).toEqual(before);
  });

  it('records the work tree when the user index is split', async () => {
    const dir = gitWorkspace();
    git(dir, 'update-index', '--split-index');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'changed\n');
    const before = repoFingerprint(dir);
    const { gitDir, commit } = await firstCheckpoint(dir);
    expect(shown(gitDir, `${commit}:notes.txt`)).toBe('changed\n');
    expect(shown(gitDir, `${commit}:gone.txt`)).toBe('bye\nstaged line\n');
    expect(repoFingerprint(dir)).toEqual(before);
  });

  it('records a subfolder workspace from the tree of that folder, committed files in a skipped folder name included', async () => {
    const dir = gitWorkspace();
    const sub = path.join(dir, 'pkg');
    fs.mkdirSync(path.join(sub, 'build'), { recursive: true });
    fs.writeFileSync(path.join(sub, 'index.ts'), 'export {};\n');
    fs.writeFileSync(path.join(sub, 'build', 'kept.js'), 'committed output\n');
    git(dir, 'add', '-A', 'pkg');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'pkg');
    fs.writeFileSync(path.join(sub, 'build', 'new.js'), 'not committed\n');
    const before = repoFingerprint(dir);
    const { gitDir, commit } = await firstCheckpoint(sub);
    expect(shown(gitDir, `${commit}:index.ts`)).toBe('export {};\n');
    expect(shown(gitDir, `${commit}:build/kept.js`)).toBe('committed output\n');
    expect(() => shown(gitDir, `${commit}:build/new.js`)).toThrow();
    expect(() => shown(gitDir, `${commit}:notes.txt`)).toThrow();
    expect(repoFingerprint(dir)).toEqual(before);
  });
});
