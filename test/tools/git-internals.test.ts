/**
 * The file tools change git's own files (`.git/hooks`, `.git/config`, refs) only with approval:
 * a hook runs code on the next commit, and a checkpoint cannot hold `.git`, so undo could not
 * take the change back. Reading them needs no approval. A real git repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editTool } from '../../lib/tools/edit.js';
import { readFileTool } from '../../lib/tools/read-file.js';
import { writeFileTool } from '../../lib/tools/write-file.js';
import { context, scratch } from './helpers.js';

function repo(): string {
  const dir = scratch({ 'README.md': '# r\n' });
  execFileSync('git', ['init', '-q', dir], {
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
  return dir;
}

describe("the file tools and git's own files", () => {
  it.each([
    [
      'write_file a hook',
      () => writeFileTool,
      { path: '.git/hooks/pre-commit', content: '#!/bin/sh\necho owned\n' },
      '.git/hooks/pre-commit',
    ],
    [
      'write_file a ref',
      () => writeFileTool,
      { path: '.git/refs/heads/evil', content: '0000000000000000000000000000000000000000\n' },
      '.git/refs/heads/evil',
    ],
    [
      'edit the config',
      () => editTool,
      { path: '.git/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = touch /tmp/owned' },
      '.git/config',
    ],
  ] as const)(
    '%s is denied without approval, asked as git-internals, and changes nothing',
    async (_label, tool, input, file) => {
      const dir = repo();
      const before = fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : undefined;
      const { ctx, asked } = context(dir);
      const outcome = await tool().run(input as never, ctx);
      expect(outcome.status).toBe('denied');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ reason: 'git-internals' });
      expect(asked[0]!.action).toContain('undo cannot take this back');
      const after = fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : undefined;
      expect(after).toBe(before);
    },
  );

  it('treats a path reaching .git through a symlink, or a nested repository, the same', async () => {
    const dir = repo();
    fs.symlinkSync(path.join(dir, '.git', 'hooks'), path.join(dir, 'hooks'));
    fs.mkdirSync(path.join(dir, 'sub', '.git'), { recursive: true });
    const { ctx, asked } = context(dir);
    expect((await writeFileTool.run({ path: 'hooks/post-checkout', content: 'x' }, ctx)).status).toBe('denied');
    expect((await writeFileTool.run({ path: 'sub/.git/config', content: 'x' }, ctx)).status).toBe('denied');
    expect(asked.map((a) => a.reason)).toEqual(['git-internals', 'git-internals']);
    expect(fs.existsSync(path.join(dir, '.git', 'hooks', 'post-checkout'))).toBe(false);
  });

  it('writes there once approved, and reads them without asking', async () => {
    const dir = repo();
    const allowed = context(dir, { decision: 'allow' });
    expect(
      (await writeFileTool.run({ path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }, allowed.ctx)).status,
    ).toBe('completed');
    expect(fs.readFileSync(path.join(dir, '.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\n');
    const reader = context(dir);
    expect((await readFileTool.run({ path: '.git/config' }, reader.ctx)).status).toBe('completed');
    expect(reader.asked).toEqual([]);
  });
});
