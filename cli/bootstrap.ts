#!/usr/bin/env node
/**
 * The `minicode` executable (`bin`; the build writes it to dist/cli/main.js). It runs the CLI
 * (cli/main.ts, bundled to dist/cli/app.js) from V8's code cache where this Node allows it
 * (cli/code-cache.ts, docs/startup.md), else imports the ES module bundle.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mark } from '../lib/timeline.js';
import { applyRuntimeV8Flags } from './v8-flags.js';
import { codeCacheDir, codeCacheUnavailable, runFromCodeCache, type ScriptManifest } from './code-cache.js';

/** Set by scripts/bundle.ts; absent in tsc's output of this file. */
declare const __MINICODE_SCRIPTS__: ScriptManifest | undefined;

// Before anything of the bundle compiles: V8 refuses code cached under other flags (cli/v8-flags.ts).
const runtimeFlags = applyRuntimeV8Flags(v8);
mark('bootstrap: start');
const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = typeof __MINICODE_SCRIPTS__ === 'undefined' ? undefined : __MINICODE_SCRIPTS__;
const debug = process.env.MINICODE_DEBUG_CODE_CACHE === '1' ? (line: string): boolean => process.stderr.write(`minicode code-cache: ${line}\n`) : undefined;
const unavailable = codeCacheUnavailable({ vm, zlib }, process.env, manifest);
if (unavailable || !manifest) {
  debug?.(`off (${unavailable})`);
  await import(new URL('./app.js', import.meta.url).href);
} else {
  const cacheDir = codeCacheDir(process.env, manifest.buildId, process.execArgv, runtimeFlags);
  await runFromCodeCache({
    vm,
    dist,
    manifest,
    cacheDir,
    ...(debug
      ? {
          onScript: (key, outcome) => debug(`${outcome} ${key}`),
          onPack: (pack, outcome) => debug(`pack ${outcome} ${pack}`),
          onWritten: (count, error) => debug(`wrote ${count} file(s) to ${cacheDir}${error ? ` (stopped: ${error instanceof Error ? error.message : String(error)})` : ''}`),
          onPruned: (names) => debug(`deleted unused cache folder(s): ${names.join(', ')}`),
          onAddon: (dir, outcome) => debug(`addon ${outcome} ${dir}`),
        }
      : {}),
  });
}
