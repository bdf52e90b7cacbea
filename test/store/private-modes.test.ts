/**
 * minicode's data is its owner's only: after an exec run that changes a file (so a checkpoint
 * copies the workspace, a 0600 `.env.local` among it) and a batch, every folder under
 * `$MINICODE_HOME` and the batch output is 0700 and every file 0600 or tighter (git's objects
 * 0400), whatever the umask lets through. A private file's copy is never more readable than it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASSETTE } from '../batch/helpers.js';
import { CASSETTES, execJson, scratchProject, tempDir } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';

/** Every entry below `dir` (and `dir` itself) whose mode gives the group or others any access. */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  const check = (p: string): void => {
    if ((fs.lstatSync(p).mode & 0o077) !== 0)
      out.push(`${(fs.lstatSync(p).mode & 0o777).toString(8)} ${path.relative(dir, p) || '.'}`);
  };
  check(dir);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (!entry.isSymbolicLink()) check(path.join(entry.parentPath, entry.name));
  return out;
}

describe('the data minicode keeps', () => {
  it('is 0700 folders and 0600 files: store, checkpoints and the copy of a 0600 file', async () => {
    const project = scratchProject();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
    fs.writeFileSync(path.join(project, '.env.local'), 'API_TOKEN=private-value-0600\n', { mode: 0o600 });
    const home = tempDir('minicode-home-');
    const homeDir = path.join(home, 'data');
    const run = await execJson(['--provider', 'replay', '--cassette', path.join(CASSETTES, 'demo')], {
      cwd: project,
      home: homeDir,
      prompt: 'fix the failing test',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readdirSync(homeDir).sort()).toEqual(expect.arrayContaining(['checkpoints', 'store']));
    // The checkpoint holds the 0600 file's content as a loose object.
    const objects = execFileSync('find', [path.join(homeDir, 'checkpoints'), '-path', '*/objects/??/*', '-type', 'f'])
      .toString()
      .trim()
      .split('\n');
    expect(objects.length).toBeGreaterThan(0);
    expect(openToOthers(homeDir)).toEqual([]);
  });

  it('is 0700 folders and 0600 files in a batch output folder', async () => {
    const dir = tempDir('minicode-batch-modes-');
    fs.writeFileSync(path.join(dir, 'README.md'), '# Sample\n');
    fs.writeFileSync(
      path.join(dir, 'in.jsonl'),
      `${JSON.stringify({ id: 'a', prompt: 'What does README.md say?' })}\n`,
    );
    const r = await runCli(
      ['batch', 'in.jsonl', '--out', 'out', '--store', 'store', '--provider', 'replay', '--cassette', CASSETTE],
      { cwd: dir, env: { MINICODE_HOME: path.join(dir, 'home') } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect((await runCli(['batch', 'report', 'out'], { cwd: dir })).code).toBe(0);
    expect(openToOthers(path.join(dir, 'out'))).toEqual([]);
    expect(openToOthers(path.join(dir, 'store'))).toEqual([]);
  });
});
