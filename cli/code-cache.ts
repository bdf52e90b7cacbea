/**
 * Running the CLI bundle from V8's code cache (docs/startup.md). Node 20 has no compile cache
 * for ES modules, so the build also writes each bundle file as a function in a classic script:
 * the same code, its static imports turned into calls of a `require` that this loader supplies.
 * The bundle files one load step brings in share one script (a pack, `<first member>.pack.js`,
 * scripts/bundle-packs.ts) whose value is an object of those functions by key. The loader
 * compiles a pack with `vm.Script` when a member is first required, handing V8 the code it
 * cached from an earlier run, runs each member when it is first required, and at exit caches
 * what this run compiled.
 *
 * - Every `import()` in a pack is a call of this loader: of another bundle file, it loads it
 *   (and its pack, if not read yet); of anything else, it imports it through Node's ESM loader, resolved from where the
 *   ES module twin sits. (A native `import()` in a `vm.Script` taken from the code cache fails
 *   on Node 20, `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` or not: V8 drops the script's
 *   host-defined options.) Where Node lacks what this needs (`zlib.crc32`: Node < 20.15), and
 *   with `MINICODE_CODE_CACHE=0`, the bootstrap imports the ES module bundle instead.
 * - Packages a bundle file imports statically are imported (as ES modules, through Node's
 *   loader) before the file runs, so each package is the same instance on both paths.
 * - The cache of one build, Node version, architecture and set of Node/V8 flags lives in its own
 *   folder; a file is written to a temporary name then renamed; each carries a CRC-32 of the
 *   V8 data, checked before V8 sees it; V8's own rejection (`cachedDataRejected`) is honoured.
 *   A cache that cannot be read or written (read-only home) costs only the cache: the run goes on.
 */
import fs from 'node:fs';
import CommonJsModule, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type vmModule from 'node:vm';
import { frameCacheData, markCacheUsed, pruneUnusedCaches, unframeCacheData } from './code-cache-folder.js';
import { addonLoader, readAddonMemo, writeAddonMemo, type AddonLoader } from './native-addons.js';

export { codeCacheDir, frameCacheData, markCacheUsed, PRUNE_UNUSED_MS, pruneUnusedCaches, unframeCacheData } from './code-cache-folder.js';

/** One bundle file as the loader sees it; keys are paths relative to `dist/`, e.g. `chunks/chunk-X.js`. */
export interface ScriptEntry {
  /** The pack (classic script) holding this file's function, relative to dist/. */
  pack: string;
  /** Bundle files this one imports statically (keys). */
  deps: string[];
  /** Packages (or paths outside the bundle) this file imports statically. */
  externals: string[];
}

/** What the build records for the loader (baked into the bootstrap by scripts/bundle.ts). */
export interface ScriptManifest {
  /** A hash of every pack: a new build never reads an old build's cache. */
  buildId: string;
  /** The key of the entry file (`cli/app.js`). */
  entry: string;
  /** Every bundle file, by key. */
  files: Record<string, ScriptEntry>;
  /** Packages loaded through `require` (their CommonJS build: one file where the ES module build is many). */
  required: string[];
}

/** Why the code cache is not used, or undefined when it is. */
export function codeCacheUnavailable(node: { zlib: { crc32?: unknown }; vm: { Script?: unknown } }, env: NodeJS.ProcessEnv, manifest: ScriptManifest | undefined): string | undefined {
  if (env.MINICODE_CODE_CACHE === '0') return 'MINICODE_CODE_CACHE=0';
  if (!manifest) return 'no script manifest in this build';
  if (typeof node.vm.Script !== 'function') return 'this Node has no vm.Script';
  if (typeof node.zlib.crc32 !== 'function') return 'this Node has no zlib.crc32 (Node < 20.15)';
  return undefined;
}

/** How one script was compiled: from the cache, or not (and why). */
export type CacheOutcome = 'hit' | 'miss' | 'rejected' | 'corrupt';

