/**
 * The V8 code cache of the CLI bundle (cli/code-cache.ts, docs/startup.md), through the built
 * `bin` as a real subprocess: what a run caches, what the next run takes from it, and that a
 * cache which is corrupt, rejected by V8, unwritable, or unusable on this Node never costs more
 * than the cache. `MINICODE_DEBUG_CODE_CACHE=1` names, on stderr, each script and how it was compiled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { frameCacheData, unframeCacheData, codeCacheUnavailable, markCacheUsed, pruneUnusedCaches, type ScriptManifest } from '../../cli/code-cache.js';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, execTwice, tempDir } from '../exec/helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh cache folder (MINICODE_CODE_CACHE_DIR) and home. */
function fresh(): { cacheDir: string; home: string } {
  const home = tempDir('minicode-code-cache-');
  dirs.push(home);
  return { cacheDir: path.join(home, 'v8'), home };
}

/** The outcome named for each script (`hit`, `miss`, `rejected`, `corrupt`), and the other debug lines. */
function outcomes(stderr: string): { scripts: Map<string, string>; lines: string[] } {
  const scripts = new Map<string, string>();
  const lines: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^minicode code-cache: (hit|miss|rejected|corrupt) (\S+)$/.exec(line);
    if (m) scripts.set(m[2]!, m[1]!);
    else if (line.startsWith('minicode code-cache: ')) lines.push(line.slice('minicode code-cache: '.length));
  }
  return { scripts, lines };
}

/** `minicode schema` (bundle files loaded through dynamic imports, no network) with the code cache in `cacheDir`. */
function schema(cacheDir: string, home: string, extra: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []) {
  return runCli(['schema'], { env: cleanEnv(home, { MINICODE_CODE_CACHE_DIR: cacheDir, MINICODE_DEBUG_CODE_CACHE: '1', ...extra }), ...(nodeArgs.length ? { nodeArgs } : {}) });
}

/** Every cache file under `cacheDir`. */
function cacheFiles(cacheDir: string): string[] {
  return fs.readdirSync(cacheDir, { recursive: true, withFileTypes: true }).flatMap((e) => (e.isFile() ? [path.join(e.parentPath, e.name)] : []));
}

