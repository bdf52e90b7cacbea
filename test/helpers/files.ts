/** File helpers shared by tests that read the repository or a run's files as raw bytes. */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/** The TypeScript and JavaScript sources below `dir` (relative to the repository root), as relative paths. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

/** Every file of a directory tree, concatenated (a raw LMDB store or a cassette directory included). */
export function rawBytes(dir: string): Buffer {
  const parts: Buffer[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(fs.readFileSync(path.join(entry.parentPath, entry.name)));
  }
  return Buffer.concat(parts);
}
