/**
 * Where the store lives: `--store DIR`, else `MINICODE_HOME`, else a per-user default
 * (`$XDG_DATA_HOME/minicode`, else `~/.local/share/minicode`). Pure: the environment and home
 * directory are passed in so that tests and callers decide.
 */
import os from 'node:os';
import path from 'node:path';

/** Inputs of {@link resolveStoreDir}; each defaults to the process's own. */
export interface StoreLocationInput {
  /** The `--store DIR` flag, when given. */
  flag?: string | undefined;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default `os.homedir()`. */
  homedir?: string;
  /** Base for relative paths; default `process.cwd()`. */
  cwd?: string;
}

/** The store directory, absolute. */
export function resolveStoreDir(input: StoreLocationInput = {}): string {
  const env = input.env ?? process.env;
  const cwd = input.cwd ?? process.cwd();
  if (input.flag) return path.resolve(cwd, input.flag);
  if (env.MINICODE_HOME) return path.resolve(cwd, env.MINICODE_HOME, 'store');
  const dataHome =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)
      ? env.XDG_DATA_HOME
      : path.join(input.homedir ?? os.homedir(), '.local', 'share');
  return path.join(dataHome, 'minicode', 'store');
}
