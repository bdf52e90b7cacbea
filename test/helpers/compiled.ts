/**
 * A test helper written in TypeScript (`test/helpers/<name>.ts`), compiled with esbuild into one
 * ES module, for a test to run as a real process or worker thread: Node 20 cannot run
 * TypeScript, and test helpers are not part of the build. Packages stay imports, so the module
 * is written under the repository's `node_modules/.cache` (where they resolve) and removed when
 * this process exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { ROOT } from './cli.js';

const compiled = new Map<string, string>();
let outDir: string | undefined;

/** The path of `test/helpers/<name>.ts` compiled (once per process) to a runnable `.mjs`. */
export function compiledHelper(name: string): string {
  const known = compiled.get(name);
  if (known) return known;
  if (!outDir) {
    const cache = path.join(ROOT, 'node_modules/.cache');
    fs.mkdirSync(cache, { recursive: true });
    const dir = fs.mkdtempSync(path.join(cache, 'minicode-test-helpers-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    outDir = dir;
  }
  const outfile = path.join(outDir, `${name}.mjs`);
  buildSync({
    entryPoints: [path.join(ROOT, 'test/helpers', `${name}.ts`)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  compiled.set(name, outfile);
  return outfile;
}
