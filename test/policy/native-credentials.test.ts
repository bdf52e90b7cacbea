import { describe, expect, it } from 'vitest';
import { isCredentialName, scrubEnvironment } from '../../lib/policy/credentials.js';

describe('the credential-name matcher', () => {
  it.each([
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GEMINI_API_KEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'NPM_TOKEN',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'DB_PASSWORD',
    'PGPASSWORD',
    'MY_SECRET',
    'SLACK_BOT_TOKEN',
    'STRIPE_APIKEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'AZURE_CLIENT_SECRET',
    'HF_TOKEN',
    'SSH_AUTH_SOCK',
    'CODEX_API_KEY',
  ])('calls %s a credential', (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    'PATH',
    'HOME',
    'LANG',
    'TERM',
    'NODE_OPTIONS',
    'SHELL',
    'USER',
    'TOKENIZERS_PARALLELISM',
    'MINICODE_CODEX_BIN',
    'CI',
    'KEYBOARD_LAYOUT',
    'AWS_PROFILE',
    'DATABASE_URL',
  ])('leaves %s alone', (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});

describe('scrubEnvironment', () => {
  const openai = 'sk-proj-AbCdEf0123456789GhIjKl0123456789';
  const env = {
    PATH: '/bin',
    OPENAI_API_KEY: openai,
    ANTHROPIC_API_KEY: 'sk-ant-api03-AbCdEf0123456789GhIjKl0123456789',
    GITHUB_TOKEN: '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',
    CODEX_HOME: '/c',
    CLAUDE_CONFIG_DIR: '/d',
    EMPTY: undefined,
  };

  it('keeps only the credentials an agent is allowed, by name or prefix', () => {
    expect(scrubEnvironment(env, { keep: ['OPENAI_API_KEY', 'CODEX_*'] })).toEqual({
      PATH: '/bin',
      OPENAI_API_KEY: openai,
      CODEX_HOME: '/c',
      CLAUDE_CONFIG_DIR: '/d',
    });
  });

  it('removes every credential when nothing is kept', () => {
    expect(scrubEnvironment(env)).toEqual({ PATH: '/bin', CODEX_HOME: '/c', CLAUDE_CONFIG_DIR: '/d' });
  });
});
