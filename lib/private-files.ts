/**
 * Modes of minicode's own data: folders 0700, files 0600. The store, checkpoints, batch output
 * and history hold prompts, model output and copies of workspace files (a 0600 `.env` among
 * them): nothing of that may become readable by other users on the way. No imports beyond
 * node:fs, so the store and checkpoint code can use it without loading the scrubber.
 */
import fs from 'node:fs';

/** Mode of every file this module creates: the owner's only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of minicode's data folders (the store, checkpoints, batch output): the owner's only. */
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Create `dir` (and missing parents) 0700, and take group and other access away from `dir`
 * itself when it already exists with them (a store or checkpoint folder made by an older
 * build): what is inside (prompts, model output, copies of workspace files) is then the owner's
 * whatever the files' own modes. Parents that existed are left as they are.
 */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) fs.chmodSync(dir, st.mode & 0o700);
}

/**
 * Write `text` to `file` whole: under a temporary name beside it, then renamed over it, so a
 * crash never leaves half a file. A file created gets `mode` (default 0600).
 */
export function replaceFile(file: string, text: string, mode: number = PRIVATE_FILE_MODE): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode });
  fs.renameSync(tmp, file);
}

/** Take group and other access away from `file` (a file another library created, such as LMDB's). */
export function makePrivateFile(file: string): void {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (st && (st.mode & 0o077) !== 0) fs.chmodSync(file, st.mode & 0o700);
}
