/**
 * The default rule table: vendor formats first (their markers name the vendor), then the
 * context detectors (private keys, URL and basic-auth passwords, Authorization headers), then
 * keyword assignments. At one position the first rule that matches wins; at different
 * positions the leftmost candidate is decided first.
 */
import { NONE, PENDING, type Decision, type SecretRule } from './rule-types.js';
import { VENDOR_RULES } from './vendor-rules.js';
import { CONTEXT_RULES } from './context-rules.js';
import { KEYWORD_RULES } from './keyword-rule.js';

/** Our own markers are kept as they are: redacting twice gives the same text. */
const MARKER: SecretRule = {
  id: 'marker',
  triggers: ['[REDACTED:'],
  decide(s: string, p: number, ended: boolean): Decision {
    const close = s.indexOf(']', p + 10);
    if (close < 0 || close > p + 100) return !ended && s.length < p + 100 ? PENDING : NONE;
    return { kind: 'skip', end: close + 1 };
  },
};

/** Every built-in rule, in priority order. */
export const DEFAULT_RULES: readonly SecretRule[] = [MARKER, ...VENDOR_RULES, ...CONTEXT_RULES, ...KEYWORD_RULES];
