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
      'INTERNAL_CREDS',
      'GOOGLE_CREDS',
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
  });

  it('keeps look-alikes that are not credentials', () => {
    for (const name of [
      'PATH',
      'HOME',
      'TOKENIZERS_PARALLELISM',
      'KEYBOARD_LAYOUT',
      'SORT_KEY',
      'MINICODE_VERIFY_CMD',
      'PWD',
      'AUTHOR_NAME',
      'PATHEXT',
    ]) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });

  it('scrubs an environment, keeping names the operator lists', () => {
    const npm = 'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const env = {
      PATH: '/bin',
      GITHUB_TOKEN: 'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
      NPM_TOKEN: npm,
      EMPTY: undefined,
    };
    expect(scrubEnv(env)).toEqual({ PATH: '/bin' });
    expect(scrubEnv(env, ['npm_token'])).toEqual({ PATH: '/bin', NPM_TOKEN: npm });
  });
});
