/**
 * A hook's `matcher`, as Claude Code reads it: absent, empty or `*` matches everything; a name
 * or a `|` list of names (letters, digits, `_`) matches those names exactly; anything else is a
 * regular expression that must match the whole value. Tool events match the tool's name and
 * its Claude Code names (`Bash`, `Edit`: lib/tools/claude-names.ts); `SessionStart` matches its source
 * (`startup`, `clear`), `PreCompact` its trigger (`auto`, `manual`).
 */
import { claudeNamesOf } from '../tools/claude-names.js';

/** A compiled matcher: true when a hook applies to `value`. */
export type MatchTest = (value: string | undefined) => boolean;

const NAME_LIST = /^[A-Za-z0-9_|]+$/;

/** Compile a matcher; throws a SyntaxError for an invalid regular expression (config validation reports it). */
export function compileMatcher(matcher: string | undefined): MatchTest {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  if (NAME_LIST.test(matcher)) {
    const names = new Set(matcher.split('|').filter(Boolean));
    return (value) => value !== undefined && namesOf(value).some((n) => names.has(n));
  }
  const pattern = new RegExp(`^(?:${matcher})$`);
  return (value) => value !== undefined && namesOf(value).some((n) => pattern.test(n));
}

/** A value and its Claude Code aliases (tool names only have any). */
function namesOf(value: string): readonly string[] {
  return [value, ...claudeNamesOf(value)];
}
