/**
 * The hooks of a run, flattened from every `hooks` section that applies (the user config, then
 * the project's files) into one list per event. Zod-free: the sections arrive validated. Plain
 * data (matchers are compiled by the runner): a batch line's settings cross to a pool thread.
 */
import { HOOK_EVENTS, isHookEvent, type HookEventName } from './names.js';

/** Seconds a hook runs before its process group is killed, when its `timeout` says nothing: 60. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** One configured command hook. */
export interface HookSpec {
  event: HookEventName;
  /** The `bash -c` command line. */
  command: string;
  timeoutMs: number;
  /** The matcher as written (validated); undefined: every value. */
  matcher: string | undefined;
  /** The file it was configured in. */
  source: string;
}

/** Every hook of a run by event, and what was left out (unknown events, handler types other than `command`). */
export interface HookSettings {
  readonly byEvent: Readonly<Partial<Record<HookEventName, readonly HookSpec[]>>>;
  /** One line per ignored entry, reported as a diagnostic when the session starts. */
  readonly ignored: readonly string[];
}

/** A `hooks` section as read from one file (already validated). */
export interface HookSource {
  file: string;
  section: Readonly<Record<string, unknown>>;
}

interface RawGroup {
  matcher?: string | undefined;
  hooks: { type: string; command?: string | undefined; timeout?: number | undefined }[];
}

/**
 * Flatten `sources` in order. The same command for the same event and matcher runs once even
 * when two files configure it (a project's `.claude/settings.json` beside its `.minicode` copy).
 */
export function hookSettingsOf(sources: readonly HookSource[]): HookSettings {
  const byEvent: Partial<Record<HookEventName, HookSpec[]>> = {};
  const ignored: string[] = [];
  const seen = new Set<string>();
  for (const { file, section } of sources) {
    for (const [name, value] of Object.entries(section)) {
      if (name === 'readClaudeSettings' || value === undefined) continue;
      if (!isHookEvent(name)) {
        ignored.push(`${file}: hook event "${name}" is not one minicode runs (${HOOK_EVENTS.join(', ')}); ignored`);
        continue;
      }
      for (const group of value as RawGroup[]) {
        for (const handler of group.hooks) {
          if (handler.type !== 'command' || handler.command === undefined) {
            ignored.push(
              `${file}: ${name} hook of type "${handler.type}" ignored (only "command" hooks with a command run)`,
            );
            continue;
          }
          const key = JSON.stringify([name, group.matcher ?? '', handler.command]);
          if (seen.has(key)) continue;
          seen.add(key);
          const spec: HookSpec = {
            event: name,
            command: handler.command,
            timeoutMs: Math.round((handler.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000),
            matcher: group.matcher === undefined || group.matcher === '' ? undefined : group.matcher,
            source: file,
          };
          (byEvent[name] ??= []).push(spec);
        }
      }
    }
  }
  return { byEvent, ignored };
}

/**
 * The hooks of a child session (the `task` tool): only the tool hooks, as Claude Code runs them
 * for a sub-agent; the session, prompt and stop hooks belong to the session the person started.
 */
export function childHookSettings(settings: HookSettings | undefined): HookSettings | undefined {
  if (!settings) return undefined;
  const { PreToolUse, PostToolUse } = settings.byEvent;
  if (!PreToolUse && !PostToolUse) return undefined;
  return { byEvent: { ...(PreToolUse ? { PreToolUse } : {}), ...(PostToolUse ? { PostToolUse } : {}) }, ignored: [] };
}
