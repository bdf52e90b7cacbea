/**
 * lmdb and msgpackr-extract find their native addon through `node-gyp-build-optional-packages`,
 * whose search (the package's package.json, build and prebuild folders listed and their names
 * parsed, the platform package resolved, the libc family read by `detect-libc` from the Node
 * binary's ELF header) costs a few milliseconds of every run for an answer that changes only
 * when the packages or Node do. The code-cache loader (cli/code-cache.ts) answers it from a memo
 * in its cache folder, which is already one per build, Node version, architecture and flag set:
 * the memo holds, per package folder, the addon the real search found, with the addon's size and
 * mtime. The memo is not used, and the real search runs, when an addon changed, when a local
 * build (`build/Release`, `build/Debug`, which the search prefers) exists, or when one of the
 * environment variables that steer the search is set.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** One remembered answer: the addon file of a package folder. */
export interface AddonEntry {
  addon: string;
  size: number;
  mtimeMs: number;
}

/** The memo, by package folder. */
export type AddonMemo = Record<string, AddonEntry>;

/** The memo's file name in the cache folder. */
export const ADDON_MEMO_FILE = 'native-addons.json';

/** Variables that change what the search finds (node-gyp-build-optional-packages reads them); `<PACKAGE>_PREBUILD` too. */
const STEERING = ['PREBUILDS_ONLY', 'LIBC', 'ARM_VERSION', 'npm_config_arch', 'npm_config_platform', 'ELECTRON_RUN_AS_NODE'];

/** True when `env` may steer the search elsewhere than the memo says. */
export function searchSteered(env: NodeJS.ProcessEnv): boolean {
  return STEERING.some((name) => env[name] !== undefined) || Object.keys(env).some((name) => name.endsWith('_PREBUILD'));
}

/** The remembered addon of `dir` when it still holds: same file, no local build beside it. */
export function memoHit(memo: AddonMemo, dir: string): string | undefined {
  const entry = memo[dir];
  if (!entry) return undefined;
  const stat = fs.statSync(entry.addon, { throwIfNoEntry: false });
  if (!stat || stat.size !== entry.size || Math.trunc(stat.mtimeMs) !== entry.mtimeMs) return undefined;
  if (fs.existsSync(path.join(dir, 'build'))) return undefined;
  return entry.addon;
}

/** Read the memo from `cacheDir` (empty when absent or unreadable). */
export function readAddonMemo(cacheDir: string): AddonMemo {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(cacheDir, ADDON_MEMO_FILE), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as AddonMemo) : {};
  } catch {
    return {};
  }
}

/** Write the memo to `cacheDir` (temporary name, then rename); a failure only costs the next run the search. */
export function writeAddonMemo(cacheDir: string, memo: AddonMemo): void {
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const file = path.join(cacheDir, ADDON_MEMO_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(memo)}\n`);
    fs.renameSync(tmp, file);
  } catch {
    // A read-only cache folder: the search runs again next time.
  }
}

/** What the loader needs to answer `node-gyp-build-optional-packages` for one run. */
export interface AddonLoader {
  /** The exports to give `node-gyp-build-optional-packages/index.js` (at `indexFile`): `load(dir)` and `load.resolve(dir)`. */
  exportsFor(indexFile: string): unknown;
  /** True when this run found an addon the memo did not hold (the memo is then written at exit). */
  readonly changed: boolean;
  readonly memo: AddonMemo;
}

/**
 * The memo-backed stand-in for the package's `load`: the real search (its `node-gyp-build.js`,
 * loaded only on a miss) answers what the memo cannot. `onAddon` hears each answer.
 */
export function addonLoader(memo: AddonMemo, env: NodeJS.ProcessEnv, onAddon?: (dir: string, outcome: 'hit' | 'miss') => void): AddonLoader {
  let changed = false;
  const steered = searchSteered(env);
  return {
    get changed() {
      return changed;
    },
    memo,
    exportsFor(indexFile) {
      const require = createRequire(indexFile);
      let real: { resolve(dir: string): string } | undefined;
      const resolve = (dir?: string): string => {
        const folder = path.resolve(dir ?? '.');
        const hit = steered ? undefined : memoHit(memo, folder);
        onAddon?.(folder, hit ? 'hit' : 'miss');
        if (hit) return hit;
        real ??= require('./node-gyp-build.js') as { resolve(dir: string): string };
        const addon = real.resolve(folder);
        const stat = fs.statSync(addon);
        if (!steered) {
          memo[folder] = { addon, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) };
          changed = true;
        }
        return addon;
      };
      const load = (dir?: string): unknown => require(resolve(dir));
      load.resolve = resolve;
      load.path = resolve;
      return load;
    },
  };
}
