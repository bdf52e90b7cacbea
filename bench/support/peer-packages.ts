/**
 * Which packages each compiled benchmark needs, read from its imports (and those of the local
 * modules it imports), so that `minicode bench` can name the development packages a production
 * install lacks (`npm ci --omit=dev`) before running anything, instead of a benchmark crashing on
 * module resolution. The imports are the one source: no second list of peers to keep in step.
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

// `from` after a space or a closing brace, as in `import { a } from 'b'`: not `'--from', 'codex'` in an argument list.
const SPECIFIER = /(?<=[\s}])from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;
const BUILTIN = new Set(builtinModules);

/** The package a bare specifier names (`openai/core/streaming` -> `openai`, `@scope/a/b` -> `@scope/a`). */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Bare packages `file` imports, following its relative imports; `node:` and built-in modules excluded. */
export function importedPackages(file: string, seen = new Set<string>(), out = new Set<string>()): Set<string> {
  if (seen.has(file) || !fs.existsSync(file)) return out;
  seen.add(file);
  for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (!specifier || specifier.startsWith('node:')) continue;
    if (specifier.startsWith('.')) importedPackages(path.resolve(path.dirname(file), specifier), seen, out);
    else if (!BUILTIN.has(packageOf(specifier))) out.add(packageOf(specifier));
  }
  return out;
}

/** True when `name` is installed where `fromDir` would resolve it (a node_modules folder up the tree). */
export function isInstalled(name: string, fromDir: string): boolean {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules', name, 'package.json'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** For each benchmark file, the imported packages that are not installed (benchmarks lacking none are left out). */
export function missingPackages(files: readonly string[]): Map<string, string[]> {
  const missing = new Map<string, string[]>();
  for (const file of files) {
    const absent = [...importedPackages(file)].filter((name) => !isInstalled(name, path.dirname(file))).sort();
    if (absent.length > 0) missing.set(file, absent);
  }
  return missing;
}
