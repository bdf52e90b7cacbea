import { describe, expect, it } from 'vitest';
import { isCredentialName, scrubEnv } from '../../lib/policy/credentials.js';

describe('credential variables', () => {
  it('recognises the usual credential names', () => {
    for (const name of [
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'NPM_TOKEN',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_ACCESS_KEY_ID',
      'MY_SERVICE_TOKEN',
      'DB_PASSWORD',
      'STRIPE_SECRET_KEY',
      'SENTRY_DSN',
      'npm_config__auth',
      'DATABASE_URL',
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it('keeps look-alikes that are not credentials', () => {
    for (const name of ['PATH', 'HOME', 'TOKENIZERS_PARALLELISM', 'KEYBOARD_LAYOUT', 'SORT_KEY', 'MINICODE_VERIFY_CMD', 'PWD', 'AUTHOR_NAME', 'PATHEXT']) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });

  it('scrubs an environment, keeping names the operator lists', () => {
    const env = { PATH: '/bin', GITHUB_TOKEN: 'x', NPM_TOKEN: 'y', EMPTY: undefined };
    expect(scrubEnv(env)).toEqual({ PATH: '/bin' });
    expect(scrubEnv(env, ['npm_token'])).toEqual({ PATH: '/bin', NPM_TOKEN: 'y' });
  });
});
