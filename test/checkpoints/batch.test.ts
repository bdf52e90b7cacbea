/**
 * `minicode batch`: each line run in place is checkpointed like an exec run (its session's
 * checkpoints are undone with `minicode undo --session`); an isolated line's throwaway
 * workspace gets none (its changes are in the patch). Real CLI, loopback replay of the
 * hand-made `checkpoint-bash` cassette, real git.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, TEST_CASSETTES } from '../exec/helpers.js';
import { checkpointCli, gitWorkspace, repoFingerprint, tempDir, treeOf } from './helpers.js';

const SLOW = { timeout: 240_000 };

function batchIn(dir: string): { input: string; out: string } {
  const work = tempDir('minicode-ckpt-batch-');
  const input = path.join(work, 'prompts.jsonl');
  fs.writeFileSync(input, JSON.stringify({ id: 'one', prompt: 'change the files', cwd: dir }) + '\n');
  return { input, out: path.join(work, 'out') };
}

const runBatch = (input: string, out: string, home: string, extra: string[] = []) =>
  runCli(
    [
      'batch',
      input,
      '--out',
      out,
      '--threads',
      '0',
      '--provider',
      'replay',
      '--cassette',
      path.join(TEST_CASSETTES, 'checkpoint-bash'),
      ...extra,
    ],
    { env: cleanEnv(home), timeoutMs: 120_000 },
  );

const resultOf = (out: string): Record<string, any> =>
  JSON.parse(fs.readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n')[0]!) as Record<string, any>;

describe('checkpoints of batch lines', SLOW, () => {
  it('checkpoint a line run in place, and undo --session takes that line back', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const before = treeOf(dir);
    const repoBefore = repoFingerprint(dir);
    const { input, out } = batchIn(dir);
    const batch = await runBatch(input, out, home);
    expect(batch.code, batch.stderr).toBe(0);
    const sessionId = resultOf(out).sessionId as string;
    expect(treeOf(dir)).not.toEqual(before);

    const list = await checkpointCli(['checkpoints', '--session', sessionId], dir, home);
    expect(list.json.checkpoints).toHaveLength(1);
    const undo = await checkpointCli(['undo', '--session', sessionId], dir, home);
    expect(undo.code, undo.stderr).toBe(0);
    expect(treeOf(dir)).toEqual(before);
    expect(repoFingerprint(dir)).toEqual(repoBefore);
  });

  it('take none for an isolated line, whose workspace is thrown away', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const { input, out } = batchIn(dir);
    const batch = await runBatch(input, out, home, ['--isolate', 'copy']);
    expect(batch.code, batch.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, 'checkpoints'))).toBe(false);
    expect(fs.readFileSync(path.join(out, 'patches', 'one.diff'), 'utf8')).toContain('fresh.txt');
  });

  it('take none under --no-checkpoint', async () => {
    const dir = gitWorkspace();
    const home = tempDir('minicode-home-');
    const { input, out } = batchIn(dir);
    const batch = await runBatch(input, out, home, ['--no-checkpoint']);
    expect(batch.code, batch.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, 'checkpoints'))).toBe(false);
  });
});
