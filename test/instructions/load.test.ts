import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadInstructions, sha256Of, utf8Prefix } from '../../lib/instructions/load.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A real repository: root, a package, a working folder inside it; files written as given. */
function nestedRepo(files: Record<string, string>): { root: string; work: string } {
  const root = temp('minicode-instr-repo-');
  execFileSync('git', ['init', '-q'], {
    cwd: root,
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  const work = path.join(root, 'packages/api/src');
  fs.mkdirSync(work, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text);
  return { root, work };
}

describe('project instructions', () => {
  it('layers the user file, then the repository root down to the working folder, nearest last', () => {
    const { work } = nestedRepo({
      'AGENTS.md': 'root rules\n',
      'packages/api/CLAUDE.md': 'package rules (fallback name)\n',
      'packages/api/src/AGENTS.md': 'working folder rules\n',
      'packages/api/src/CLAUDE.md': 'never read: AGENTS.md is in this folder\n',
    });
    const user = temp('minicode-instr-home-');
    fs.writeFileSync(path.join(user, 'AGENTS.md'), 'user rules\n');
    const loaded = loadInstructions({ cwd: work, userDir: user });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.sections.map((s) => [s.file.scope, s.file.path, s.text])).toEqual([
      ['user', path.join(user, 'AGENTS.md'), 'user rules\n'],
      ['project', 'AGENTS.md', 'root rules\n'],
      ['project', 'packages/api/CLAUDE.md', 'package rules (fallback name)\n'],
      ['project', 'packages/api/src/AGENTS.md', 'working folder rules\n'],
    ]);
    expect(loaded.sections[1]!.file).toEqual({
      path: 'AGENTS.md',
      scope: 'project',
      bytes: 11,
      sha256: sha256Of('root rules\n'),
    });
  });

  it('takes the fallback names from the option, in order, and only where a folder has no AGENTS.md', () => {
    const { work } = nestedRepo({
      'CLAUDE.md': 'claude\n',
      'GEMINI.md': 'gemini\n',
      'packages/api/GEMINI.md': 'pkg gemini\n',
    });
    expect(loadInstructions({ cwd: work }).sections.map((s) => s.file.path)).toEqual([
      'CLAUDE.md',
      'packages/api/GEMINI.md',
    ]);
    expect(loadInstructions({ cwd: work, fallbackFiles: ['GEMINI.md'] }).sections.map((s) => s.file.path)).toEqual([
      'GEMINI.md',
      'packages/api/GEMINI.md',
    ]);
    expect(loadInstructions({ cwd: work, fallbackFiles: [] }).sections).toEqual([]);
  });

  it('searches only the working folder outside a repository (a parent folder is not the project)', () => {
    const parent = temp('minicode-instr-norepo-');
    fs.writeFileSync(path.join(parent, 'AGENTS.md'), 'a stranger’s rules\n');
    const work = path.join(parent, 'work');
    fs.mkdirSync(work);
    expect(loadInstructions({ cwd: work }).sections).toEqual([]);
    fs.writeFileSync(path.join(work, 'AGENTS.md'), 'mine\n');
    expect(loadInstructions({ cwd: work }).sections.map((s) => s.file.path)).toEqual(['AGENTS.md']);
  });

  it('caps all files together: the file crossing the cap is cut on a character boundary, later ones are left out, one diagnostic says so', () => {
    const { work } = nestedRepo({
      'AGENTS.md': `${'r'.repeat(20)}\n`,
      'packages/api/AGENTS.md': `${'é'.repeat(10)}`,
      'packages/api/src/AGENTS.md': 'dropped\n',
    });
    const loaded = loadInstructions({ cwd: work, maxBytes: 30 });
    expect(loaded.sections.map((s) => [s.file.path, s.file.bytes, s.file.truncated ?? false])).toEqual([
      ['AGENTS.md', 21, false],
      // 9 bytes were left: four two-byte characters fit, the fifth would be split.
      ['packages/api/AGENTS.md', 8, true],
    ]);
    expect(loaded.sections[1]!.text).toBe('éééé');
    expect(loaded.diagnostics).toHaveLength(1);
    expect(loaded.diagnostics[0]!.code).toBe('MINICODE_W_INSTRUCTIONS_TRUNCATED');
    expect(loaded.diagnostics[0]!.message).toContain('packages/api/src/AGENTS.md');
  });

  it('defaults to a 32 KiB cap', () => {
    const { work } = nestedRepo({ 'AGENTS.md': 'x'.repeat(40 * 1024) });
    const loaded = loadInstructions({ cwd: work });
    expect(loaded.sections[0]!.file).toMatchObject({ bytes: 32 * 1024, truncated: true });
  });

  it('skips an AGENTS.md that is a folder or a FIFO (never blocks on it) and uses the fallback there', () => {
    const { root, work } = nestedRepo({
      'CLAUDE.md': 'fallback at root\n',
      'packages/api/CLAUDE.md': 'fallback in package\n',
    });
    fs.mkdirSync(path.join(root, 'AGENTS.md'));
    execFileSync('mkfifo', [path.join(root, 'packages/api/AGENTS.md')]);
    expect(loadInstructions({ cwd: work }).sections.map((s) => s.file.path)).toEqual([
      'CLAUDE.md',
      'packages/api/CLAUDE.md',
    ]);
  });

  it('reports an unreadable file and goes on without it', () => {
    const { root, work } = nestedRepo({ 'packages/api/src/AGENTS.md': 'readable\n' });
    // A regular file whose read fails for any user, root included: offset 0 of /proc/self/mem is unmapped (EIO).
    fs.symlinkSync('/proc/self/mem', path.join(root, 'AGENTS.md'));
    const loaded = loadInstructions({ cwd: work });
    expect(loaded.sections.map((s) => s.file.path)).toEqual(['packages/api/src/AGENTS.md']);
    expect(loaded.diagnostics.map((d) => d.code)).toEqual(['MINICODE_W_INSTRUCTIONS_UNREADABLE']);
  });

  it('reads a file reached twice (the user folder is the repository root) once', () => {
    const { root } = nestedRepo({ 'AGENTS.md': 'once\n' });
    expect(loadInstructions({ cwd: root, userDir: root }).sections.map((s) => [s.file.scope, s.text])).toEqual([
      ['user', 'once\n'],
    ]);
  });

  it('cuts bytes only between UTF-8 characters', () => {
    const bytes = Buffer.from('a€b', 'utf8'); // € is three bytes
    expect(utf8Prefix(bytes, 2).toString()).toBe('a');
    expect(utf8Prefix(bytes, 4).toString()).toBe('a€');
    expect(utf8Prefix(bytes, 10)).toBe(bytes);
  });
});
