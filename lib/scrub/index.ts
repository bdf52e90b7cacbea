export { createSanitizer, sanitizeText, type Sanitizer, type SanitizerOptions } from './terminal-sanitizer.js';
export { createRedactor, redactText, buildRuleTable, type Redactor, type RedactorOptions } from './secret-redactor.js';
export type { NamedSecret } from './env-secrets.js';
export { credentialSecretsFromEnv } from './credential-rule.js';
export { DEFAULT_RULES } from './secret-rules.js';
export type { SecretRule, Decision } from './rule-types.js';
export { createEventScrubber, type EventScrubber, type EventScrubberOptions } from './scrub-stage.js';