interface LoadedScript {
  key: string;
  script: vmModule.Script;
  outcome: CacheOutcome;
}

/** A pack's value: the function of each member, by key. */
type Pack = Record<string, (exports: unknown, require: unknown, module: Module, url: string, dynamicImport: unknown, builtin: unknown) => void>;

interface Module {
  exports: unknown;
}

/** The file through which lmdb and msgpackr-extract look for their native addon. */
const NATIVE_ADDON_FINDER = path.join('node_modules', 'node-gyp-build-optional-packages', 'index.js');

/** The part of a CommonJS module (`node:module`'s Module) that the compile hook uses. */
interface CjsModule {
  exports: unknown;
}

/** Options of {@link runFromCodeCache}. */
export interface RunOptions {
  vm: typeof vmModule;
  /** The dist/ folder. */
  dist: string;
  manifest: ScriptManifest;
  /** The cache folder ({@link codeCacheDir}). */
  cacheDir: string;
  /** Called once per bundle file run, with how its pack was compiled, and per package file (MINICODE_DEBUG_CODE_CACHE=1 prints these on stderr). */
  onScript?: (key: string, outcome: CacheOutcome) => void;
  /** Called once per pack read (`<first member>.pack.js`), with how it was compiled. */
  onPack?: (pack: string, outcome: CacheOutcome) => void;
  /** Called with the number of cache files written at exit, or the error that stopped the writing. */
  onWritten?: (count: number, error?: unknown) => void;
  /** Called with the folders of other builds deleted at exit ({@link pruneUnusedCaches}). */
  onPruned?: (names: string[]) => void;
  /** Called for each native addon a package looked up (cli/native-addons.ts): from the memo (`hit`) or found by the search (`miss`). */
  onAddon?: (dir: string, outcome: 'hit' | 'miss') => void;
}

/**
 * Load and run the entry through the packs. Resolves once the entry has run its
 * top-level code; the cache of what was compiled without one is written at process exit.
 */
