/**
 * Builder for format rules: a vendor token recognised by a sticky regex anchored at its
 * trigger. The regex must only use bounded quantifiers so that it never examines more than
 * `window` characters from the trigger (including one character of right lookahead); the
 * unbounded rest of a long token is dropped by the `tail` run instead of being matched.
 */
import { LEFT_CONTEXT, PENDING, NONE, charClass, isSpace, type Decision, type SecretRule } from './rule-types.js';
import { definedOnly } from '../defined-only.js';

/** Spec of one format rule. */
export interface TokenRuleSpec {
  id: string;
  /** Marker label; default `id`. */
  label?: string;
  triggers: readonly string[];
  ignoreCase?: boolean;
  /** Require a non-word character before the trigger; default true. */
  boundary?: boolean;
  /** Sticky-compatible source anchored at the trigger; a group named `keep` is left visible. */
  pattern: string;
  flags?: string;
  /** Most characters the pattern can examine from the trigger, lookahead included. */
  window: number;
  /** Regex class source of characters that continue the token after the match (dropped). */
  tail?: string;
  /** Extra validation of the matched text (e.g. "has a digit"). */
  check?: (match: string) => boolean;
  /**
   * Whether whitespace can end the candidate early (default true): a pattern that never
   * crosses whitespace is decided as soon as whitespace follows.
   */
  spaceEnds?: boolean;
  /**
   * Regex class source of every character a match can contain. When given, the candidate is
   * decided as soon as a character outside it arrives (a shorter hold than waiting for
   * whitespace); it must really cover the pattern, lookahead excepted.
   */
  alphabet?: string;
  /** Required shape of the text just before the trigger (tested on at most LEFT_CONTEXT chars). */
  before?: RegExp;
  /** For a one-character trigger, the class of the character after it (see SecretRule.next). */
  next?: string;
}

/** Build a {@link SecretRule} from a {@link TokenRuleSpec}. */
export function tokenRule(spec: TokenRuleSpec): SecretRule {
  const re = new RegExp(spec.pattern, 'y' + (spec.flags ?? ''));
  const label = spec.label ?? spec.id;
  const tail = spec.tail === undefined ? undefined : charClass(spec.tail);
  const spaceEnds = spec.spaceEnds ?? true;
  const alphabet = spec.alphabet === undefined ? undefined : charClass(spec.alphabet);
  const window = spec.window;
  return definedOnly({
    id: spec.id,
    triggers: spec.triggers,
    ignoreCase: spec.ignoreCase ?? false,
    boundary: spec.boundary ?? true,
    next: spec.next,
    source: { pattern: spec.pattern.replace('(?<keep>', '(?:'), flags: spec.flags ?? '' },
    decide(s: string, p: number, ended: boolean): Decision {
      if (!ended && s.length < p + window) {
        let q = p;
        const lim = s.length;
        if (alphabet !== undefined) while (q < lim && alphabet(s.charCodeAt(q))) q++;
        else if (spaceEnds) while (q < lim && !isSpace(s.charCodeAt(q))) q++;
        else return PENDING;
        if (q === lim) return PENDING; // no whitespace yet: the token may still be growing
      }
      re.lastIndex = p;
      const m = re.exec(s);
      if (m === null) return NONE;
      if (spec.check !== undefined && !spec.check(m[0])) return NONE;
      if (spec.before !== undefined && !spec.before.test(s.slice(Math.max(0, p - LEFT_CONTEXT), p))) return NONE;
      const keep = m.groups?.['keep']?.length ?? 0;
      const end = p + m[0].length;
      if (tail === undefined) return { kind: 'match', redactStart: p + keep, redactEnd: end, label };
      return { kind: 'match', redactStart: p + keep, redactEnd: end, label, suppress: { kind: 'run', test: tail } };
    },
  });
}

/** True when the text has at least one ASCII digit. */
export function hasDigit(s: string): boolean {
  return /\d/.test(s);
}
