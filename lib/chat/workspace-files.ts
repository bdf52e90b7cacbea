/**
 * The workspace files a person may name with `@path`: what `walkFiles` lists (the usual
 * generated directories and `.gitignore`d paths left out, symlinks not followed, so nothing
 * outside the workspace), bounded, kept for a short while so that a burst of Tabs walks once.
 */
import { walkFiles } from '../tools/walk.js';

/** Most files listed for completion; default 20,000. */
export const MAX_COMPLETION_FILES = 20_000;

/** A cached listing of one workspace. */
export interface WorkspaceFiles {
  /** The files, `/`-separated and relative to the workspace; walked again when older than `maxAgeMs`. */
  list(): Promise<readonly string[]>;
  /** Forget the listing (after a turn that may have changed files). */
  invalidate(): void;
}

/** Options of {@link createWorkspaceFiles}. */
export interface WorkspaceFilesOptions {
  maxFiles?: number;
  /** How long a listing is reused; default 5,000 ms. */
  maxAgeMs?: number;
  clock?: () => number;
}

/** A cached listing of the files under `cwd`. */
export function createWorkspaceFiles(cwd: string, options: WorkspaceFilesOptions = {}): WorkspaceFiles {
  const clock = options.clock ?? Date.now;
  let cached: { at: number; files: Promise<string[]> } | undefined;
  const walk = async (): Promise<string[]> => {
    const files: string[] = [];
    for await (const f of walkFiles(cwd, { maxFiles: options.maxFiles ?? MAX_COMPLETION_FILES })) files.push(f);
    return files;
  };
  return {
    list() {
      if (!cached || clock() - cached.at > (options.maxAgeMs ?? 5_000)) cached = { at: clock(), files: walk() };
      return cached.files;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
