/**
 * The default rule table: vendor formats first (their markers name the vendor), then the
 * context detectors (private keys, URL and basic-auth passwords, Authorization headers), then
 * keyword assignments. At one position the first rule that matches wins; at different
 * positions the leftmost candidate is decided first.
 */
import type { SecretRule } from './rule-types.js';
import { VENDOR_RULES } from './vendor-rules.js';
import { CONTEXT_RULES } from './context-rules.js';
import { KEYWORD_RULES } from './keyword-rule.js';

/** Every built-in rule, in priority order. */
export const DEFAULT_RULES: readonly SecretRule[] = [...VENDOR_RULES, ...CONTEXT_RULES, ...KEYWORD_RULES];
