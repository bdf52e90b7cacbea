/**
 * Where the hooks of a run in one folder come from, in order: the user's own (the user config's
 * `hooks`, then, when `hooks.readClaudeSettings` is on, Claude Code's user settings
 * `~/.claude/settings.json`), then, only with `--allow-local-config`, the folder's project files:
 * `.minicode/config.json`, `.minicode/settings.json` and, with `readClaudeSettings`,
 * `.claude/settings.json` (of a settings file only its `hooks` are read). A cloned repository
 * never starts commands on its own: its files count only once the user trusts it. The same
 * loader serves the folder a run was set up in and any other a run works in (a batch line's
 * `cwd`, an ACP session's).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfigJson } from '../config-files.js';
import { MinicodeError } from '../errors.js';
import { hookSettingsOf, type HookSettings, type HookSource } from './settings.js';

/** The project files that may hold hooks, relative to the workspace, in the order they are read. */
export const PROJECT_CONFIG_FILE = path.join('.minicode', 'config.json');
export const PROJECT_SETTINGS_FILE = path.join('.minicode', 'settings.json');
export const CLAUDE_SETTINGS_FILE = path.join('.claude', 'settings.json');

/** Options of {@link loadHookSettings}. */
export interface LoadHookOptions {
  /** The `hooks` sections of the user config (never a project's: those are read from `cwd` here). */
  userSources: readonly HookSource[];
  /** The folder whose project files are read. */
  cwd: string;
  allowLocalConfig: boolean;
  /** `hooks.readClaudeSettings`: also Claude Code's user and project settings files; default false. */
  readClaudeSettings?: boolean | undefined;
  /** The home of `~/.claude/settings.json`; default `os.homedir()`. */
  home?: string | undefined;
}

/** The settings files (beyond the user config) that may hold hooks for a run in `options.cwd`, in order, without repeats. */
export function hookFilesOf(options: LoadHookOptions): string[] {
  const files: string[] = [];
  if (options.readClaudeSettings) files.push(path.join(options.home ?? os.homedir(), CLAUDE_SETTINGS_FILE));
  if (options.allowLocalConfig) {
    files.push(path.join(options.cwd, PROJECT_CONFIG_FILE), path.join(options.cwd, PROJECT_SETTINGS_FILE));
    if (options.readClaudeSettings) files.push(path.join(options.cwd, CLAUDE_SETTINGS_FILE));
  }
  // A project in the home folder: its .claude/settings.json is the user's; read it once.
  return [...new Set(files)];
}

/** The hooks of a run in `options.cwd`; undefined when none is configured anywhere. */
export async function loadHookSettings(options: LoadHookOptions): Promise<HookSettings | undefined> {
  const sources: HookSource[] = [...options.userSources];
  for (const file of hookFilesOf(options)) {
    const section = await hooksOfFile(file);
    if (section) sources.push({ file, section });
  }
  if (sources.length === 0) return undefined;
  const settings = hookSettingsOf(sources);
  return Object.keys(settings.byEvent).length > 0 || settings.ignored.length > 0 ? settings : undefined;
}

/** The validated `hooks` of one file, or undefined (no file, no hooks). */
async function hooksOfFile(file: string): Promise<Readonly<Record<string, unknown>> | undefined> {
  if (!fs.existsSync(file)) return undefined;
  const source = readConfigJson(file);
  const raw = source?.raw;
  if (typeof raw !== 'object' || raw === null || !('hooks' in raw)) return undefined;
  const { HooksSchema } = await import('./schema.js');
  const parsed = HooksSchema.safeParse((raw as { hooks: unknown }).hooks);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = ['hooks', ...issue.path].join('.');
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file}: ${where}: ${issue.message}`, {
      action: `fix "${where}" in ${file}`,
      data: { path: file },
    });
  }
  return parsed.data;
}
