/**
 * Dropping old checkpoints: which records a retention drops (pure), and a real prune of a real
 * store: the dropped turns' objects leave the store, the kept checkpoint still restores, and the
 * user's repository (whose objects the store borrows) is untouched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordsToDrop } from '../../lib/checkpoints/prune.js';
import type { TurnRecord } from '../../lib/checkpoints/journal.js';
import { DEFAULT_CHECKPOINT_LIMITS, type CheckpointSettings } from '../../lib/checkpoints/settings.js';
import { createTurnCheckpoints } from '../../lib/checkpoints/turn.js';
import { listCheckpoints, pruneCheckpoints, undoWorkspace } from '../../lib/checkpoints/undo.js';
import { git, gitWorkspace, repoFingerprint, tempDir } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const record = (at: number, n: number): TurnRecord => ({
  key: `${String(at).padStart(13, '0')}-${n}`,
  sessionId: 's',
  turn: String(n),
  kind: 'turn',
  at,
  before: 'a'.repeat(40),
  beforeTree: 'b'.repeat(40),
});

describe('which checkpoints a retention drops', () => {
  it('drops those older than the age limit and those beyond the newest count, oldest first', () => {
    const now = 100 * DAY;
    const records = [
      record(now - 40 * DAY, 1),
      record(now - 20 * DAY, 2),
      record(now - 2 * DAY, 3),
      record(now - DAY, 4),
    ];
    expect(recordsToDrop(records, { maxAgeDays: 30, maxCheckpoints: 10 }, now).map((r) => r.turn)).toEqual(['1']);
    expect(recordsToDrop(records, { maxAgeDays: 30, maxCheckpoints: 2 }, now).map((r) => r.turn)).toEqual(['1', '2']);
    expect(recordsToDrop(records, { maxAgeDays: 365, maxCheckpoints: 500 }, now)).toEqual([]);
  });
});

/** Set every loose object of the store back two hours (past gc's grace for fresh objects). */
function ageLooseObjects(gitDir: string): void {
  const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
  const objects = path.join(gitDir, 'objects');
  for (const dir of fs.readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(dir)) continue;
    for (const file of fs.readdirSync(path.join(objects, dir))) fs.utimesSync(path.join(objects, dir, file), old, old);
  }
}

describe('minicode checkpoints --prune on a real store', { timeout: 120_000 }, () => {
  it("drops an expired turn and its objects, keeps the recent one restorable, and never touches the user's repository", async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const settings: CheckpointSettings = {
      home: path.join(home, 'checkpoints'),
      limits: { ...DEFAULT_CHECKPOINT_LIMITS },
      retention: { maxAgeDays: 30, maxCheckpoints: 500 },
    };
    const repoBefore = repoFingerprint(dir);
    const userObjects = git(dir, 'count-objects', '-v');
    const emit = (): void => {};

    // An old turn creates a file only it ever held; the user removes it later.
    const old = createTurnCheckpoints({
      settings,
      cwd: dir,
      sessionId: 's',
      turn: 1,
      emit,
      clock: () => Date.now() - 40 * DAY,
    });
    await old.beforeChange();
    fs.writeFileSync(path.join(dir, 'old-only.txt'), 'content only the expired turn held\n');
    await old.afterChange();
    const oldBlob = git(dir, 'hash-object', 'old-only.txt').trim();
    fs.rmSync(path.join(dir, 'old-only.txt'));
    // A recent turn.
    const recent = createTurnCheckpoints({ settings, cwd: dir, sessionId: 's', turn: 2, emit });
    await recent.beforeChange();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'recent change\n');
    await recent.afterChange();

    const gitDir = path.join(settings.home, fs.readdirSync(settings.home)[0]!);
    const inStore = (id: string): boolean => {
      try {
        git(gitDir, '--git-dir', gitDir, 'cat-file', '-e', id);
        return true;
      } catch {
        return false;
      }
    };
    expect(inStore(oldBlob)).toBe(true);
    ageLooseObjects(gitDir);

    const report = await pruneCheckpoints({ settings, cwd: dir });
    expect(report).toEqual({ dropped: 1, kept: 1, gc: 'done' });
    expect((await listCheckpoints({ settings, cwd: dir })).map((l) => l.turn)).toEqual(['2']);
    expect(inStore(oldBlob)).toBe(false);
    // The kept checkpoint restores from what is left.
    await undoWorkspace({ settings, cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(repoFingerprint(dir)).toEqual(repoBefore);
    expect(git(dir, 'count-objects', '-v')).toBe(userObjects);
  });
});
