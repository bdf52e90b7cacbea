import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INGEST_FORMATS, NATIVE_AGENTS, NATIVE_FORMATS, PROVIDER_FORMATS } from '../../lib/decode/formats.js';
import { NATIVE_AGENT_DECODERS } from '../../lib/native/index.js';
import { PROVIDER_DECODERS } from '../../lib/providers/index.js';
import { ROOT } from '../helpers/cli.js';
import { sourceFiles } from '../helpers/files.js';

const FORMATS_MODULE = path.join('lib', 'decode', 'formats.ts');
/** Not product or bench source: the bench package's own tests (like test/, they may name formats as table data), its build output and its installed packages. */
const NOT_SOURCE = ['test', 'dist', 'node_modules'].map((dir) => path.join('bench', dir) + path.sep);

describe('the format lists', () => {
  it('live in a module that imports nothing, so reading them loads no decoder', () => {
    const text = fs.readFileSync(path.join(ROOT, FORMATS_MODULE), 'utf8');
    expect(text).not.toMatch(/^\s*import\b/m);
    expect(text).not.toMatch(/\bimport\(/);
  });

  it('name every decoder, and every decoder is named', () => {
    expect(Object.keys(PROVIDER_DECODERS).sort()).toEqual([...PROVIDER_FORMATS].sort());
    expect(Object.keys(NATIVE_AGENT_DECODERS).sort()).toEqual([...NATIVE_FORMATS].sort());
    expect(new Set(INGEST_FORMATS).size).toBe(PROVIDER_FORMATS.length + NATIVE_FORMATS.length);
    expect(NATIVE_FORMATS.filter((f) => !(NATIVE_AGENTS as readonly string[]).includes(f))).toEqual(['terminal']);
  });

  it('have no second copy: no other product or bench file spells out two format names as a list', () => {
    const names = [...PROVIDER_FORMATS, ...NATIVE_AGENTS].map((n) => n.replace(/-/g, '\\-')).join('|');
    // Two quoted names next to each other (in an array or a union type) is a list of formats.
    const list = new RegExp(`(['"])(?:${names})\\1\\s*[,|]\\s*(['"])(?:${names})\\2`);
    const copies = ['lib', 'cli', 'workers', 'bench']
      .flatMap(sourceFiles)
      .filter(
        (file) =>
          file !== FORMATS_MODULE &&
          !NOT_SOURCE.some((dir) => file.startsWith(dir)) &&
          list.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
      );
    expect(copies).toEqual([]);
  });
});
