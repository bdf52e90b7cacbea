/**
 * What a checkpoint keeps beyond git's tracked and untracked files: small ignored files (a
 * `.env`) outside wholly ignored folders, so a turn that deletes or rewrites one through a shell
 * reports it and undo brings it back; and the permission bits git's tree cannot hold, so a 0600
 * file comes back 0600. A real git repository, the turn hooks the runs use, and `undoWorkspace`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../lib/events/index.js';
import { DEFAULT_CHECKPOINT_LIMITS, type CheckpointSettings } from '../../lib/checkpoints/settings.js';
import { createTurnCheckpoints } from '../../lib/checkpoints/turn.js';
import { undoWorkspace } from '../../lib/checkpoints/undo.js';
import { git, tempDir } from './helpers.js';

const SLOW = { timeout: 120_000 };

function settingsIn(): CheckpointSettings {
  return { home: path.join(tempDir('minicode-home-'), 'checkpoints'), limits: { ...DEFAULT_CHECKPOINT_LIMITS } };
}

/** Run `script` in `dir` as a turn's changing call would (a shell, not an edit tool); the turn's events and its file changes. */
async function turnRunning(
  settings: CheckpointSettings,
  dir: string,
  script: string,
): Promise<{ events: EventDraft[]; changes: string[] }> {
  const events: EventDraft[] = [];
  const hooks = createTurnCheckpoints({
    settings,
    cwd: dir,
    sessionId: 'session-ignored',
    turn: 1,
    emit: (d) => events.push(d),
  });
  await hooks.beforeChange();
  execFileSync('sh', ['-c', script], { cwd: dir });
  const changes = (await hooks.afterChange()) ?? [];
  return { events, changes: changes.map((c) => `${c.kind} ${c.path}`).sort() };
}

const modeOf = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

describe('ignored files and file modes in checkpoints', SLOW, () => {
  it('reports a gitignored .env deleted and a small ignored file rewritten through a shell, and undo restores both, the .env 0600', async () => {
    const dir = tempDir('minicode-ckpt-ignored-');
    fs.writeFileSync(path.join(dir, '.gitignore'), '.env\n*.log\nnode_modules/\n');
    fs.writeFileSync(path.join(dir, 'app.js'), 'console.log(1)\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'init');
    fs.writeFileSync(path.join(dir, '.env'), 'DATABASE_URL=postgres://app:hunter2@db/app\n', { mode: 0o600 });
    fs.chmodSync(path.join(dir, '.env'), 0o600);
    fs.writeFileSync(path.join(dir, 'run.log'), 'first run\n');
    fs.writeFileSync(path.join(dir, 'huge.log'), Buffer.alloc(DEFAULT_CHECKPOINT_LIMITS.maxIgnoredFileBytes + 1, 0x61));
    fs.mkdirSync(path.join(dir, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1\n');
    const settings = settingsIn();

    const turn = await turnRunning(
      settings,
      dir,
      'rm .env && echo rewritten > run.log && echo 2 > node_modules/dep/index.js',
    );
    expect(turn.changes).toEqual(['delete .env', 'modify run.log']);
    const created = turn.events.find((e) => e.type === 'checkpoint.created')!.payload as {
      checkpointId: string;
      skipped?: { path: string; reason: string }[];
    };
    expect(created.skipped).toContainEqual({ path: 'huge.log', reason: 'file-too-large' });
    const stored = git(
      dir,
      '--git-dir',
      fs.realpathSync(path.join(settings.home, fs.readdirSync(settings.home)[0]!)),
      'ls-tree',
      '-r',
      '--name-only',
      created.checkpointId,
    ).split('\n');
    expect(stored).toContain('.env');
    expect(stored.filter((f) => f.startsWith('node_modules/') || f === 'huge.log')).toEqual([]);

    const undo = await undoWorkspace({ settings, cwd: dir });
    expect(undo.changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(['create .env', 'modify run.log']);
    expect(fs.readFileSync(path.join(dir, '.env'), 'utf8')).toBe('DATABASE_URL=postgres://app:hunter2@db/app\n');
    expect(modeOf(path.join(dir, '.env'))).toBe('600');
    expect(fs.readFileSync(path.join(dir, 'run.log'), 'utf8')).toBe('first run\n');
    // Bulk folders are never touched by undo.
    expect(fs.readFileSync(path.join(dir, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('2\n');
  });

  it('brings back tracked files with their permission bits: 0600 and 0640 as they were, 0755 executable, 0644 plain', async () => {
    const dir = tempDir('minicode-ckpt-modes-');
    const files = { 'secret.txt': 0o600, 'group.txt': 0o640, 'tool.sh': 0o755, 'plain.txt': 0o644 } as const;
    for (const [name, mode] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, name), `${name}\n`);
      fs.chmodSync(path.join(dir, name), mode);
    }
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'init');
    const settings = settingsIn();

    const turn = await turnRunning(
      settings,
      dir,
      'rm secret.txt tool.sh && echo changed > group.txt && chmod 644 group.txt && echo changed > plain.txt',
    );
    expect(turn.changes).toEqual(['delete secret.txt', 'delete tool.sh', 'modify group.txt', 'modify plain.txt']);
    await undoWorkspace({ settings, cwd: dir });
    for (const [name, mode] of Object.entries(files)) {
      expect(fs.readFileSync(path.join(dir, name), 'utf8')).toBe(`${name}\n`);
      expect({ name, mode: modeOf(path.join(dir, name)) }).toEqual({ name, mode: mode.toString(8) });
    }
  });
});