export async function runFromCodeCache(options: RunOptions): Promise<void> {
  const { vm, dist, manifest, cacheDir } = options;
  const modules = new Map<string, Module>();
  const packages = new Map<string, unknown>();
  const compiled: LoadedScript[] = [];
  const requires = new Map<string, NodeJS.Require>();

  const entryOf = (key: string): ScriptEntry => {
    const entry = manifest.files[key];
    if (!entry) throw new Error(`code cache: ${key} is not in the build's script manifest`);
    return entry;
  };
  /**
   * Paths are built by string concatenation below, not with `path`: a run loads about sixty
   * bundle files, and that many `path.join` calls made Node's own `normalizeString` hot enough
   * to be optimised, pulling V8's optimising compiler into a short run (cli/v8-flags.ts).
   */
  const distPrefix = dist.endsWith(path.sep) ? dist : dist + path.sep;
  const fromDist = (rel: string): string => distPrefix + (path.sep === '/' ? rel : rel.replaceAll('/', path.sep));
  const distUrl = pathToFileURL(distPrefix).href.replace(/\/?$/, '/');
  const cachePrefix = cacheDir + path.sep;
  /** The key a relative specifier names from bundle file `from` (`./chunk-X.js` from `chunks/a.js` is `chunks/chunk-X.js`). */
  const keyOf = (from: string, specifier: string): string => {
    let dir = from.slice(0, Math.max(0, from.lastIndexOf('/')));
    let rest = specifier;
    for (;;) {
      if (rest.startsWith('./')) rest = rest.slice(2);
      else if (rest.startsWith('../') && dir !== '') {
        rest = rest.slice(3);
        dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/')));
      } else break;
    }
    // Above dist/ or anything unusual: the general join.
    if (rest.startsWith('.') || rest.includes('/./') || rest.includes('/../')) return path.posix.join(path.posix.dirname(from), specifier);
    return dir === '' ? rest : `${dir}/${rest}`;
  };
  /** Node's require, resolving from the folder of bundle file `key`. */
  const requireFor = (key: string): NodeJS.Require => {
    const dir = key.slice(0, Math.max(0, key.lastIndexOf('/')));
    let found = requires.get(dir);
    if (!found) {
      found = createRequire(fromDist(key));
      requires.set(dir, found);
    }
    return found;
  };
  const cacheFile = (key: string): string => `${cachePrefix}${key.replaceAll('/', '__')}.v8`;

  /** Import (as ES modules) every package the closure of `key` imports statically. */
  const preload = async (key: string): Promise<void> => {
    const seen = new Set<string>();
    const wanted: Array<[string, string]> = [];
    const walk = (k: string): void => {
      if (seen.has(k) || modules.has(k)) return;
      seen.add(k);
      const entry = entryOf(k);
      for (const dep of entry.deps) walk(dep);
      for (const spec of entry.externals) if (!packages.has(spec)) wanted.push([k, spec]);
    };
    walk(key);
    await Promise.all(
      wanted.map(async ([k, spec]) => {
        if (manifest.required.includes(spec)) {
          packages.set(spec, requirePackage(k, spec));
          return;
        }
        const target = spec.startsWith('.') ? pathToFileURL(fromDist(keyOf(k, spec))).href : spec;
        packages.set(spec, await import(target));
      }),
    );
  };

  /**
   * Every cache file is read into this one buffer: V8 deserialises the data while the script
   * compiles and keeps none of it, so one scratch serves every file, where a buffer per file
   * (about 1 MB in all on the exec path) would stay allocated until a garbage collection.
   */
  let scratch = Buffer.allocUnsafeSlow(128 * 1024);
  const readCacheFile = (file: string): Buffer => {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      if (size > scratch.length) scratch = Buffer.allocUnsafeSlow(Math.max(size, 2 * scratch.length));
      let read = 0;
      while (read < size) {
        const n = fs.readSync(fd, scratch, read, size - read, read);
        if (n === 0) break;
        read += n;
      }
      return scratch.subarray(0, read);
    } finally {
      fs.closeSync(fd);
    }
  };

  /** Compile `source` (from `filename`) with the cache entry `key`, noting a script compiled without the cache for the write at exit. */
  const compileCached = (key: string, filename: string, source: string): { script: vmModule.Script; outcome: CacheOutcome } => {
    let cached: Buffer | undefined;
    let outcome: CacheOutcome = 'miss';
    try {
      cached = unframeCacheData(readCacheFile(cacheFile(key)));
      if (!cached) outcome = 'corrupt';
    } catch {
      // No cache yet, or an unreadable one: compile from source.
    }
    const script = new vm.Script(source, { filename, ...(cached ? { cachedData: cached } : {}) });
    if (cached) outcome = script.cachedDataRejected === true ? 'rejected' : 'hit';
    // Only the scripts whose entry is written at exit are kept.
    if (outcome !== 'hit') compiled.push({ key, script, outcome });
    return { script, outcome };
  };
  /** The packs compiled and evaluated so far, by their path relative to dist/, with how each was compiled. */
  const packs = new Map<string, { members: Pack; outcome: CacheOutcome }>();
  const packOf = (key: string): { members: Pack; outcome: CacheOutcome } => {
    const name = entryOf(key).pack;
    let found = packs.get(name);
    if (!found) {
      const filename = fromDist(name);
      const { script, outcome } = compileCached(name, filename, fs.readFileSync(filename, 'utf8'));
      found = { members: script.runInThisContext() as Pack, outcome };
      packs.set(name, found);
      options.onPack?.(name, outcome);
    }
    return found;
  };

  /**
   * `require` a package with its CommonJS files compiled through the cache too. Node 20's
   * CommonJS loader has no cache of its own; while this require runs, `Module.prototype._compile`
   * compiles each file of the package's tree from the cache, keyed by its path, size and mtime
   * (so an updated package never meets old code), except a file with an `import(` in it (see the header).
   */
  let addons: AddonLoader | undefined;
  const requirePackage = (from: string, specifier: string): unknown => {
    const compileHook = CommonJsModule.prototype as unknown as { _compile: (this: CjsModule, content: string, filename: string) => unknown };
    const original = compileHook._compile;
    compileHook._compile = function (this: CjsModule, content: string, filename: string): unknown {
      if (filename.endsWith(NATIVE_ADDON_FINDER)) {
        // The addon search, answered from the memo of this cache folder (cli/native-addons.ts).
        addons ??= addonLoader(readAddonMemo(cacheDir), process.env, options.onAddon);
        this.exports = addons.exportsFor(filename);
        return undefined;
      }
      if (content.includes('import(') || content.startsWith('#!')) return original.call(this, content, filename);
      const stat = fs.statSync(filename);
      const key = `pkg/${path.relative(dist, filename).split(path.sep).join('/').replaceAll('../', '')}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
      const { script, outcome } = compileCached(key, filename, CommonJsModule.wrap(content));
      options.onScript?.(key, outcome);
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      const require = createRequire(filename);
      wrapper.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
      return undefined;
    };
    try {
      return requireFor(from)(specifier);
    } finally {
      compileHook._compile = original;
    }
  };

  /**
   * A default or namespace import of a built-in, as esbuild's `__toESM` makes it (`make`), made once per process
   * (scripts/bundle-scripts.ts): the copy of node:fs alone is about a hundred property definitions.
   */
  const builtinViews = new Map<string, unknown>();
  const builtinView = (id: string, make: () => unknown): unknown => {
    if (builtinViews.has(id)) return builtinViews.get(id);
    const view = make();
    builtinViews.set(id, view);
    return view;
  };

  const load = (key: string): unknown => {
    const existing = modules.get(key);
    if (existing) return existing.exports;
    const module: Module = { exports: {} };
    modules.set(key, module);
    // Keys are the bundle's own file names: letters, digits, `-`, `_`, `.` and `/` need no escaping in a URL.
    const url = /^[\w./-]+$/.test(key) ? distUrl + key : pathToFileURL(fromDist(key)).href;
    const nodeRequire = requireFor(key);
    const localRequire = (specifier: string): unknown => {
      if (packages.has(specifier)) return packages.get(specifier);
      if (specifier.startsWith('.')) {
        const target = keyOf(key, specifier);
        if (manifest.files[target]) return load(target);
      }
      return nodeRequire(specifier);
    };
    const localImport = async (specifier: string): Promise<unknown> => {
      const target = specifier.startsWith('.') ? keyOf(key, specifier) : undefined;
      if (target && manifest.files[target]) {
        await preload(target);
        return load(target);
      }
      // A package, a built-in or a URL: Node's own loader, from where the ES module twin sits.
      return import(specifier.startsWith('.') ? new URL(specifier, url).href : specifier);
    };
    const pack = packOf(key);
    options.onScript?.(key, pack.outcome);
    const wrapper = pack.members[key];
    if (!wrapper) throw new Error(`code cache: ${key} is not in its pack ${entryOf(key).pack}`);
    wrapper.call(module.exports, module.exports, localRequire, module, url, localImport, builtinView);
    return module.exports;
  };

  process.once('exit', () => {
    if (addons?.changed) writeAddonMemo(cacheDir, addons.memo);
    if (compiled.length === 0) return;
    let written = 0;
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      for (const { key, script } of compiled) {
        const file = cacheFile(key);
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, frameCacheData(script.createCachedData()));
        fs.renameSync(tmp, file);
        written++;
      }
      options.onWritten?.(written);
    } catch (error) {
      // A read-only or full disk: the next run compiles from source again, nothing else changes.
      options.onWritten?.(written, error);
      return;
    }
    // A run that had to write is the first of a new build, Node or flag set: the moment to clear out old ones.
    const pruned = pruneUnusedCaches(cacheDir);
    if (pruned.length > 0) options.onPruned?.(pruned);
  });

  markCacheUsed(cacheDir);
  await preload(manifest.entry);
  load(manifest.entry);
}
