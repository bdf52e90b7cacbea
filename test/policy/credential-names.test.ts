/**
 * One definition of a credential variable, two uses: a subprocess does not inherit it
 * (`scrubEnv`) and the scrub stage masks its value in output (`createEventScrubber`). Over a
 * table of names met in real projects and CI, each with a realistic value, both uses must give
 * the expected answer — and so agree with each other.
 */
import { describe, expect, it } from 'vitest';
import { draft } from '../../lib/events/index.js';
import { isCredentialVariable, scrubEnv } from '../../lib/policy/credentials.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';

/** [name, value]: credentials. */
const CREDENTIALS: [string, string][] = [
  ['DATABASE_URL', 'postgres://app:pg-pass-8812@db.internal:5432/app'],
  ['DATABASE_URL', 'postgres://db.internal:5432/app'],
  ['SHADOW_DATABASE_URL', 'postgres://db.internal:5432/shadow'],
  ['REDIS_URL', 'redis://:redis-pass-3141@cache:6379/0'],
  ['SESSION_COOKIE', 'sid=Fe26.2**abcdef0123456789'],
  ['GPG_PASSPHRASE', 'correct horse battery staple'],
  ['PASSPHRASE', 'another long passphrase here'],
  ['SLACK_WEBHOOK_URL', 'https://hooks.slack.com/services/T0000/B0000/abcdefABCDEF123456'],
  ['MONGO_CONNECTION_STRING', 'mongodb+srv://u:mongo-pw-99@cluster0.example.net/db'],
  ['AZURE_STORAGE_CONNECTION_STRING', 'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=abc123def456'],
  ['MONGODB_URI', 'mongodb://mongo-host:27017/app'],
  ['DB_PASS', 'db-pass-value-4242'],
  ['KEYSTORE_PASS', 'keystore-pass-value-77'],
  ['SMTP_PASS', 'smtp-pass-value-31'],
  ['MYSQL_PWD', 'mysql-pwd-value-1'],
  ['PGPASSWORD', 'pg-password-value-2'],
  ['DB_PASSWORD', 'correct horse'],
  ['PASSWD_FILE', '/run/secrets/db-passwd'],
  ['POSTGRES_PASSWORD_FILE', '/run/secrets/postgres'],
  ['AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE'],
  ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['AWS_SESSION_TOKEN', 'IQoJb3JpZ2luX2VjEXAMPLEsessiontoken'],
  ['AWS_PROFILE', 'prod-admin-profile'],
  ['GITHUB_TOKEN', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'],
  ['GH_TOKEN', 'gh-token-plain-value-9'],
  ['NPM_TOKEN', 'npm-token-plain-value-9'],
  ['npm_config__auth', 'dXNlcjpwYXNzd29yZA=='],
  ['NPM_CONFIG_//registry.npmjs.org/:_authToken', 'registry-auth-token-1'],
  ['OPENAI_API_KEY', 'openai-plain-value-123'],
  ['STRIPE_SECRET_KEY', 'stripe-plain-value-123'],
  ['SENTRY_DSN', 'https://abc123@o1.ingest.sentry.io/42'],
  ['GOOGLE_APPLICATION_CREDENTIALS', '/secrets/gcp-service-account.json'],
  ['AZURE_CLIENT_SECRET', 'azure-client-secret-1'],
  ['AZURE_STORAGE_KEY', 'azure-storage-key-value-1'],
  ['DOCKER_AUTH_CONFIG', '{"auths":{"r.example":{}}}'],
  ['SSH_AUTH_SOCK', '/tmp/ssh-XXXX/agent.4242'],
  ['VAULT_TOKEN', 'hvs.vault-token-value'],
  ['CI_JOB_TOKEN', 'ci-job-token-value-1'],
  ['ACTIONS_ID_TOKEN_REQUEST_URL', 'https://pipelines.actions.example/abc/idtoken'],
  ['LICENSE_KEY', 'license-key-value-12'],
  // URL-valued names count when the value carries userinfo.
  ['HTTP_PROXY_URL', 'http://user:proxy-pw-5@proxy:3128'],
  ['PIP_INDEX_URL', 'https://__token__:pypi-token-value@pypi.example/simple'],
  ['GIT_REMOTE_URL', 'https://oauth-plain-value@git.example/acme/app.git'],
];

/** [name, value]: not credentials (they reach subprocesses and print as they are). */
const NOT_CREDENTIALS: [string, string][] = [
  ['PWD', '/home/dev/projects/shop'],
  ['OLDPWD', '/home/dev/projects'],
  ['PATH', '/usr/local/bin:/usr/bin:/bin'],
  ['HOME', '/home/developer'],
  ['USER', 'developer'],
  ['SHELL', '/bin/bash'],
  ['LANG', 'en_US.UTF-8'],
  ['TERM', 'xterm-256color'],
  ['NODE_OPTIONS', '--max-old-space-size=4096'],
  ['AWS_REGION', 'eu-central-1'],
  ['AWS_DEFAULT_REGION', 'eu-central-1'],
  ['TOKENIZERS_PARALLELISM', 'parallelism-off'],
  ['KEYBOARD_LAYOUT', 'dvorak-intl'],
  ['SORT_KEY', 'created_at_desc'],
  ['AUTHOR_NAME', 'Ada Lovelace'],
  ['PASSTHROUGH_MODE', 'forward-all'],
  ['GPG_TTY', '/dev/pts/3'],
  ['GH_REPO', 'acme/shop-app'],
  ['VAULT_ADDR', 'https://vault.internal:8200'],
  ['HF_HOME', '/home/dev/.cache/huggingface'],
  ['HOMEBREW_API_URL', 'https://formulae.brew.sh/api'],
  ['REPO_URL', 'https://github.com/acme/app.git'],
  ['MINICODE_VERIFY_CMD', 'npm test --silent'],
];

/** What the child inherits and what the output shows, for one variable. */
function uses(name: string, value: string): { removedFromChild: boolean; maskedInOutput: boolean } {
  const env = { [name]: value, PATH: '/bin' };
  const child = scrubEnv(env);
  const scrubber = createEventScrubber({ env });
  const out = [...scrubber.push(draft('tool.completed', { toolCallId: 'c1', name: 'bash', summary: 'ok', output: `${name}=${value}\nvalue: ${value}\n` })), ...scrubber.end()];
  const output = JSON.stringify(out);
  return { removedFromChild: !(name in child), maskedInOutput: !output.includes(JSON.stringify(value).slice(1, -1)) };
}

describe('a credential variable, by its one definition', () => {
  it.each(CREDENTIALS)('%s is kept from subprocesses and masked in output (%s)', (name, value) => {
    expect(isCredentialVariable(name, value)).toBe(true);
    expect(uses(name, value)).toEqual({ removedFromChild: true, maskedInOutput: true });
  });

  it.each(NOT_CREDENTIALS)('%s reaches subprocesses and prints as it is (%s)', (name, value) => {
    expect(isCredentialVariable(name, value)).toBe(false);
    expect(uses(name, value)).toEqual({ removedFromChild: false, maskedInOutput: false });
  });

  it('prints the working directory in `env` output as it is: PWD is no password', () => {
    const scrubber = createEventScrubber({ env: {} });
    const text = 'PWD=/home/dev/projects/shop\nOLDPWD=/home/dev\nexport PWD="/srv/app"\n"PWD": "/srv/app"\nDB_PWD=hunter2hunter\n';
    const [out] = scrubber.push(draft('tool.completed', { toolCallId: 'c1', name: 'bash', summary: 'ok', output: text }));
    expect((out!.payload as { output: string }).output).toBe('PWD=/home/dev/projects/shop\nOLDPWD=/home/dev\nexport PWD="/srv/app"\n"PWD": "/srv/app"\nDB_PWD=[REDACTED:password]\n');
  });
});
