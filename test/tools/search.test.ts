import { describe, expect, it } from 'vitest';
import { globTool } from '../../lib/tools/glob.js';
import { grepTool } from '../../lib/tools/grep.js';
import { compileGlob } from '../../lib/tools/walk.js';
import { context, scratch } from './helpers.js';

const files = {
  'src/a.ts': 'export const answer = 42;\n',
  'src/deep/b.ts': 'const TODO = 1; // TODO fix\n',
  'src/c.js': 'todo lowercase\n',
  'node_modules/pkg/index.ts': 'TODO in a dependency\n',
  '.git/HEAD': 'TODO ref\n',
  'generated/out.ts': 'TODO generated\n',
  '.gitignore': 'generated/\n',
  'bin.dat': 'TODO\u0000binary',
};

describe('glob', () => {
  it('compiles globs the way users expect', () => {
    const matches = (pattern: string, file: string) => {
      const glob = compileGlob(pattern);
      return glob.ok && glob.test(file);
    };
    expect(matches('*.ts', 'src/deep/b.ts')).toBe(true);
    expect(matches('src/*.ts', 'src/deep/b.ts')).toBe(false);
    expect(matches('src/**/*.ts', 'src/deep/b.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('*.{js,ts}', 'src/c.js')).toBe(true);
  });

  it('lists matches in a stable order, skipping node_modules, .git and gitignored directories', async () => {
    const outcome = await globTool.run({ pattern: '**/*.ts' }, context(scratch(files)).ctx);
    expect(outcome).toMatchObject({ status: 'completed', output: 'src/a.ts\nsrc/deep/b.ts' });
  });
});

describe('grep', () => {
  it('prints path:line:text and skips dependencies, VCS, ignored and binary files', async () => {
    const outcome = await grepTool.run({ pattern: 'TODO' }, context(scratch(files)).ctx);
    expect(outcome).toMatchObject({ status: 'completed', output: 'src/deep/b.ts:1:const TODO = 1; // TODO fix' });
  });

  it('supports case-insensitive search, a glob filter and a single file', async () => {
    const dir = scratch(files);
    const insensitive = await grepTool.run({ pattern: 'todo', ignore_case: true, glob: '*.js' }, context(dir).ctx);
    expect(insensitive).toMatchObject({ output: 'src/c.js:1:todo lowercase' });
    const single = await grepTool.run({ pattern: 'answer', path: 'src/a.ts' }, context(dir).ctx);
    expect(single).toMatchObject({ output: 'src/a.ts:1:export const answer = 42;' });
  });

  it('reports an invalid regular expression as a failure', async () => {
    expect(await grepTool.run({ pattern: '(' }, context(scratch()).ctx)).toMatchObject({
      status: 'failed',
      cause: 'TOOL_ERROR',
    });
  });
});

describe('grep paths', () => {
  it('are workspace-relative when a subdirectory is searched', async () => {
    const outcome = await grepTool.run({ pattern: 'TODO', path: 'src' }, context(scratch(files)).ctx);
    expect(outcome).toMatchObject({ output: 'src/deep/b.ts:1:const TODO = 1; // TODO fix' });
  });
});

describe('glob paths', () => {
  it('are workspace-relative when a subdirectory is searched', async () => {
    const outcome = await globTool.run({ pattern: '*.ts', path: 'src/deep' }, context(scratch(files)).ctx);
    expect(outcome).toMatchObject({ output: 'src/deep/b.ts' });
  });
});
