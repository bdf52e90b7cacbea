/**
 * The hook events minicode runs, by the names Claude Code's hooks are written against. Zod-free:
 * the event schema and the config schema import the list from here.
 */

/** Every hook event, in the order a session meets them. */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'PreCompact',
  'SessionEnd',
] as const;

/** One hook event's name. */
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** True for a name in {@link HOOK_EVENTS}. */
export function isHookEvent(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/** Characters kept of a hook's stdout and of its stderr in its `hook.*` event: 1,024. */
export const HOOK_EXCERPT_MAX = 1024;
