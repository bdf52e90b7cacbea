/**
 * Checkpoints and undo end to end: the real CLI (`exec` over a loopback provider replaying the
 * hand-made cassettes in test/cassettes, `undo`, `checkpoints`) and real git subprocesses.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkpointCli,
  execCassette,
  git,
  gitWorkspace,
  plainWorkspace,
  repoFingerprint,
  tempDir,
  treeOf,
} from './helpers.js';

/** Each test runs several CLI subprocesses and git; on a loaded machine that takes a while. */
const SLOW = { timeout: 240_000 };
const ofType = (records: Record<string, any>[], type: string): Record<string, any>[] =>
  records.filter((r) => r.type === type);
const changesOf = (records: Record<string, any>[]): string[] =>
  ofType(records, 'file.changed')
    .flatMap((e) => e.payload.changes.map((c: { kind: string; path: string }) => `${c.kind} ${c.path}`))
    .sort();

/** The first file named `name` under `root`. */
function findFile(root: string, name: string): string {
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === name)
      return path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
  }
  throw new Error(`no ${name} under ${root}`);
}

describe('checkpoints of a run in a git repository', SLOW, () => {
  it('sees changes made through bash, leaves the user repository as it was, and undo takes them back', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const repoBefore = repoFingerprint(dir);
    const filesBefore = treeOf(dir);

    const run = await execCassette('checkpoint-bash', dir, home);
    expect(run.code, run.stderr).toBe(0);
    const checkpoints = ofType(run.records, 'checkpoint.created');
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]!.turnId).toBe(1);
    expect(checkpoints[0]!.payload.checkpointId).toMatch(/^[0-9a-f]{40}$/);
    // The checkpoint comes before the first tool runs.
    const firstTool = run.records.findIndex((r) => r.type === 'tool.completed' || r.type === 'tool.failed');
    expect(run.records.indexOf(checkpoints[0]!)).toBeLessThan(firstTool);
    // Each call's own changes, though bash reports none itself.
    expect(ofType(run.records, 'file.changed').map((e) => e.payload.toolCallId)).toEqual(['toolu_ck_1', 'toolu_ck_2']);
    expect(changesOf(run.records)).toEqual([
      'create deep/dir/blob.bin',
      'create fresh.txt',
      'create link-to-notes',
      'create logo.png',
      'delete gone.txt',
      'modify notes.txt',
    ]);
    expect(fs.readlinkSync(path.join(dir, 'link-to-notes'))).toBe('notes.txt');
    expect(repoFingerprint(dir)).toEqual(repoBefore);

    const undo = await checkpointCli(['undo'], dir, home);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.json.ok).toBe(true);
    expect(undo.json.restored).toBe(checkpoints[0]!.payload.checkpointId);
    expect(treeOf(dir)).toEqual(filesBefore);
    // The staged change, the stash, HEAD, refs, config and hooks survive the undo too.
    expect(repoFingerprint(dir)).toEqual(repoBefore);
    expect(fs.readFileSync(path.join(dir, 'debug.log'), 'utf8')).toBe('ignored, small: checkpointed\n');
    expect(fs.readFileSync(path.join(dir, 'untracked.txt'), 'utf8')).toBe('not in git\n');
  });

  it('takes an undo back with a second undo', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    expect((await execCassette('checkpoint-bash', dir, home)).code).toBe(0);
    const afterRun = treeOf(dir);
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    expect(treeOf(dir)).not.toEqual(afterRun);
    const again = await checkpointCli(['undo'], dir, home);
    expect(again.code, again.stderr).toBe(0);
    expect(treeOf(dir)).toEqual(afterRun);
    expect(fs.readFileSync(path.join(dir, 'deep/dir/blob.bin'))).toEqual(Buffer.from([0x00, 0x01, 0xff, 0x00]));
  });

  it('keeps its own index true to the files an undo rewrote, so a same-second rewrite of the same size is not missed', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    expect((await execCassette('checkpoint-bash', dir, home)).code).toBe(0);
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    // The run's sed turned "one" into "ONE" (same size); the undo wrote "one" back. The store's
    // index must now hold the restored blob, whatever the file's timestamps say.
    const sharedIndex = findFile(home, 'minicode-index');
    const staged = git(dir, 'hash-object', 'notes.txt').trim();
    const inIndex = execFileSync('git', ['ls-files', '-s', 'notes.txt'], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        GIT_DIR: path.dirname(sharedIndex),
        GIT_WORK_TREE: dir,
        GIT_INDEX_FILE: sharedIndex,
      },
    });
    expect(inIndex.split(/\s+/)[1]).toBe(staged);
  });

  it('lists what undo would change under --dry-run and changes nothing', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    await execCassette('checkpoint-bash', dir, home);
    const afterRun = treeOf(dir);
    const dry = await checkpointCli(['undo', '--dry-run'], dir, home);
    expect(dry.code).toBe(0);
    expect(dry.json.dryRun).toBe(true);
    expect(dry.json.changes.map((c: { kind: string; path: string }) => `${c.kind} ${c.path}`).sort()).toEqual([
      'create gone.txt',
      'delete deep/dir/blob.bin',
      'delete fresh.txt',
      'delete link-to-notes',
      'delete logo.png',
      'modify notes.txt',
    ]);
    expect(treeOf(dir)).toEqual(afterRun);
  });
});

