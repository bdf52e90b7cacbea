/**
 * The hook events minicode runs, by the names Claude Code's hooks are written against, and the
 * tool names those hooks match on. Zod-free: the event schema and the config schema import the
 * list from here.
 */

/** Every hook event, in the order a session meets them. */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'PreCompact', 'SessionEnd'] as const;

/** One hook event's name. */
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** True for a name in {@link HOOK_EVENTS}. */
export function isHookEvent(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * Claude Code's names of minicode's built-in tools: a matcher written for Claude Code (`Bash`,
 * `Edit|Write`) matches the minicode tool that does the same thing.
 */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  bash: ['Bash'],
  read_file: ['Read'],
  write_file: ['Write'],
  edit: ['Edit', 'MultiEdit'],
  grep: ['Grep'],
  glob: ['Glob'],
  update_plan: ['TodoWrite'],
};

/** Characters kept of a hook's stdout and of its stderr in its `hook.*` event: 1,024. */
export const HOOK_EXCERPT_MAX = 1024;
