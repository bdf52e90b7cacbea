/**
 * `batch --isolate worktree` with the sandbox: eight lines run at once, each in its own git
 * worktree, and each line's bash command tries to write into every other line's worktree (they
 * all live side by side in one temp folder). Under `workspace-write` none succeeds: each line
 * sees only its own worktree. The same batch with `--sandbox off` does write into the others,
 * so the test proves the sandbox. Each line also commits in its own worktree from bash (its git
 * directory in the main repository is writable for it), while the other lines' git directories
 * and the repository's hooks and config stay unwritten. Real bubblewrap, real git worktrees, the real batch CLI over a
 * hand-made cassette (written here in the openai-chat wire shape).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { writeChatCassette } from '../exec/helpers.js';
import { bwrapSkipNote, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/batch-isolation.test.ts');

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

// Every other worktree of the batch's temp folder and every other worktree's git directory (the
// line's own are skipped), and the repository's hooks and config: write there. Then commit in
// the line's own worktree.
const ATTEMPT = [
  'for d in "$(dirname "$PWD")"/*/ /tmp/minicode-batch-ws-*/*/; do [ "$d" -ef . ] || echo x > "${d}escape-$$"; done 2>/dev/null',
  'G=$(git rev-parse --git-common-dir); for d in "$G"/worktrees/*/; do [ "$d" -ef "$(git rev-parse --git-dir)" ] || echo x > "${d}escape-$$"; done 2>/dev/null',
  'echo x > "$G/hooks/escape-$$" 2>/dev/null; git config core.hooksPath /tmp 2>/dev/null',
  'echo mine > own.txt && git add own.txt && git -c user.name=t -c user.email=t@example.com commit -qm "line commit"',
].join('; ');

/** A cassette whose model runs ATTEMPT with bash, then answers. */
function cassette(dir: string): string {
  const turns = [{ calls: [{ id: 'call_escape_1', name: 'bash', args: { command: ATTEMPT } }] }, { text: 'done' }];
  return writeChatCassette(
    path.join(dir, 'cassette'),
    "bash tries to write into the other lines' worktrees, then answers",
    turns,
  );
}

describe.skipIf(!HAVE_BWRAP)('batch --isolate worktree in the sandbox', () => {
  it("keeps each of eight concurrent lines out of the others' worktrees, which the same batch with --sandbox off writes into", async () => {
    for (const mode of ['workspace-write', 'off'] as const) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-sandbox-batch-'));
      const repo = path.join(dir, 'repo');
      fs.cpSync(path.join(ROOT, 'demo/sample-project'), repo, { recursive: true });
      git(repo, 'init', '-q');
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
      const input = path.join(dir, 'in.jsonl');
      fs.writeFileSync(
        input,
        `${Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: `line-${i}`, prompt: 'try to escape', cwd: 'repo' })).join('\n')}\n`,
      );
      const out = path.join(dir, 'out');
      try {
        const r = await runCli(
          [
            'batch',
            input,
            '--provider',
            'replay',
            '--cassette',
            cassette(dir),
            '--store',
            path.join(dir, 'store'),
            '--out',
            out,
            '--concurrency',
            '8',
            '--isolate',
            'worktree',
            '--keep-workspaces',
            '--sandbox',
            mode,
          ],
          { cwd: dir, env: { MINICODE_HOME: path.join(dir, 'home') }, timeoutMs: 180_000 },
        );
        expect(r.code, r.stderr).toBe(0);
        const records = fs
          .readFileSync(path.join(out, 'results.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { id: string; workspace: string });
        expect(records).toHaveLength(8);
        let escapes = 0;
        let gitEscapes = 0;
        for (const record of records) {
          // Each line wrote its own file in its own worktree and committed it, whatever the mode.
          expect(fs.readFileSync(path.join(record.workspace, 'own.txt'), 'utf8')).toBe('mine\n');
          expect(git(record.workspace, 'log', '-1', '--format=%s').trim()).toBe('line commit');
          // Nothing else in it: the commit took everything, and (sandboxed) no other line wrote here.
          if (mode !== 'off') expect(git(record.workspace, 'status', '--porcelain').trim()).toBe('');
          escapes += fs.readdirSync(record.workspace).filter((f) => f.startsWith('escape-')).length;
          const gitDir = path.resolve(record.workspace, git(record.workspace, 'rev-parse', '--git-dir').trim());
          gitEscapes += fs.readdirSync(gitDir).filter((f) => f.startsWith('escape-')).length;
        }
        gitEscapes += fs.readdirSync(path.join(repo, '.git/hooks')).filter((f) => f.startsWith('escape-')).length;
        const hooksPath = spawnSync('git', ['-C', repo, 'config', '--get', 'core.hooksPath'], {
          encoding: 'utf8',
        }).stdout.trim();
        if (mode === 'off') {
          expect(escapes).toBeGreaterThan(0);
          expect(gitEscapes).toBeGreaterThan(0);
          expect(hooksPath).toBe('/tmp');
        } else {
          expect(escapes).toBe(0);
          expect(gitEscapes).toBe(0);
          expect(hooksPath).toBe('');
        }
        for (const record of records) fs.rmSync(record.workspace, { recursive: true, force: true });
        git(repo, 'worktree', 'prune');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 400_000);
});
