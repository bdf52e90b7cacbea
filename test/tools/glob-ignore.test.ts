/**
 * The search tools' globs (picomatch) and .gitignore handling (the `ignore` package, as git
 * reads it): nested `.gitignore` files, negation, directory patterns, anchored patterns; a bad
 * glob is a failed tool call with a clear message, never a crash.
 */
import { describe, expect, it } from 'vitest';
import { globTool } from '../../lib/tools/glob.js';
import { grepTool } from '../../lib/tools/grep.js';
import { createToolRegistry } from '../../lib/tools/index.js';
import { context, scratch } from './helpers.js';

const tree = {
  '.gitignore': '*.log\n/root-only.txt\nbuild/\ncache\n!important.log\n/src/lib/anchored.ts\n',
  'a.ts': 'TODO a\n',
  'root-only.txt': 'TODO root-only\n',
  'debug.log': 'TODO log\n',
  'important.log': 'TODO important\n',
  'build/out.ts': 'TODO build\n',
  'src/build.ts': 'TODO a file named build is not a directory\n',
  'src/root-only.txt': 'TODO only the root one is ignored\n',
  'src/cache/x.ts': 'TODO cache dir\n',
  'src/.gitignore': 'generated/\n*.snap\n!keep.snap\n',
  'src/generated/g.ts': 'TODO generated\n',
  'src/b.snap': 'TODO snapshot\n',
  'src/keep.snap': 'TODO kept snapshot\n',
  'src/lib/c.ts': 'TODO c\n',
  'src/lib/.gitignore': '/local.ts\n!*.log\n',
  'src/lib/local.ts': 'TODO local\n',
  'src/lib/wanted.log': 'TODO re-included by the nested file\n',
  'src/lib/old.snap': 'TODO ignored by src/.gitignore\n',
  'src/lib/anchored.ts': 'TODO ignored by a root pattern anchored at src/lib\n',
  'other/generated/h.ts': 'TODO another generated dir: src/.gitignore does not reach it\n',
};

const list = async (pattern: string, path?: string) => {
  const outcome = await globTool.run(path === undefined ? { pattern } : { pattern, path }, context(scratch(tree)).ctx);
  expect(outcome.status).toBe('completed');
  return (outcome as { output: string }).output.split('\n');
};

describe('glob and grep follow .gitignore as git does', () => {
  it('applies nested .gitignore files, negation, directory-only and root-anchored patterns (files of a directory before its subdirectories)', async () => {
    expect(await list('**/*')).toEqual([
      '.gitignore',
      'a.ts',
      'important.log',
      'other/generated/h.ts',
      'src/.gitignore',
      'src/build.ts',
      'src/keep.snap',
      'src/root-only.txt',
      'src/lib/.gitignore',
      'src/lib/c.ts',
      'src/lib/wanted.log',
    ]);
  });

  it('applies the .gitignore files above a searched subdirectory', async () => {
    expect(await list('*', 'src/lib')).toEqual(['src/lib/.gitignore', 'src/lib/c.ts', 'src/lib/wanted.log']);
  });

  it('greps only files git would not ignore', async () => {
    const outcome = await grepTool.run({ pattern: 'TODO' }, context(scratch(tree)).ctx);
    const files = (outcome as { output: string }).output.split('\n').map((l) => l.split(':')[0]);
    expect(files).toEqual([
      'a.ts',
      'important.log',
      'other/generated/h.ts',
      'src/build.ts',
      'src/keep.snap',
      'src/root-only.txt',
      'src/lib/c.ts',
      'src/lib/wanted.log',
    ]);
  });
});

describe('globs', () => {
  it('match the way users expect: a pattern without a slash matches names at any depth', async () => {
    expect(await list('*.ts')).toEqual(['a.ts', 'other/generated/h.ts', 'src/build.ts', 'src/lib/c.ts']);
    expect(await list('src/*.ts')).toEqual(['src/build.ts']);
    expect(await list('src/**/*.ts')).toEqual(['src/build.ts', 'src/lib/c.ts']);
    expect(await list('*.{log,snap}')).toEqual(['important.log', 'src/keep.snap', 'src/lib/wanted.log']);
    expect(await list('[ab].ts')).toEqual(['a.ts']);
    expect(await list('./src/lib/*.ts')).toEqual(['src/lib/c.ts']);
  });

  it.each(['[z-a].ts', 'src/{a,b'])('turn the bad glob %s into a failed tool call, not a crash', async (pattern) => {
    const dir = scratch(tree);
    const direct = await globTool.run({ pattern }, context(dir).ctx);
    expect(direct).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
      message: expect.stringContaining(`invalid glob ${JSON.stringify(pattern)}`),
    });
    expect(await grepTool.run({ pattern: 'TODO', glob: pattern }, context(dir).ctx)).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
    });
    // Through the registry, as the agent loop calls it: the same failure, not an internal error.
    const registry = createToolRegistry();
    expect(await registry.invoke('glob', JSON.stringify({ pattern }), context(dir).ctx)).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
    });
  });
});
