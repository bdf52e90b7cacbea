/**
 * The bash tool through a spawn helper process (lib/spawn-helper, what batch lines on pool
 * threads use) against the same tool spawning from this process: same outcomes, same kills,
 * same scrubbed environment; and what a helper's death mid-command gives. Real subprocesses
 * throughout; the helper is the compiled `dist/lib/spawn-helper/helper-main.js` (`npm test` builds first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from '../../lib/batch/workspace-git.js';
import { createSpawnHelper } from '../../lib/spawn-helper/client.js';
import { runWithSpawner, type SpawnedChild, type Spawner } from '../../lib/spawn-helper/route.js';
import { bashTool } from '../../lib/tools/bash.js';
import type { ToolContext, ToolOutcome } from '../../lib/tools/index.js';
import { context, scratch } from './helpers.js';

const helper = createSpawnHelper();
afterAll(() => helper.close());

const direct = (input: { command: string; timeout_ms?: number }, ctx: ToolContext): Promise<ToolOutcome> => bashTool.run(input, ctx);
const viaHelper = (input: { command: string; timeout_ms?: number }, ctx: ToolContext): Promise<ToolOutcome> => runWithSpawner(helper.spawn, () => bashTool.run(input, ctx));

/** Wait for `condition`, polling; fail after `ms`. */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Gone or a zombie (where pid 1 does not reap orphans, a killed process lingers as `Z`). */
function dead(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

describe('the bash tool through a spawn helper', () => {
  it.each([
    ['output and exit 0', 'pwd; echo out; echo err >&2'],
    ['a non-zero exit with its output', 'echo broken >&2; exit 3'],
    ['a command killed by a signal', 'echo before; kill -9 $$'],
    ['no output at all', 'true'],
    ['a command that is not found', 'no-such-command-minicode'],
  ])('gives the same outcome as a direct spawn for %s', async (_name, command) => {
    const dir = scratch();
    const a = await direct({ command }, context(dir).ctx);
    const b = await viaHelper({ command }, context(dir).ctx);
    expect(b).toEqual(a);
  });

  it('gives the same capped output as a direct spawn for 5 MB of output', async () => {
    const command = "node -e \"for (let i = 0; i < 50000; i++) process.stdout.write(String(i).padStart(99, '.') + '\\n')\"";
    const a = await direct({ command }, context(scratch()).ctx);
    const b = await viaHelper({ command }, context(scratch()).ctx);
    expect(a).toMatchObject({ status: 'completed', receipt: { truncated: true } });
    expect(b).toEqual(a);
  });

  it('kills the whole process group on timeout', async () => {
    const dir = scratch();
    const outcome = await viaHelper({ command: 'sleep 30 & echo $! > child.pid; wait', timeout_ms: 300 }, context(dir, { limits: { killGraceMs: 200 } }).ctx);
    expect(outcome).toMatchObject({ status: 'failed', cause: 'TOOL_ERROR' });
    if (outcome.status === 'failed') expect(outcome.message).toContain('timed out');
    const pid = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    await until(() => dead(pid), 'the grandchild to die');
  });

  it('kills what the command left running in its group once it exits, as a direct spawn does', async () => {
    for (const run of [direct, viaHelper]) {
      const dir = scratch();
      const outcome = await run({ command: 'sleep 30 > /dev/null 2>&1 & echo $! > child.pid' }, context(dir).ctx);
      expect(outcome).toMatchObject({ status: 'completed' });
      const pid = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
      await until(() => dead(pid), 'the background job to die');
    }
  });

  it('kills the whole process group when the run is aborted', async () => {
    const dir = scratch();
    const controller = new AbortController();
    const running = viaHelper({ command: 'sleep 30 & echo $! > child.pid; wait' }, context(dir, { signal: controller.signal }).ctx);
    await until(() => fs.existsSync(path.join(dir, 'child.pid')) && fs.readFileSync(path.join(dir, 'child.pid'), 'utf8').endsWith('\n'), 'the command to start');
    controller.abort();
    expect(await running).toMatchObject({ status: 'failed', cause: 'USER_ERROR' });
    const pid = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    await until(() => dead(pid), 'the grandchild to die');
  });

  it('passes the scrubbed environment and holds no secret in the helper itself', async () => {
    const env = { ...process.env, GITHUB_TOKEN: 'ghp_fake', OPENAI_API_KEY: 'sk-fake', MY_DB_PASSWORD: 'pw', SAFE_VALUE: 'visible' };
    const dir = scratch();
    const a = await direct({ command: 'env | sort' }, context(dir, { env }).ctx);
    const b = await viaHelper({ command: 'env | sort' }, context(dir, { env }).ctx);
    if (b.status !== 'completed') throw new Error('expected completed');
    expect(b.output).toContain('SAFE_VALUE=visible');
    expect(b.output).not.toContain('GITHUB_TOKEN');
    expect(b.output).not.toContain('OPENAI_API_KEY');
    expect(b.output).not.toContain('MY_DB_PASSWORD');
    // Exactly the variables of a direct spawn.
    expect(b.output).toBe(a.status === 'completed' ? a.output : '');
    expect(helper.pid).toBeDefined();
    // Only what Node sets up for the IPC channel itself.
    const helperEnv = fs.readFileSync(`/proc/${helper.pid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(helperEnv.filter((v) => !v.startsWith('NODE_CHANNEL_'))).toEqual([]);
  });

  it('writes stdin and reads binary-safe output for git', async () => {
    const dir = scratch();
    const input = 'héllo\u0000 bytes\n';
    const a = await git(['hash-object', '--stdin'], dir, input);
    const b = await runWithSpawner(helper.spawn, () => git(['hash-object', '--stdin'], dir, input));
    expect(b).toBe(a);
    await expect(runWithSpawner(helper.spawn, () => git(['no-such-git-command'], dir))).rejects.toThrow(/git no-such-git-command/);
  });
});

describe('a spawn helper that dies mid-command', () => {
  it('fails the command with MINICODE_E_SPAWN_HELPER, kills its process group, and the next command gets a new helper', async () => {
    const own = createSpawnHelper();
    try {
      const dir = scratch();
      const started: SpawnedChild[] = [];
      const noting: Spawner = (command, args, options) => {
        const child = own.spawn(command, args, options);
        started.push(child);
        return child;
      };
      const running = runWithSpawner(noting, () => bashTool.run({ command: 'sleep 30 & echo $! > child.pid; wait' }, context(dir).ctx));
      await until(() => fs.existsSync(path.join(dir, 'child.pid')) && fs.readFileSync(path.join(dir, 'child.pid'), 'utf8').endsWith('\n'), 'the command to start');
      // The orphan kill needs the pid, which this process learns from the helper's first message about the command.
      await until(() => started[0]?.pid !== undefined, 'the helper to report the pid');
      const first = own.pid!;
      process.kill(first, 'SIGKILL');
      const outcome = await running;
      expect(outcome).toMatchObject({ status: 'failed', cause: 'INTERNAL_ERROR' });
      if (outcome.status === 'failed') expect(outcome.message.startsWith('MINICODE_E_SPAWN_HELPER')).toBe(true);
      const grandchild = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
      await until(() => dead(grandchild), 'the orphaned group to be killed');
      expect(own.running).toBe(0);
      const next = await runWithSpawner(own.spawn, () => bashTool.run({ command: 'echo again' }, context(dir).ctx));
      expect(next).toMatchObject({ status: 'completed', output: 'again\n' });
      expect(own.pid).not.toBe(first);
    } finally {
      await own.close();
    }
  });

  it('exits, killing what it runs, when its parent lets it go', async () => {
    const own = createSpawnHelper();
    const dir = scratch();
    const running = runWithSpawner(own.spawn, () => bashTool.run({ command: 'sleep 30 & echo $! > child.pid; wait' }, context(dir).ctx));
    await until(() => fs.existsSync(path.join(dir, 'child.pid')) && fs.readFileSync(path.join(dir, 'child.pid'), 'utf8').endsWith('\n'), 'the command to start');
    await own.close();
    const outcome = await running;
    expect(outcome.status).toBe('failed');
    const grandchild = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    await until(() => dead(grandchild), 'the command group to be killed');
  });
});
