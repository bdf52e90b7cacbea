/**
 * What a checkpoint leaves out so that it stays fast and small, and where checkpoints live.
 * Defaults are documented on each field; config `checkpoints: {...}` overrides them and
 * `checkpoints: false` (or `--no-checkpoint`) turns checkpoints off.
 */
import os from 'node:os';
import path from 'node:path';
import type { CheckpointConfig } from './settings-schema.js';

/** Folders that are rebuilt from sources or downloaded: never worth a snapshot. */
export const DEFAULT_SKIP_DIRS: readonly string[] = Object.freeze([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  '.gradle',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.parcel-cache',
  'target',
  'dist',
  'build',
  'out',
  'coverage',
  '.terraform',
  'Pods',
  'DerivedData',
]);

/** Limits of one checkpoint. */
export interface CheckpointLimits {
  /** A new file larger than this is skipped. Default 10 MiB. */
  maxFileBytes: number;
  /** A folder the user's git does not track, holding more new files than this, is skipped whole. Default 1,000. */
  maxUntrackedDirFiles: number;
  /** More new files than this in one checkpoint: no checkpoint, a diagnostic instead. Default 100,000. */
  maxFiles: number;
  /** Folder names skipped wherever they are. Default {@link DEFAULT_SKIP_DIRS}. */
  skipDirs: readonly string[];
  /** An ignored file (outside a wholly ignored folder) up to this size is kept; 0 keeps none. Default 64 KiB. */
  maxIgnoredFileBytes: number;
  /** The ignored files one checkpoint adds, together at most this many bytes. Default 1 MiB. */
  maxIgnoredBytes: number;
}

/** The defaults of {@link CheckpointLimits}. */
export const DEFAULT_CHECKPOINT_LIMITS: Readonly<CheckpointLimits> = Object.freeze({
  maxFileBytes: 10 * 1024 * 1024,
  maxUntrackedDirFiles: 1_000,
  maxFiles: 100_000,
  skipDirs: DEFAULT_SKIP_DIRS,
  maxIgnoredFileBytes: 64 * 1024,
  maxIgnoredBytes: 1024 * 1024,
});

/** How long checkpoints are kept, per workspace. */
export interface CheckpointRetention {
  /** Checkpoints older than this many days are dropped. Default 30. */
  maxAgeDays: number;
  /** Only the newest this many checkpoints (undo records included) are kept. Default 500. */
  maxCheckpoints: number;
}

/** The defaults of {@link CheckpointRetention}. */
export const DEFAULT_CHECKPOINT_RETENTION: Readonly<CheckpointRetention> = Object.freeze({
  maxAgeDays: 30,
  maxCheckpoints: 500,
});

/** Everything a run needs to take checkpoints. */
export interface CheckpointSettings {
  /** Root of every workspace's store: `$MINICODE_HOME/checkpoints`. */
  home: string;
  limits: CheckpointLimits;
  /** Default {@link DEFAULT_CHECKPOINT_RETENTION}. */
  retention?: CheckpointRetention;
}

/** `$MINICODE_HOME/checkpoints`, else `$XDG_DATA_HOME/minicode/checkpoints`, else `~/.local/share/minicode/checkpoints`. */
export function resolveCheckpointsHome(env: NodeJS.ProcessEnv = process.env, homedir: string = os.homedir()): string {
  if (env.MINICODE_HOME) return path.resolve(env.MINICODE_HOME, 'checkpoints');
  const dataHome =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homedir, '.local', 'share');
  return path.join(dataHome, 'minicode', 'checkpoints');
}

/** The settings from the `--no-checkpoint` flag and the (validated) config; undefined when checkpoints are off. */
export function checkpointSettingsOf(options: {
  flag?: boolean | undefined;
  config?: CheckpointConfig | undefined;
  env?: NodeJS.ProcessEnv;
}): CheckpointSettings | undefined {
  if (options.flag === false) return undefined;
  const value = options.config ?? true;
  if (value === false) return undefined;
  const limits: CheckpointLimits = { ...DEFAULT_CHECKPOINT_LIMITS };
  if (typeof value === 'object') {
    if (value.maxFileBytes !== undefined) limits.maxFileBytes = value.maxFileBytes;
    if (value.maxUntrackedDirFiles !== undefined) limits.maxUntrackedDirFiles = value.maxUntrackedDirFiles;
    if (value.maxFiles !== undefined) limits.maxFiles = value.maxFiles;
    if (value.skipDirs !== undefined) limits.skipDirs = value.skipDirs;
    if (value.maxIgnoredFileBytes !== undefined) limits.maxIgnoredFileBytes = value.maxIgnoredFileBytes;
    if (value.maxIgnoredBytes !== undefined) limits.maxIgnoredBytes = value.maxIgnoredBytes;
  }
  const retention: CheckpointRetention = { ...DEFAULT_CHECKPOINT_RETENTION };
  if (typeof value === 'object') {
    if (value.maxAgeDays !== undefined) retention.maxAgeDays = value.maxAgeDays;
    if (value.maxCheckpoints !== undefined) retention.maxCheckpoints = value.maxCheckpoints;
  }
  return { home: resolveCheckpointsHome(options.env), limits, retention };
}
