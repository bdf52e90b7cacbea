/**
 * The `hooks` section's schema (zod), in Claude Code's `settings.json` shape: for each event a
 * list of matcher groups, each with its command hooks. Unknown event names and handler types are
 * kept (a settings file written for Claude Code may hold events minicode does not run); the set-up
 * reports them as ignored instead of refusing the file.
 */
import { z } from 'zod';
import { compileMatcher } from './matcher.js';

/** Longest hook timeout accepted, in seconds: one day. */
export const MAX_HOOK_TIMEOUT_S = 86_400;

const HookHandler = z.looseObject({
  type: z.string().min(1),
  command: z.string().min(1).optional(),
  /** Seconds before the hook's process group is killed; default 60. */
  timeout: z.number().positive().max(MAX_HOOK_TIMEOUT_S).optional(),
});

const Matcher = z.string().refine((m) => {
  try {
    compileMatcher(m);
    return true;
  } catch {
    // An invalid regular expression: reported as the config error below.
    return false;
  }
}, 'not a valid matcher (a name, a | list of names, or a regular expression)');

const HookGroup = z.looseObject({ matcher: Matcher.optional(), hooks: z.array(HookHandler) });
const Groups = z.array(HookGroup).optional();

/** The `hooks` section of the user config, `.minicode/settings.json` or `.claude/settings.json`. */
export const HooksSchema = z.looseObject({
  /** Also run the hooks of the project's `.claude/settings.json` (with `--allow-local-config`); default false. */
  readClaudeSettings: z.boolean().optional(),
  SessionStart: Groups,
  UserPromptSubmit: Groups,
  PreToolUse: Groups,
  PostToolUse: Groups,
  Stop: Groups,
  PreCompact: Groups,
  SessionEnd: Groups,
});
/** A validated `hooks` section. */
export type HooksSection = z.infer<typeof HooksSchema>;