describe('checkpoints in other workspaces', SLOW, () => {
  it('work in a folder that is not a git repository', async () => {
    const dir = plainWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    const run = await execCassette('checkpoint-bash', dir, home);
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'checkpoint.created')).toHaveLength(1);
    expect(fs.existsSync(path.join(dir, '.git'))).toBe(false);
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    expect(treeOf(dir)).toEqual(before);
  });

  it('keep two sessions apart: undo takes back the latest session, --session the other', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const first = await execCassette('checkpoint-bash', dir, home);
    const afterFirst = treeOf(dir);
    const second = await execCassette('checkpoint-second', dir, home);
    expect(second.code).toBe(0);
    const firstId = first.records.find((r) => r.type === 'checkpoint.created')!.sessionId as string;
    const secondId = second.records.find((r) => r.type === 'checkpoint.created')!.sessionId as string;
    expect(firstId).not.toBe(secondId);

    const list = await checkpointCli(['checkpoints'], dir, home);
    expect(list.json.checkpoints.map((c: { sessionId: string }) => c.sessionId)).toEqual([secondId, firstId]);
    const onlyFirst = await checkpointCli(['checkpoints', '--session', firstId], dir, home);
    expect(onlyFirst.json.checkpoints).toHaveLength(1);
    expect(onlyFirst.json.checkpoints[0].changes).toHaveLength(6);

    const undo = await checkpointCli(['undo'], dir, home);
    expect(undo.json.sessionId).toBe(secondId);
    expect(treeOf(dir)).toEqual(afterFirst);
    const undoFirst = await checkpointCli(['undo', '--session', firstId], dir, home);
    expect(undoFirst.code, undoFirst.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(fs.existsSync(path.join(dir, 'fresh.txt'))).toBe(false);
  });

  it('restore a chosen checkpoint with --to', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    const first = await execCassette('checkpoint-bash', dir, home);
    await execCassette('checkpoint-second', dir, home);
    const id = first.records.find((r) => r.type === 'checkpoint.created')!.payload.checkpointId as string;
    const to = await checkpointCli(['undo', '--to', id.slice(0, 10)], dir, home);
    expect(to.code, to.stderr).toBe(0);
    expect(treeOf(dir)).toEqual(before);
    const unknown = await checkpointCli(['undo', '--to', 'abcdef0123'], dir, home);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe('MINICODE_E_CHECKPOINT_NOT_FOUND');
  });

  it('refuses a --to that is not a checkpoint id as a usage error (exit 2), its control characters escaped, the workspace untouched', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    await execCassette('checkpoint-bash', dir, home);
    const after = treeOf(dir);
    const hostile = '\x1b[31mX\x1b]0;title\x07';
    const r = await checkpointCli(['undo', '--to', hostile], dir, home);
    expect(r.code, r.stderr).toBe(2);
    expect(r.json.error.code).toBe('MINICODE_E_USAGE');
    expect(r.stdout + r.stderr).not.toMatch(/[\x00-\x1f\x7f](?<!\n)/);
    expect(r.stderr).toContain('\\x1b');
    expect(treeOf(dir)).toEqual(after);
  });
});

