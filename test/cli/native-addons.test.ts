/**
 * The memo of native addon lookups (cli/native-addons.ts) that the code-cache loader puts in
 * place of node-gyp-build-optional-packages' search: the same file as the real search, and the
 * real search again whenever the memo could be wrong.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addonLoader, memoHit, readAddonMemo, searchSteered, writeAddonMemo, type AddonMemo } from '../../cli/native-addons.js';
import { ROOT } from '../helpers/cli.js';
import { tempDir } from '../exec/helpers.js';

const requireHere = createRequire(path.join(ROOT, 'package.json'));
const LMDB = path.join(ROOT, 'node_modules', 'lmdb');
const FINDER = createRequire(path.join(LMDB, 'package.json')).resolve('node-gyp-build-optional-packages');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

type Finder = ((dir: string) => unknown) & { resolve(dir: string): string };

describe('the native addon memo', () => {
  it('finds the addon the real search finds, remembers it, and answers the next run from the memo with the same loaded addon', () => {
    const real = createRequire(FINDER)('./node-gyp-build.js') as Finder;
    const heard: string[] = [];
    const first = addonLoader({}, {}, (dir, outcome) => heard.push(`${outcome} ${dir}`));
    const found = (first.exportsFor(FINDER) as Finder).resolve(LMDB);
    expect(found).toBe(real.resolve(LMDB));
    expect(first.changed).toBe(true);
    const cacheDir = tempDir('minicode-addons-');
    dirs.push(cacheDir);
    writeAddonMemo(cacheDir, first.memo);
    const second = addonLoader(readAddonMemo(cacheDir), {}, (dir, outcome) => heard.push(`${outcome} ${dir}`));
    const finder = second.exportsFor(FINDER) as Finder;
    expect(finder.resolve(LMDB)).toBe(found);
    expect(finder(LMDB)).toBe(requireHere(found));
    expect(second.changed).toBe(false);
    expect(heard).toEqual([`miss ${LMDB}`, `hit ${LMDB}`, `hit ${LMDB}`]);
  });

  it('searches again when the addon changed, when a local build sits in the package, or when the environment steers the search', () => {
    const pkg = tempDir('minicode-addon-pkg-');
    dirs.push(pkg);
    const addon = path.join(pkg, 'fake.node');
    fs.writeFileSync(addon, 'not really an addon');
    const stat = fs.statSync(addon);
    const memo: AddonMemo = { [pkg]: { addon, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) } };
    expect(memoHit(memo, pkg)).toBe(addon);
    expect(memoHit({ [pkg]: { ...memo[pkg]!, size: stat.size + 1 } }, pkg)).toBeUndefined();
    expect(memoHit({}, pkg)).toBeUndefined();
    fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
    expect(memoHit(memo, pkg)).toBeUndefined();
    expect(searchSteered({})).toBe(false);
    for (const env of [{ LIBC: 'musl' }, { PREBUILDS_ONLY: '1' }, { npm_config_arch: 'arm64' }, { LMDB_PREBUILD: '/elsewhere' }]) expect(searchSteered(env), JSON.stringify(env)).toBe(true);
    // Steered: the memo is neither used nor grown.
    const steered = addonLoader({ [LMDB]: { addon: '/nowhere.node', size: 1, mtimeMs: 1 } }, { LIBC: 'glibc' });
    expect((steered.exportsFor(FINDER) as Finder).resolve(LMDB)).not.toBe('/nowhere.node');
    expect(steered.changed).toBe(false);
  });

  it('reads a missing or damaged memo as empty', () => {
    const cacheDir = tempDir('minicode-addons-bad-');
    dirs.push(cacheDir);
    expect(readAddonMemo(cacheDir)).toEqual({});
    fs.writeFileSync(path.join(cacheDir, 'native-addons.json'), '{torn');
    expect(readAddonMemo(cacheDir)).toEqual({});
  });
});
