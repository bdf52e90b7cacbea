import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/errors.js';
import { ROOT } from '../helpers/cli.js';
import { sourceFiles } from '../helpers/files.js';

const CODE = /MINICODE_[EW]_[A-Z0-9_]*[A-Z0-9]/g;

/** Every code spelled in the product sources, with the first file that spells it. */
function spelledCodes(): Map<string, string> {
  const seen = new Map<string, string>();
  for (const file of ['lib', 'cli', 'workers'].flatMap(sourceFiles)) {
    for (const [code] of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(CODE))
      if (!seen.has(code)) seen.set(code, file);
  }
  return seen;
}

describe('the error codes', () => {
  it('declare every code that lib/, cli/ and workers/ spell, comments included', () => {
    const undeclared = [...spelledCodes()]
      .filter(([code]) => !Object.hasOwn(ERROR_CODES, code))
      .map(([code, file]) => `${code} (${file})`);
    expect(undeclared).toEqual([]);
  });

  it('are never assembled from pieces, so the scan above sees every one', () => {
    const assembled = ['lib', 'cli', 'workers']
      .flatMap(sourceFiles)
      .filter((file) =>
        /MINICODE_[EW]_\$\{|'MINICODE_[EW]_'\s*\+/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
      );
    expect(assembled).toEqual([]);
  });

  it('are listed in alphabetical order, one line each', () => {
    const keys = Object.keys(ERROR_CODES);
    expect(keys).toEqual([...keys].sort());
    const lines = fs
      .readFileSync(path.join(ROOT, 'lib/errors.ts'), 'utf8')
      .split('\n')
      .filter((l) => /^\s+MINICODE_[EW]_\w+: \{/.test(l));
    expect(lines).toHaveLength(keys.length);
  });

  it('are documented in docs/errors.md exactly as lib/errors.ts declares them (run `npm run build && node dist/scripts/gen-error-codes.js`)', async () => {
    const { errorCodeReference } = await import('../../scripts/gen-error-codes.js');
    const text = fs.readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8');
    expect(text).toBe(errorCodeReference());
    for (const code of Object.keys(ERROR_CODES)) expect(text).toContain(`\`${code}\``);
  });
});