describe('checkpoint limits and switches', SLOW, () => {
  it('skips large files and dependency folders, says so, and undo never deletes them', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ checkpoints: { maxFileBytes: 1000 } }));
    fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(5000, 7));
    fs.mkdirSync(path.join(dir, 'node_modules/pkg'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
    const run = await execCassette('checkpoint-bash', dir, home);
    expect(run.code, run.stderr).toBe(0);
    const skipped = ofType(run.records, 'checkpoint.created')[0]!.payload.skipped as { path: string; reason: string }[];
    expect(skipped).toEqual(
      expect.arrayContaining([
        { path: 'big.bin', reason: 'file-too-large' },
        { path: 'node_modules', reason: 'build-or-dependency-dir' },
      ]),
    );
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    expect(fs.statSync(path.join(dir, 'big.bin')).size).toBe(5000);
    expect(fs.existsSync(path.join(dir, 'node_modules/pkg/index.js'))).toBe(true);
  });

  it('skips a folder git does not track that holds more new files than the limit', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ checkpoints: { maxUntrackedDirFiles: 3 } }));
    fs.mkdirSync(path.join(dir, 'generated'));
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(dir, 'generated', `g${i}.txt`), `${i}\n`);
    const run = await execCassette('checkpoint-second', dir, home);
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'checkpoint.created')[0]!.payload.skipped).toEqual([
      { path: 'generated', reason: 'untracked-dir-too-large' },
    ]);
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    expect(fs.readdirSync(path.join(dir, 'generated'))).toHaveLength(5);
  });

  it('takes no checkpoint under --no-checkpoint, and undo then says there is none', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const run = await execCassette('checkpoint-bash', dir, home, ['--no-checkpoint']);
    expect(run.code).toBe(0);
    expect(ofType(run.records, 'checkpoint.created')).toHaveLength(0);
    const undo = await checkpointCli(['undo'], dir, home);
    expect(undo.code).toBe(1);
    expect(undo.json.error.code).toBe('MINICODE_E_NO_CHECKPOINT');
  });

  it("never checkpoints minicode's own data when MINICODE_HOME lies inside the workspace", async () => {
    const dir = plainWorkspace();
    const home = path.join(dir, '.minicode-home');
    const run = await execCassette('checkpoint-bash', dir, home);
    expect(run.code, run.stderr).toBe(0);
    expect(changesOf(run.records)).toEqual([
      'create deep/dir/blob.bin',
      'create fresh.txt',
      'create link-to-notes',
      'create logo.png',
      'delete gone.txt',
      'modify notes.txt',
    ]);
    const list = await checkpointCli(['checkpoints'], dir, home);
    expect(list.json.checkpoints[0].changes.every((c: { path: string }) => !c.path.startsWith('.minicode-home'))).toBe(
      true,
    );
    expect((await checkpointCli(['undo'], dir, home)).code).toBe(0);
    expect(fs.existsSync(path.join(home, 'store'))).toBe(true);
  });

  it('takes no checkpoint when the config says checkpoints: false', async () => {
    const dir = plainWorkspace();
    const home = tempDir('minicode-home-');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ checkpoints: false }));
    const run = await execCassette('checkpoint-second', dir, home);
    expect(run.code).toBe(0);
    expect(ofType(run.records, 'checkpoint.created')).toHaveLength(0);
  });

  it("ignores a GIT_DIR and GIT_INDEX_FILE in the environment (they are the user's, never the store's)", async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const decoy = tempDir('minicode-decoy-');
    const repoBefore = repoFingerprint(dir);
    const env = { GIT_DIR: path.join(dir, '.git'), GIT_INDEX_FILE: path.join(decoy, 'index'), GIT_WORK_TREE: decoy };
    const run = await execCassette('checkpoint-second', dir, home, [], env);
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'checkpoint.created')).toHaveLength(1);
    expect(fs.readdirSync(decoy)).toEqual([]);
    expect(repoFingerprint(dir)).toEqual(repoBefore);
    expect((await checkpointCli(['undo'], dir, home, env)).code).toBe(0);
    expect(fs.readdirSync(decoy)).toEqual([]);
  });
});

describe('a crash after the checkpoint', SLOW, () => {
  it('leaves a checkpoint that undo restores, though the turn never finished', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    // Unsandboxed: the tool kills its parent, which the sandbox's own PID namespace would not let it see.
    const run = await execCassette('checkpoint-crash', dir, home, ['--sandbox', 'off']);
    expect(run.signal).toBe('SIGKILL');
    expect(fs.existsSync(path.join(dir, 'half-done.txt'))).toBe(true);
    const list = await checkpointCli(['checkpoints'], dir, home);
    expect(list.json.checkpoints).toHaveLength(1);
    expect(list.json.checkpoints[0].finished).toBe(false);
    const undo = await checkpointCli(['undo'], dir, home);
    expect(undo.code, undo.stderr).toBe(0);
    expect(treeOf(dir)).toEqual(before);
  });
});
