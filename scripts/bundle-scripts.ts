/**
 * The classic-script twins of the bundle files, for the code-cache loader (cli/code-cache.ts):
 * each bundle file `X.js` becomes a function of
 * `(exports, require, module, __minicode_url, __minicode_import, __minicode_builtin)`, the same code. esbuild turns the static
 * imports into `require` calls and the exports into `module.exports`; `import.meta.url` becomes
 * the ES module twin's URL (so files are found as before); every `import()` becomes a call of
 * `__minicode_import`. The functions of the files one load step brings in are written together,
 * as one script (a pack, `<first member>.pack.js`, scripts/bundle-packs.ts) whose value is an
 * object of them by key; the loader runs each when it is first required.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { transform, type Metafile } from 'esbuild';
import type { ScriptEntry, ScriptManifest } from '../cli/code-cache.js';
import { groupPacks, type PackInput } from './bundle-packs.js';

/**
 * Packages the loader takes through `require`: lmdb's CommonJS build is one file (plus
 * msgpackr's one), where its ES module build is some fifteen modules for Node's ESM loader to
 * resolve, translate and link on every run. Nothing else in the process imports lmdb as an
 * ES module (worker threads have their own), so there is one lmdb either way.
 */
const REQUIRED_PACKAGES = ['lmdb'];

/** A member of a pack: not in parentheses, so V8 compiles it when it first runs, not with the pack. */
const WRAP_HEAD = 'function (exports, require, module, __minicode_url, __minicode_import, __minicode_builtin) {';
const WRAP_TAIL = '\n}';

