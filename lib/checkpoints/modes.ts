/**
 * File modes a checkpoint keeps beside git's. A git tree records a file as 100644 or 100755
 * only, so a 0600 `.env` would come back from an undo 0644: readable by everyone on the machine.
 * Each snapshot therefore records the permission bits of the files it holds whose bits are not
 * git's two (0644, 0755), as one line of its commit message (`modes {"path": "600", ...}`), and
 * a restore sets every file it writes to its recorded bits (else 0644 or 0755). The store keeps
 * the current snapshot's map beside its index (`minicode-modes`), updated from the files a
 * snapshot hashes; the first snapshot of a store reads the bits of every file it holds.
 *
 * What it cannot see: a change of bits alone (a `chmod` with the content unchanged), since git's
 * stat check lists a file only when its content may have changed; the next content change of that
 * file records its bits. At most {@link MAX_RECORDED_MODES} files are recorded per snapshot; the
 * others come back 0644 or 0755.
 */
import fs from 'node:fs';
import { replaceFile } from '../private-files.js';
import path from 'node:path';
import { runGit, splitNul } from './git.js';
import { dropExpected } from '../debug.js';

/** Most files whose bits one snapshot records. */
export const MAX_RECORDED_MODES = 10_000;

/** Path -> permission bits (octal text), for files whose bits are not git's two. */
export type ModeMap = Map<string, string>;

const LINE = 'modes ';

function fileOf(gitDir: string): string {
  return path.join(gitDir, 'minicode-modes');
}

/** The bits to record for `file` under `root`, null when git's own (or not a regular file), undefined when it is gone. */
export function recordedBits(root: string, file: string): string | null | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(path.join(root, file));
  } catch (error) {
    // Gone since the listing: nothing to record.
    dropExpected('checkpoint modes: reading a file mode', error, 'ENOENT', 'ENOTDIR');
    return undefined;
  }
  if (!st.isFile()) return null;
  const bits = st.mode & 0o7777;
  return bits === 0o644 || bits === 0o755 ? null : bits.toString(8);
}

/** The store's map of its current snapshot; undefined when none was written yet. */
export function readModeMap(gitDir: string): ModeMap | undefined {
  try {
    return parseModes(fs.readFileSync(fileOf(gitDir), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Replace the store's map. */
export function writeModeMap(gitDir: string, modes: ModeMap): void {
  replaceFile(fileOf(gitDir), JSON.stringify(Object.fromEntries(modes)));
}

function parseModes(json: string): ModeMap {
  const out: ModeMap = new Map();
  const value = JSON.parse(json) as unknown;
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string' && /^[0-7]{3,4}$/.test(v)) out.set(k, v);
  return out;
}

/** The commit-message line of `modes` (empty when none). */
export function modesLine(modes: ModeMap): string {
  return modes.size === 0 ? '' : `${LINE}${JSON.stringify(Object.fromEntries(modes))}`;
}

/** Update `modes` from the files a snapshot hashed (bits read now; a gone file dropped). */
export function updateModes(modes: ModeMap, root: string, files: Iterable<string>): void {
  for (const file of files) {
    const bits = recordedBits(root, file);
    if (typeof bits === 'string' && (modes.has(file) || modes.size < MAX_RECORDED_MODES)) modes.set(file, bits);
    else modes.delete(file);
  }
}

/** The bits of every file the index `place` holds (a store's first snapshot). */
export async function modesOfIndex(place: { gitDir: string; workTree: string; indexFile: string }): Promise<ModeMap> {
  const { stdout } = await runGit(['ls-files', '-z'], place);
  const modes: ModeMap = new Map();
  updateModes(modes, place.workTree, splitNul(stdout));
  return modes;
}

/** The modes a snapshot commit recorded (none for a commit without the line). */
export async function modesOfCommit(gitDir: string, commit: string): Promise<ModeMap> {
  const { stdout } = await runGit(['cat-file', 'commit', commit], { gitDir, cwd: gitDir });
  const body = stdout.slice(stdout.indexOf('\n\n') + 2);
  for (const line of body.split('\n')) if (line.startsWith(LINE)) return parseModes(line.slice(LINE.length));
  return new Map();
}
