export { createSanitizer, sanitizeText } from './terminal-sanitizer.js';
export { createRedactor, redactText } from './secret-redactor.js';
export { credentialSecretsFromEnv } from './credential-rule.js';
