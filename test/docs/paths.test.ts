import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** A repository path named in prose: a source folder, then path characters. */
const NAMED_PATH = /\b(?:lib|cli|workers|scripts|bench|test)\/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]/g;

/**
 * The source file a named path stands for: a built `dist/` file (`.js`) names its `.ts` source,
 * a benchmark may be named without its extension (`bench/isolation`), a glob names the folder
 * before its first wildcard; `bench/out/` holds what a benchmark run writes, not sources.
 */
function exists(named: string): boolean {
  if (named.startsWith('bench/out/')) return true;
  const source = named
    .replace(/^bench\/dist\/bench\//, 'bench/')
    .replace(/^dist\//, '')
    .replace(/\/[^/]*\*.*$/, '');
  const candidates = [source, source.replace(/\.js$/, '.ts'), `${source}.ts`];
  return candidates.some((candidate) => fs.existsSync(path.join(ROOT, candidate)));
}

/** The Markdown files a reader of the repository opens: README.md and docs/. */
function readerDocs(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

describe('the docs', () => {
  it('name only repository files that exist', () => {
    const missing: string[] = [];
    for (const doc of readerDocs()) {
      const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
      // A fenced block shows a file a user writes (a skill, a command), not one of ours.
      const prose = text.replace(/^```[\s\S]*?^```/gm, '');
      for (const [named] of prose.matchAll(NAMED_PATH)) if (!exists(named)) missing.push(`${doc}: ${named}`);
    }
    expect(missing).toEqual([]);
  });
});
