/**
 * `undo` while the session's run is still going in another process: refused with
 * MINICODE_E_UNDO_LIVE naming the session (exit 1, nothing restored), unless `--force`; once
 * that process has ended, undo takes the turn back. The run is a real process taking real
 * checkpoints (the compiled turn checkpoints) in a real git repository.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { cleanEnv, tempDir } from '../exec/helpers.js';
import { gitWorkspace } from './helpers.js';

const TURN = pathToFileURL(path.join(ROOT, 'dist/lib/checkpoints/turn.js')).href;
const SETTINGS = pathToFileURL(path.join(ROOT, 'dist/lib/checkpoints/settings.js')).href;

/** A run that checkpoints its turn, creates w1 and w2, says so, and stays alive until its stdin ends. */
const RUN = `
import fs from 'node:fs';
import { createTurnCheckpoints } from '${TURN}';
import { checkpointSettingsOf } from '${SETTINGS}';
const cp = createTurnCheckpoints({ settings: checkpointSettingsOf({}), cwd: process.cwd(), sessionId: 'live-run', turn: 1, emit: () => {} });
for (const name of ['w1', 'w2']) {
  await cp.beforeChange();
  fs.writeFileSync(name, name + '\\n');
  await cp.afterChange();
}
process.stdout.write('ready\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

/** The same run, but its turn settles (marked ended) while the process stays: an idle session. */
const IDLE = RUN.replace("process.stdout.write('ready", "await cp.turnEnded();\nprocess.stdout.write('ready");

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('undo while the run is still going', () => {
  it('is refused naming the live session unless --force, and works once the run has ended', async () => {
    const repo = gitWorkspace();
    const home = tempDir('minicode-home-');
    const env = cleanEnv(home);
    const child = spawn(process.execPath, ['--input-type=module', '-e', RUN], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`the run exited ${code}`)));
    });

    const refused = await runCli(['undo', '--json', '--cwd', repo], { env });
    expect(refused.code, refused.stderr).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: 'MINICODE_E_UNDO_LIVE' } });
    expect(refused.stderr).toContain('live-run');
    expect(refused.stderr).toContain(String(child.pid));
    expect(fs.existsSync(path.join(repo, 'w1'))).toBe(true);
    // A dry run changes nothing and is not refused.
    expect((await runCli(['undo', '--dry-run', '--cwd', repo], { env })).code).toBe(0);

    const forced = await runCli(['undo', '--force', '--json', '--cwd', repo], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.existsSync(path.join(repo, 'w1'))).toBe(false);
    expect(fs.existsSync(path.join(repo, 'w2'))).toBe(false);

    // The newest record is now that undo's own checkpoint: undoing it brings the run's files back.
    const again = await runCli(['undo', '--force', '--cwd', repo], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(fs.existsSync(path.join(repo, 'w1'))).toBe(true);
    // Once the run has ended, a plain undo of its session is not refused.
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.stdin!.end();
    await exited;
    const plain = await runCli(['undo', '--json', '--session', 'live-run', '--cwd', repo], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(fs.existsSync(path.join(repo, 'w1'))).toBe(false);
  }, 120_000);

  it('undoes without --force a session whose turn has ended while its process lives on (an idle chat or ACP session)', async () => {
    const repo = gitWorkspace();
    const home = tempDir('minicode-home-');
    const env = cleanEnv(home);
    const child = spawn(process.execPath, ['--input-type=module', '-e', IDLE], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`the run exited ${code}`)));
    });
    const undo = await runCli(['undo', '--json', '--session', 'live-run', '--cwd', repo], { env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.existsSync(path.join(repo, 'w1'))).toBe(false);
    expect(child.exitCode).toBeNull();
    child.stdin!.end();
  }, 120_000);
});
