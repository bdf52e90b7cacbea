/**
 * lib/debug.ts: a dropped error is printed only under MINICODE_DEBUG, as one line with its
 * secrets redacted and its control characters blanked; an expected errno or error name stays silent.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const TOKEN = `ghp_${'a1B2'.repeat(9)}`;
const SCRIPT = `
const { reportDropped, dropExpected } = await import(${JSON.stringify(path.join(ROOT, 'dist/lib/debug.js'))});
reportDropped('reading x', new SyntaxError('bad ${TOKEN} \\u001b[31mred\\nnext'));
dropExpected('reading y', Object.assign(new Error('gone'), { code: 'ENOENT' }), 'ENOENT');
dropExpected('reading z', Object.assign(new Error('denied'), { code: 'EACCES' }), 'ENOENT');
dropExpected('parsing w', new SyntaxError('torn'), 'ENOENT', 'SyntaxError');
dropExpected('parsing v', new TypeError('not a string'), 'SyntaxError');
`;

function run(debug: string | undefined): string {
  const env = { ...process.env };
  delete env.MINICODE_DEBUG;
  if (debug !== undefined) env.MINICODE_DEBUG = debug;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.status).toBe(0);
  return result.stderr;
}

describe('errors dropped on purpose', () => {
  it('are reported under MINICODE_DEBUG, redacted, one line each, and an expected errno or error name is not', () => {
    const lines = run('1').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^minicode debug: reading x: SyntaxError: bad \[REDACTED:[a-z-]+\] +\[31mred next$/);
    expect(lines[0]).not.toContain(TOKEN);
    expect(lines[0]).not.toContain('\u001b');
    expect(lines[1]).toBe('minicode debug: reading z: Error EACCES: denied');
    expect(lines[2]).toBe('minicode debug: parsing v: TypeError: not a string');
  });

  it('are silent without MINICODE_DEBUG or with it set to 0', () => {
    expect(run(undefined)).toBe('');
    expect(run('0')).toBe('');
  });
});
