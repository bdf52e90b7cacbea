/**
 * `npm run build`, second step: bundle each CLI entry point with esbuild, from the TypeScript
 * sources, over what `tsc` has just emitted (tsc stays the type checker and keeps emitting
 * dist/lib and dist/workers, which worker threads and tests load). A run of the CLI then reads
 * one entry file and the few chunks its command needs instead of resolving, reading and
 * compiling a few hundred modules (docs/startup.md).
 *
 * - Each entry replaces tsc's output at the same path (`dist/cli/main.js` is what `bin` names).
 *   Code reached only through a dynamic `import()` goes to `dist/chunks/`, so what is lazy in the
 *   source stays lazy in the bundle.
 * - Packages with native parts or worker files (lmdb, msgpackr, piscina) and the large packages
 *   only some commands load (MCP and ACP SDKs, marked, bullmq, the tokenizer) stay external:
 *   Node resolves them from node_modules, so lmdb finds its native addon where npm put it.
 * - Worker threads run the tsc-emitted `dist/workers/*.js` (see `defaultWorkersDir`).
 * - `dist/bundle-meta.json` records which source modules each output file holds; the start-up
 *   module graph test reads it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The CLI entry points, relative to the project root, and where each is written under dist/ (`.js` added). */
export const ENTRY_POINTS = [
  { in: 'cli/main.ts', out: 'cli/main' },
  { in: 'cli/demo.ts', out: 'cli/demo' },
];

/** Put first in every bundle file: CommonJS packages inlined into an ES module still call require() for Node built-ins. */
const BANNER =
  "import { createRequire as __minicodeRequire } from 'node:module'; const require = __minicodeRequire(import.meta.url);";

/** Pure-JavaScript packages that the start-up path imports and that gain from being inlined. */
const INLINED_PACKAGES = new Set([
  'commander',
  'zod',
  'picomatch',
  'ignore',
  'chalk',
  'string-width',
  'get-east-asian-width',
  'strip-ansi',
  'ansi-regex',
  'emoji-regex',
]);

/** The package a bare specifier names (`zod/v4` -> `zod`, `@scope/a/b` -> `@scope/a`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Keep bare packages outside {@link INLINED_PACKAGES} external. */
function externals(): Plugin {
  return {
    name: 'minicode-externals',
    setup(b) {
      b.onResolve({ filter: /^[^./#]/ }, (args) =>
        INLINED_PACKAGES.has(packageOf(args.path)) || args.path.startsWith('node:')
          ? undefined
          : { path: args.path, external: true },
      );
    },
  };
}

/** Options of {@link bundle}. */
export interface BundleOptions {
  /** Output folder; default `<root>/dist`. */
  outDir?: string;
  /** Drop whitespace and shorten syntax (names are kept, so stack traces stay readable); default true. */
  minify?: boolean;
}

/** Bundle the entry points of the project at `root` into `root/dist`. */
export async function bundle(root: string, options: BundleOptions = {}): Promise<void> {
  const dist = options.outDir ?? path.join(root, 'dist');
  const minify = options.minify ?? true;
  fs.rmSync(path.join(dist, 'chunks'), { recursive: true, force: true });
  const result = await build({
    entryPoints: ENTRY_POINTS.map((e) => ({ in: path.join(root, e.in), out: e.out })),
    outbase: root,
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    allowOverwrite: true,
    metafile: true,
    logLevel: 'warning',
    minifyWhitespace: minify,
    minifySyntax: minify,
    banner: { js: BANNER },
    plugins: [externals()],
  });
  const relative = (file: string): string => path.relative(root, path.resolve(file)).split(path.sep).join('/');
  const outputs = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, out]) => [
      relative(file),
      Object.keys(out.inputs).map(relative),
    ]),
  );
  fs.writeFileSync(path.join(dist, 'bundle-meta.json'), `${JSON.stringify({ outputs }, null, 1)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  // This file runs as dist/scripts/bundle.js.
  await bundle(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
}