/** `import("./x.js")` as esbuild prints it, with the specifier captured. */
const DYNAMIC_IMPORT = /\bimport\("(\.{1,2}\/[^"]+)"\)/g;
/** esbuild's interop call for a default or namespace import of a built-in, with its optional node-mode flag. */
const BUILTIN_INTEROP = /__toESM\(require\("([^"]+)"\)(,\s*1)?\)/g;
/** Any other `import(` that is not a property call (`x.import(`). */
const NATIVE_IMPORT = /(^|[^.\w$])import\(/g;

/**
 * Write the packs of the bundle files in `metafile` (paths relative to `root`) and return their manifest; `entry` is the key of
 * the CLI entry, `banner` the text the ES module build put first in each file, `hot` the source modules whose `import()` from the
 * entry is the hot path (scripts/bundle-packs.ts).
 */
export async function writeScriptPacks(root: string, dist: string, metafile: Metafile, entry: string, banner: string, minify: boolean, hot: readonly string[]): Promise<ScriptManifest> {
  const files: Record<string, ScriptEntry> = {};
  const inputs: Record<string, PackInput> = {};
  const functions = new Map<string, string>();
  const externalsOf = new Map<string, string[]>();
  const hash = createHash('sha256');
  const keyOf = (output: string): string => path.relative(dist, path.resolve(root, output)).split(path.sep).join('/');
  const outputs = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js'));
  const known = new Set(outputs.map(([file]) => keyOf(file)));
  for (const [file, out] of outputs.sort(([a], [b]) => a.localeCompare(b))) {
    const key = keyOf(file);
    const relative = (target: string): string => {
      const r = path.posix.relative(path.posix.dirname(key), target);
      return r.startsWith('.') ? r : `./${r}`;
    };
    const deps: string[] = [];
    const externals: string[] = [];
    externalsOf.set(key, externals);
    const dynamic = new Set<string>();
    for (const i of out.imports) {
      if (i.kind === 'import-statement' && !i.external) deps.push(keyOf(i.path));
      else if (i.kind === 'import-statement' && !isBuiltin(i.path)) externals.push(i.path);
      else if (i.kind === 'dynamic-import' && !i.external) dynamic.add(relative(keyOf(i.path)));
    }
    const absolute = path.resolve(root, file);
    let code = fs.readFileSync(absolute, 'utf8').replace(/^#!.*\n/, '');
    if (!code.startsWith(banner)) throw new Error(`bundle-scripts: ${key} does not start with the expected banner`);
    code = code.slice(banner.length);
    const result = await transform(code, {
      loader: 'js',
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      define: { 'import.meta.url': '__minicode_url' },
      minifyWhitespace: minify,
      minifySyntax: minify,
      logLevel: 'silent',
    });
    if (result.warnings.length > 0) throw new Error(`bundle-scripts: ${key}: ${result.warnings.map((w) => w.text).join('; ')}`);
    // A default or namespace import of a package would go through esbuild's CommonJS interop, which differs from Node's for an ES
    // module (for a built-in it is the same: the default export is module.exports).
    for (const [, specifier] of result.code.matchAll(/__toESM\(require\("([^"]+)"\)/g)) {
      if (!isBuiltin(specifier!)) throw new Error(`bundle-scripts: ${key} imports ${specifier} by default or namespace import; use named imports`);
    }
    // esbuild's __toESM copies every property of the module onto a new object at each import site (about a hundred
    // getters for node:fs, some thirty sites on the exec path): the loader makes each built-in's copy once per process.
    let builtinSites = 0;
    const interop = result.code.replace(BUILTIN_INTEROP, (whole: string, specifier: string, flag: string | undefined) => {
      builtinSites++;
      return `__minicode_builtin(${JSON.stringify(flag ? `${specifier} node` : specifier)},()=>${whole})`;
    });
    if (builtinSites !== (result.code.match(/__toESM\(/g) ?? []).length) {
      throw new Error(`bundle-scripts: ${key}: a __toESM call of another shape than __toESM(require("node:x")) is left`);
    }
    // Every import() goes to the loader: V8 drops the host-defined options of a script it takes from the code cache, so a
    // native import() there fails on Node 20 ("A dynamic import callback was not specified").
    const before = (code.match(NATIVE_IMPORT) ?? []).length;
    const rewritten = new Set<string>();
    const body = interop
      .replace(DYNAMIC_IMPORT, (whole, specifier: string) => {
        if (known.has(path.posix.join(path.posix.dirname(key), specifier))) rewritten.add(specifier);
        return `__minicode_import(${JSON.stringify(specifier)})`;
      })
      .replace(NATIVE_IMPORT, (whole, lead: string) => `${lead}__minicode_import(`);
    if ([...dynamic].some((d) => !rewritten.has(d)) || [...rewritten].some((r) => !dynamic.has(r))) {
      throw new Error(`bundle-scripts: ${key}: dynamic imports of bundle files do not match the metafile (${[...dynamic].join(', ')} vs ${[...rewritten].join(', ')})`);
    }
    const after = (body.match(/\b__minicode_import\(/g) ?? []).length;
    if (after !== before) throw new Error(`bundle-scripts: ${key}: ${before} import() in the module, ${after} rewritten in its script`);
    functions.set(key, `${WRAP_HEAD}${body}${WRAP_TAIL}`);
    inputs[key] = {
      deps,
      dynamic: [...dynamic].map((d) => path.posix.join(path.posix.dirname(key), d)),
      modules: Object.keys(out.inputs).map((i) => path.relative(root, path.resolve(i)).split(path.sep).join('/')),
    };
  }
  if (!functions.has(entry)) throw new Error(`bundle-scripts: the entry ${entry} is not among the outputs`);
  for (const members of groupPacks(inputs, entry, hot)) {
    const pack = members[0]!.replace(/\.js$/, '.pack.js');
    const text = `({\n${members.map((key) => `${JSON.stringify(key)}: ${functions.get(key)!}`).join(',\n')}\n})`;
    fs.writeFileSync(path.join(dist, pack), text);
    hash.update(pack).update('\0').update(text).update('\0');
    for (const key of members) files[key] = { pack, deps: [...inputs[key]!.deps], externals: externalsOf.get(key)! };
  }
  return { buildId: hash.digest('hex').slice(0, 16), entry, files, required: [...REQUIRED_PACKAGES] };
}