describe('the V8 code cache of the CLI bundle', () => {
  it('is written by a first exec run and used by the next, whose HTTP request (a dynamic import in cached code) still reaches the provider', async () => {
    const { cacheDir, home } = fresh();
    const [first, second] = await execTwice(home, { MINICODE_CODE_CACHE_DIR: cacheDir, MINICODE_DEBUG_CODE_CACHE: '1' }, dirs);
    expect(first.code, first.stderr).toBe(0);
    expect(new Set(outcomes(first.stderr).scripts.values())).toEqual(new Set(['miss']));
    expect(outcomes(first.stderr).lines.some((l) => /^wrote \d+ file\(s\)/.test(l))).toBe(true);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('"type":"summary","ok":true');
    const { scripts } = outcomes(second.stderr);
    expect(scripts.get('cli/app.js')).toBe('hit');
    expect(new Set(scripts.values())).toEqual(new Set(['hit']));
    // lmdb's native addon: searched for by the first run, taken from the memo by the next (cli/native-addons.ts).
    expect(outcomes(first.stderr).lines.filter((l) => /^addon \w+ .*lmdb$/.test(l))).toEqual([expect.stringMatching(/^addon miss /)]);
    expect(outcomes(second.stderr).lines.filter((l) => /^addon \w+ .*lmdb$/.test(l))).toEqual([expect.stringMatching(/^addon hit /)]);
  });

  it('refuses a corrupt cache file, runs from source with the same output, and writes the file again', async () => {
    const { cacheDir, home } = fresh();
    const clean = await schema(cacheDir, home);
    expect(clean.code, clean.stderr).toBe(0);
    for (const file of cacheFiles(cacheDir)) {
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 1]! ^= 0xff;
      fs.writeFileSync(file, bytes);
    }
    const corrupt = await schema(cacheDir, home);
    expect(corrupt.code, corrupt.stderr).toBe(0);
    expect(corrupt.stdout).toBe(clean.stdout);
    expect(new Set(outcomes(corrupt.stderr).scripts.values())).toEqual(new Set(['corrupt']));
    const again = await schema(cacheDir, home);
    expect(new Set(outcomes(again.stderr).scripts.values())).toEqual(new Set(['hit']));
  });

  it('does not use cached data that V8 rejects, and still runs', async () => {
    const { cacheDir, home } = fresh();
    const clean = await schema(cacheDir, home);
    // Intact frames around data V8 cannot take: only V8's own check can refuse them.
    for (const file of cacheFiles(cacheDir)) fs.writeFileSync(file, frameCacheData(Buffer.from('not V8 code cache data at all, but long enough to look like it '.repeat(8))));
    const rejected = await schema(cacheDir, home);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(clean.stdout);
    expect(new Set(outcomes(rejected.stderr).scripts.values())).toEqual(new Set(['rejected']));
  });

  it('runs when the cache folder cannot be created (a read-only or odd home)', async () => {
    const { home } = fresh();
    const blocker = path.join(home, 'a-file');
    fs.writeFileSync(blocker, '');
    const result = await schema(path.join(blocker, 'v8'), home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('minicode.output.v1');
    expect(outcomes(result.stderr).lines.some((l) => l.startsWith('wrote 0 file(s)') && l.includes('stopped:'))).toBe(true);
  });

  it('imports the ES module bundle instead on a Node without zlib.crc32 (before 20.15), and when MINICODE_CODE_CACHE=0', async () => {
    const { cacheDir, home } = fresh();
    const oldNode = `data:text/javascript,${encodeURIComponent("import zlib from 'node:zlib'; delete zlib.crc32;")}`;
    const clean = await schema(cacheDir, home);
    const old = await schema(cacheDir, home, {}, ['--import', oldNode]);
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toBe(clean.stdout);
    expect(outcomes(old.stderr).lines).toEqual(['off (this Node has no zlib.crc32 (Node < 20.15))']);
    const off = await schema(cacheDir, home, { MINICODE_CODE_CACHE: '0' });
    expect(off.stdout).toBe(clean.stdout);
    expect(outcomes(off.stderr).lines).toEqual(['off (MINICODE_CODE_CACHE=0)']);
  });

  it('deletes the folders of other builds that no run used for two weeks when it writes, and keeps recent ones and anything it did not make', async () => {
    const { cacheDir, home } = fresh();
    const day = 24 * 3600 * 1000;
    const folder = (name: string, ageDays: number): string => {
      const dir = path.join(cacheDir, name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'cli__app.js.v8'), 'old cache data');
      const at = new Date(Date.now() - ageDays * day);
      fs.utimesSync(dir, at, at);
      return dir;
    };
    const stale = folder('0123456789abcdef-v20.11.0-x64-1a2b3c4d', 30);
    const recent = folder('fedcba9876543210-v20.11.0-x64-1a2b3c4d', 2);
    const foreign = folder('my-notes', 30);
    const run = await schema(cacheDir, home);
    expect(run.code, run.stderr).toBe(0);
    expect(outcomes(run.stderr).lines).toContain('deleted unused cache folder(s): 0123456789abcdef-v20.11.0-x64-1a2b3c4d');
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(foreign)).toBe(true);
    // Nothing left to delete: a second look finds only what is in use or not ours.
    expect(pruneUnusedCaches(path.join(cacheDir, 'fedcba9876543210-v20.11.0-x64-1a2b3c4d'))).toEqual([]);
  });

  it('marks its folder as used, at most once a day, so that another build spares it', async () => {
    const { cacheDir, home } = fresh();
    await schema(cacheDir, home);
    const [own] = fs.readdirSync(cacheDir).map((name) => path.join(cacheDir, name));
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    fs.utimesSync(own!, old, old);
    const warm = await schema(cacheDir, home);
    expect(new Set(outcomes(warm.stderr).scripts.values())).toEqual(new Set(['hit']));
    expect(Date.now() - fs.statSync(own!).mtimeMs).toBeLessThan(24 * 3600 * 1000);
    const now = Date.now();
    markCacheUsed(own!, now + 3600 * 1000);
    expect(fs.statSync(own!).mtimeMs).toBeLessThanOrEqual(now);
  });

  it('frames cache data so that a torn or altered file is refused before V8 sees it', () => {
    const data = Buffer.from('some bytes V8 produced');
    const framed = frameCacheData(data);
    expect(unframeCacheData(framed)).toEqual(data);
    expect(unframeCacheData(framed.subarray(0, framed.length - 1))).toBeUndefined();
    const altered = Buffer.from(framed);
    altered[14]! ^= 1;
    expect(unframeCacheData(altered)).toBeUndefined();
    expect(unframeCacheData(Buffer.alloc(4))).toBeUndefined();
  });

  it('names why the cache is not used', () => {
    const manifest: ScriptManifest = { buildId: 'b', entry: 'cli/app.js', files: {} };
    const node = { vm: { Script: class {} }, zlib: { crc32: () => 0 } };
    expect(codeCacheUnavailable(node, {}, manifest)).toBeUndefined();
    expect(codeCacheUnavailable(node, { MINICODE_CODE_CACHE: '0' }, manifest)).toBe('MINICODE_CODE_CACHE=0');
    expect(codeCacheUnavailable(node, {}, undefined)).toBe('no script manifest in this build');
    expect(codeCacheUnavailable({ ...node, zlib: {} }, {}, manifest)).toMatch(/zlib\.crc32/);
  });
});
