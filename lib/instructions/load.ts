/**
 * Project instructions: the `AGENTS.md` files (or a fallback name) of the folders from the
 * repository root down to the working directory, after the user's own file, read as text for
 * the model. They are never configuration: nothing here parses them, and nothing else reads
 * them; whatever they ask for, tools, policy and the sandbox come from flags and config only.
 *
 * Hazards handled:
 * - A name that is not a regular file (a folder, a FIFO someone named AGENTS.md) is skipped:
 *   the file is opened non-blocking and checked on its descriptor, so a FIFO never blocks the run.
 * - All files together are capped (`maxBytes`, default 32 KiB): reading stops at the cap, the
 *   file crossing it is cut at a UTF-8 character boundary, later files are left out, and one
 *   diagnostic names what was cut.
 * - An unreadable file is a diagnostic, not a failed run.
 * - The same file reached twice (the user folder inside the repository) is read once.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { instructionFolders } from './discover.js';
import { dropExpected } from '../debug.js';

/** The name every folder is searched for first. */
export const INSTRUCTIONS_FILE = 'AGENTS.md';
/** Names searched in a folder without `AGENTS.md`, in order (config `instructions.fallbackFiles`). */
export const DEFAULT_FALLBACK_FILES: readonly string[] = ['CLAUDE.md', 'GEMINI.md'];
/** The cap on all instruction files together, in bytes (32 KiB). */
export const DEFAULT_INSTRUCTIONS_MAX_BYTES = 32 * 1024;

/** Options of {@link loadInstructions}. */
export interface InstructionOptions {
  /** The working directory (the nearest folder searched). */
  cwd: string;
  /** The user's folder (`$MINICODE_HOME`, else `~/.config/minicode`); absent: no user file. */
  userDir?: string | undefined;
  /** Default {@link DEFAULT_FALLBACK_FILES}. */
  fallbackFiles?: readonly string[] | undefined;
  /** Default {@link DEFAULT_INSTRUCTIONS_MAX_BYTES}. */
  maxBytes?: number | undefined;
}

/** One file given to the model. */
export interface InstructionFile {
  /** Relative to the repository root for project files (`AGENTS.md`, `pkg/AGENTS.md`); absolute for the user's file. */
  path: string;
  scope: 'user' | 'project';
  /** Bytes given to the model (after a cut). */
  bytes: number;
  /** `sha256:<hex>` of those bytes. */
  sha256: string;
  /** True when the cap cut this file short. */
  truncated?: true;
}

/** One instruction file's text, for the system prompt. */
export interface InstructionSection {
  file: InstructionFile;
  text: string;
}

/** A problem met while loading (a `diagnostic.raised` for the session). */
export interface InstructionDiagnostic {
  code: 'MINICODE_W_INSTRUCTIONS_TRUNCATED' | 'MINICODE_W_INSTRUCTIONS_UNREADABLE';
  message: string;
  action: string;
}

/** What {@link loadInstructions} found. */
export interface LoadedInstructions {
  /** Most general first: the user's file, then the repository root down to the working directory. */
  sections: InstructionSection[];
  diagnostics: InstructionDiagnostic[];
}

/** No instructions (`--no-instructions`, or a batch line's `instructions: false`). */
export const NO_INSTRUCTIONS: LoadedInstructions = { sections: [], diagnostics: [] };

/** `sha256:<hex>` of a text or bytes. */
export function sha256Of(data: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The longest prefix of `bytes` no longer than `max` that ends on a UTF-8 character boundary. */
export function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** `bytes` holds up to `limit + 1` bytes; `more` says it went past `limit`. */
type ReadResult = { kind: 'file'; bytes: Buffer; more: boolean } | { kind: 'absent' } | { kind: 'error'; code: string };

/** Read at most `limit` bytes of a regular file (and learn whether there is more); anything else is absent. */
function readRegularFile(file: string, limit: number): ReadResult {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
    return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' ? { kind: 'absent' } : { kind: 'error', code };
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return { kind: 'absent' };
    // One byte past the limit tells a cut file from one that fits exactly.
    const buffer = Buffer.alloc(limit + 1);
    let filled = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
      if (n === 0) break;
      filled += n;
      if (filled === buffer.length) break;
    }
    // The extra byte stays: it tells whether the byte at the cut starts a character.
    return { kind: 'file', bytes: buffer.subarray(0, filled), more: filled > limit };
  } catch (error) {
    return { kind: 'error', code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    fs.closeSync(fd);
  }
}

/** The user's folder for a given environment: `$MINICODE_HOME`, else `~/.config/minicode` (where the user config lives). */
export function userInstructionsDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.MINICODE_HOME ? path.resolve(env.MINICODE_HOME) : path.join(home, '.config', 'minicode');
}

/** Find and read the instruction files for `options.cwd`. Never throws for a file's problem. */
export function loadInstructions(options: InstructionOptions): LoadedInstructions {
  const fallbackFiles = options.fallbackFiles ?? DEFAULT_FALLBACK_FILES;
  const maxBytes = options.maxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES;
  const names = [INSTRUCTIONS_FILE, ...fallbackFiles.filter((n) => n !== INSTRUCTIONS_FILE)];
  const { root, folders } = instructionFolders(options.cwd);
  const candidates: { dir: string; scope: InstructionFile['scope'] }[] = [];
  if (options.userDir) candidates.push({ dir: options.userDir, scope: 'user' });
  for (const dir of folders) candidates.push({ dir, scope: 'project' });

  const sections: InstructionSection[] = [];
  const diagnostics: InstructionDiagnostic[] = [];
  const seen = new Set<string>();
  const left: string[] = [];
  let remaining = maxBytes;
  let cut: string | undefined;
  for (const { dir, scope } of candidates) {
    // The first name present in the folder is its file; the others there are not read.
    for (const name of names) {
      const file = path.join(dir, name);
      const shown = scope === 'user' ? file : path.relative(root, file) || name;
      let real: string;
      try {
        real = fs.realpathSync(file);
      } catch (error) {
        // Absent (or a dangling link): try the next name.
        dropExpected('instructions: resolving a file', error, 'ENOENT', 'ENOTDIR');
        continue;
      }
      if (seen.has(real)) break;
      if (cut !== undefined) {
        if (fs.statSync(real, { throwIfNoEntry: false })?.isFile()) {
          seen.add(real);
          left.push(shown);
          break;
        }
        continue;
      }
      const read = readRegularFile(real, remaining);
      if (read.kind === 'absent') continue;
      seen.add(real);
      if (read.kind === 'error') {
        diagnostics.push({
          code: 'MINICODE_W_INSTRUCTIONS_UNREADABLE',
          message: `cannot read instructions ${shown}: ${read.code}`,
          action: `fix the file's permissions or remove it (${file})`,
        });
        break;
      }
      const bytes = read.more ? utf8Prefix(read.bytes, remaining) : read.bytes;
      remaining -= bytes.length;
      const entry: InstructionFile = { path: shown, scope, bytes: bytes.length, sha256: sha256Of(bytes) };
      if (read.more) {
        entry.truncated = true;
        cut = shown;
      }
      sections.push({ file: entry, text: bytes.toString('utf8') });
      break;
    }
  }
  if (cut !== undefined) {
    const dropped = left.length > 0 ? `; left out: ${left.join(', ')}` : '';
    diagnostics.push({
      code: 'MINICODE_W_INSTRUCTIONS_TRUNCATED',
      message: `project instructions exceed ${maxBytes} bytes: ${cut} was cut${dropped}`,
      action: 'shorten the instruction files, or move detail into files the agent can read when it needs them',
    });
  }
  return { sections, diagnostics };
}
