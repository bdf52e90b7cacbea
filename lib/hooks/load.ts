/**
 * Where a run's hooks come from, in order: the user config's `hooks` (and the project's
 * `.minicode/config.json`'s, which is only read with `--allow-local-config`), then, only with
 * `--allow-local-config`, the project's `.minicode/settings.json` and, when `hooks.readClaudeSettings`
 * is on, its `.claude/settings.json` (Claude Code's project settings: only their `hooks` are
 * read). A cloned repository never starts commands on its own: its files count only once the
 * user trusts it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readConfigJson, type LoadedConfig } from '../config-files.js';
import { MinicodeError } from '../errors.js';
import { hookSettingsOf, type HookSettings, type HookSource } from './settings.js';

/** The project files that may hold hooks, relative to the workspace. */
export const PROJECT_SETTINGS_FILE = path.join('.minicode', 'settings.json');
export const CLAUDE_SETTINGS_FILE = path.join('.claude', 'settings.json');

/** Options of {@link loadHookSettings}. */
export interface LoadHookOptions {
  loaded: LoadedConfig;
  cwd: string;
  allowLocalConfig: boolean;
}

/** The hooks of a run; undefined when none is configured anywhere (nothing else is loaded then). */
export async function loadHookSettings(options: LoadHookOptions): Promise<HookSettings | undefined> {
  const sources: HookSource[] = (options.loaded.hookSources ?? []).map((s) => ({ file: s.file, section: s.section }));
  if (options.allowLocalConfig) {
    const readClaude = options.loaded.config.hooks?.readClaudeSettings === true;
    const files = [path.join(options.cwd, PROJECT_SETTINGS_FILE), ...(readClaude ? [path.join(options.cwd, CLAUDE_SETTINGS_FILE)] : [])];
    for (const file of files) {
      const section = await projectHooksOf(file);
      if (section) sources.push({ file, section });
    }
  }
  if (sources.length === 0) return undefined;
  const settings = hookSettingsOf(sources);
  return Object.keys(settings.byEvent).length > 0 || settings.ignored.length > 0 ? settings : undefined;
}

/** The validated `hooks` of one settings file, or undefined (no file, no hooks). */
async function projectHooksOf(file: string): Promise<Readonly<Record<string, unknown>> | undefined> {
  if (!fs.existsSync(file)) return undefined;
  const source = readConfigJson(file);
  const raw = source?.raw;
  if (typeof raw !== 'object' || raw === null || !('hooks' in raw)) return undefined;
  const { HooksSchema } = await import('./schema.js');
  const parsed = HooksSchema.safeParse((raw as { hooks: unknown }).hooks);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = ['hooks', ...issue.path].join('.');
    throw new MinicodeError('MINICODE_E_CONFIG_INVALID', `config ${file}: ${where}: ${issue.message}`, { action: `fix "${where}" in ${file}`, data: { path: file } });
  }
  return parsed.data;
}
