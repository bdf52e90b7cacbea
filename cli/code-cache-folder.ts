/**
 * The code cache's folder and files (docs/startup.md § The cache): where the cache of one build,
 * Node version, architecture and flag set lives, the marking and pruning of folders, and the
 * frame (magic, length, CRC-32) that lets a reader refuse a torn or altered file before V8 sees it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

/** The cache folder of this build on this Node: `$MINICODE_CODE_CACHE_DIR`, else `$XDG_CACHE_HOME/minicode/v8-cache`, else `~/.cache/minicode/v8-cache`, then `<build>-<node>-<arch>-<flags>`, where `<flags>` hashes Node's and V8's flags: `execArgv`, `NODE_OPTIONS` and those set at run time (`runtimeFlags`). */
export function codeCacheDir(env: NodeJS.ProcessEnv, buildId: string, execArgv: readonly string[] = process.execArgv, runtimeFlags: readonly string[] = []): string {
  const root = env.MINICODE_CODE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'minicode', 'v8-cache');
  // V8 refuses code cached under other flags; a folder per flag set keeps two set-ups from overwriting each other.
  // The flags the bootstrap sets itself (cli/v8-flags.ts) count too, when it set any.
  const flags = zlib.crc32(JSON.stringify(runtimeFlags.length > 0 ? [execArgv, env.NODE_OPTIONS ?? '', runtimeFlags] : [execArgv, env.NODE_OPTIONS ?? ''])).toString(16);
  return path.join(root, `${buildId}-${process.version}-${process.arch}-${flags}`);
}

/** A cache folder that no run has used for this long is deleted by the next run that writes a cache. */
export const PRUNE_UNUSED_MS = 14 * 24 * 3600 * 1000;
/** A run marks its folder as used (sets its mtime) when the mark is older than this: one `stat` per run, one `utimes` a day. */
const MARK_EVERY_MS = 24 * 3600 * 1000;
/** The name of a folder {@link codeCacheDir} makes: nothing else under the root is ever deleted. */
const CACHE_FOLDER = /^[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]{1,8}$/;

/** Note that this run uses `cacheDir` (its mtime, refreshed at most daily), so that {@link pruneUnusedCaches} in another build's run spares it. */
export function markCacheUsed(cacheDir: string, now = Date.now()): void {
  try {
    if (now - fs.statSync(cacheDir).mtimeMs < MARK_EVERY_MS) return;
    const at = new Date(now);
    fs.utimesSync(cacheDir, at, at);
  } catch {
    // No folder yet (the first run writes it) or a read-only home: nothing to mark.
  }
}

/**
 * Delete the sibling folders of `cacheDir` (other builds, Node versions, flag sets) that no run
 * has marked for {@link PRUNE_UNUSED_MS}; returns their names. Several installed versions can
 * share the root: one still in use keeps marking its folder, and one deleted wrongly only costs
 * its next run a compile from source. Never throws.
 */
export function pruneUnusedCaches(cacheDir: string, now = Date.now()): string[] {
  const root = path.dirname(cacheDir);
  const own = path.basename(cacheDir);
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (name === own || !CACHE_FOLDER.test(name)) continue;
    const dir = path.join(root, name);
    try {
      const stat = fs.lstatSync(dir);
      if (!stat.isDirectory() || now - stat.mtimeMs < PRUNE_UNUSED_MS) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Removed meanwhile by another run, or not ours to remove: leave it.
    }
  }
  return removed;
}

const MAGIC = 0x3876434d; // 'MCv8'
const HEADER = 12; // magic, payload length, CRC-32 of the payload

/** Frame V8 cache data with a header that lets a reader refuse torn or corrupt files. */
export function frameCacheData(data: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(data.length, 4);
  header.writeUInt32LE(zlib.crc32(data), 8);
  return Buffer.concat([header, data]);
}

/** The V8 data inside a framed cache file, or undefined when the file is not whole and intact. */
export function unframeCacheData(file: Buffer): Buffer | undefined {
  if (file.length < HEADER || file.readUInt32LE(0) !== MAGIC || file.readUInt32LE(4) !== file.length - HEADER) return undefined;
  const data = file.subarray(HEADER);
  return zlib.crc32(data) === file.readUInt32LE(8) ? data : undefined;
}
