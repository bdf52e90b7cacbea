/**
 * One definition of a credential variable (lib/scrub/credential-rule.ts), two uses: a subprocess does not inherit it
 * (`scrubEnv`) and the scrub stage masks its value in output (`createEventScrubber`). Over a
 * table of names met in real projects and CI, each with a realistic value, both uses must give
 * the expected answer — and so agree with each other.
 */
import { describe, expect, it } from 'vitest';
import { draft } from '../../lib/events/index.js';
import { credentialVerdict, isCredentialVariable, scrubEnv } from '../../lib/policy/credentials.js';
import { createEventScrubber } from '../../lib/scrub/scrub-stage.js';

/**
 * [name, value]: credentials (kept from subprocesses and masked). Names from the documentation
 * of each vendor or tool; the values are ours, written in the real shapes (none is live).
 */
const CREDENTIALS: [string, string][] = [
  // AWS (CLI "Environment variables to configure the AWS CLI")
  ['AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE'],
  ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['AWS_SESSION_TOKEN', 'IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789'],
  ['AWS_SECURITY_TOKEN', 'FwoGZXIvYXdzEXAMPLE0123456789abcdefABCDEF'],
  ['AWS_BEARER_TOKEN_BEDROCK', 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLWtleS0xMjM0NTY3ODkwYWJjZGVmZ2hpams='],
  ['AWS_CONTAINER_AUTHORIZATION_TOKEN', 'Basic dXNlcjpjb250YWluZXItYXV0aC10b2tlbg=='],
  // GCP (Application Default Credentials, gcloud, Vertex)
  ['GOOGLE_API_KEY', 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'],
  ['GOOGLE_CREDS', '{"type":"service_account","project_id":"acme-prod","private_key_id":"4f1a9e0c7b"}'],
  ['GCLOUD_SERVICE_KEY', '{"type":"service_account","client_email":"ci@acme-prod.iam.gserviceaccount.com"}'],
  ['CLOUDSDK_AUTH_ACCESS_TOKEN', 'ya29.a0AfH6SMBx3Example0123456789abcdefGHIJ'],
  ['GEMINI_API_KEY', 'AIzaSyD9e8F7g6H5i4J3k2L1m0NoPqRsTuVwXyZ'],
  // Azure (azure-identity EnvironmentCredential, Storage, Terraform azurerm)
  ['AZURE_CLIENT_SECRET', 'Xy8Q~abcDEF123ghiJKL456mnoPQR789stuVWX0yz'],
  ['AZURE_STORAGE_KEY', 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='],
  [
    'AZURE_STORAGE_CONNECTION_STRING',
    'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=abc123def456GHI789==;EndpointSuffix=core.windows.net',
  ],
  ['AZURE_STORAGE_SAS_TOKEN', 'sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&sig=AbCdEf0123456789%2BgHiJ%3D'],
  ['ARM_CLIENT_SECRET', 'qwe8Q~0123456789abcdefghijABCDEFGHIJ.klmn'],
  ['AZURE_OPENAI_API_KEY', '0123456789abcdef0123456789abcdef'],
  // GitHub (Actions, gh CLI, git over HTTPS)
  ['GITHUB_TOKEN', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a'],
  ['GH_TOKEN', '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'],
  ['GH_ENTERPRISE_TOKEN', 'github_pat_11ABCDEFG0123456789abc_defghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX0123'],
  ['ACTIONS_RUNTIME_TOKEN', 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJydW50aW1lIn0.c2lnbmF0dXJlLXBhcnQ'],
  ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJhY3Rpb25zIn0.aWQtdG9rZW4tc2ln'],
  ['GIT_REMOTE_URL', 'https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/acme/app.git'],
  // npm, PyPI, RubyGems, Cargo
  ['NPM_TOKEN', 'npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'],
  ['NODE_AUTH_TOKEN', 'npm_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'],
  ['npm_config__auth', 'dXNlcjpwYXNzd29yZDEyMzQ1Ng=='],
  ['NPM_CONFIG_//registry.npmjs.org/:_authToken', 'npm_0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX'],
  ['TWINE_PASSWORD', 'pypi-AgEIcHlwaS5vcmcCJGExYjJjM2Q0LWU1ZjYtNzg5MC1hYmNkLWVmMDEyMzQ1Njc4OQ'],
  ['PIP_INDEX_URL', 'https://__token__:pypi-AgEIcHlwaS5vcmcexample@pypi.example/simple'],
  ['GEM_HOST_API_KEY', 'rubygems_0123456789abcdef0123456789abcdef0123456789abcdef'],
  ['CARGO_REGISTRY_TOKEN', 'cio0123456789abcdefABCDEFghijklmnop'],
  // Docker
  ['DOCKER_PASSWORD', 'dckr_pat_0aB1cD2eF3gH4iJ5kL6mN7oP8qR'],
  ['DOCKERHUB_TOKEN', 'dckr_pat_Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1'],
  ['DOCKER_AUTH_CONFIG', '{"auths":{"registry.example.com":{"auth":"dXNlcjpzM2NyZXQtcGFzcw=="}}}'],
  // Stripe
  ['STRIPE_SECRET_KEY', 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
  ['STRIPE_API_KEY', 'rk_test_51H8xYzAbCdEfGhIjKlMnOpQrSt0123456789'],
  ['STRIPE_WEBHOOK_SECRET', 'whsec_0123456789abcdefABCDEF0123456789ab'],
  // Slack
  ['SLACK_BOT_TOKEN', 'xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
  ['SLACK_SIGNING_SECRET', '8f742231b10e8888abcd99yyyzzz85a5'],
  ['SLACK_WEBHOOK_URL', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
  ['SLACK_APP_TOKEN', 'xapp-1-A0123456789-0123456789012-abcdef0123456789abcdef0123456789'],
  // Databases
  ['DATABASE_URL', 'postgres://app:pg-pass-8812@db.internal:5432/app'],
  ['REDIS_URL', 'redis://:redis-pass-3141@cache:6379/0'],
  ['MONGODB_URI', 'mongodb+srv://u:mongo-pw-99@cluster0.example.net/db'],
  ['MONGO_CONNECTION_STRING', 'mongodb://admin:Adm1nPassw0rd@mongo:27017/?authSource=admin'],
  ['PGPASSWORD', 'pg-password-value-2'],
  ['MYSQL_PWD', 'mysql-pwd-value-1'],
  ['MYSQL_ROOT_PASSWORD', 'r00t-Passw0rd-2024'],
  ['POSTGRES_PASSWORD', 'correct horse battery'],
  ['DB_PASS', 'db-pass-value-4242'],
  ['SENTRY_DSN', 'https://abc123def4567890abc123def4567890@o1.ingest.sentry.io/42'],
  // CI systems
  ['CI_JOB_TOKEN', 'glcbt-64_abcdefghijABCDEFGHIJ012345'],
  ['GITLAB_TOKEN', 'glpat-xYz0123456789AbCdEfGh'],
  ['CIRCLE_TOKEN', 'CCIPAT_AbCdEf0123456789_0123456789abcdef0123456789abcdef01234567'],
  ['BUILDKITE_AGENT_TOKEN', 'bkua_0123456789abcdef0123456789abcdef01234567'],
  ['CODECOV_TOKEN', '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
  ['SONAR_TOKEN', 'squ_0123456789abcdef0123456789abcdef01234567'],
  ['VAULT_TOKEN', 'hvs.CAESIJlbFExampleVaultToken0123456789abcdef'],
  ['TF_TOKEN_app_terraform_io', 'AbCdEf0123456789.atlasv1.GhIjKl0123456789mnOpQrStUvWxYz'],
  // Model providers
  ['OPENAI_API_KEY', 'sk-proj-AbCdEf0123456789GhIjKl0123456789MnOpQr'],
  ['ANTHROPIC_API_KEY', 'sk-ant-api03-AbCdEf0123456789GhIjKl0123456789MnOpQrStUvWx'],
  ['HF_TOKEN', 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
  // Names minicode's issue tracker met in the wild: a bare *_CREDS or a custom *_KEY with a random value
  ['INTERNAL_CREDS', 'svc-ci:Q2h4ZzZfT1ZrM2hX'],
  ['CUSTOM_KEY', '9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c'],
  ['SESSION_COOKIE', 'sid=Fe26.2**abcdef0123456789'],
  ['GPG_PASSPHRASE', 'correct horse battery staple'],
  ['LICENSE_KEY', 'LK-4F2A-9B1C-7D3E-0A5F-ZX81'],
  ['HTTP_PROXY_URL', 'http://user:proxy-pw-5@proxy:3128'],
  // A neutral name with a value in a known credential format
  ['DEPLOY_HELPER', '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'],
];

/**
 * [name, value]: credential pointers: a secret name whose value is a path to a key file or an
 * agent socket. The child does not inherit the pointer; the path is printed as it is.
 */
const POINTERS: [string, string][] = [
  ['GOOGLE_APPLICATION_CREDENTIALS', '/home/dev/.config/gcloud/application_default_credentials.json'],
  ['AWS_SHARED_CREDENTIALS_FILE', '/home/dev/.aws/credentials'],
  ['AWS_WEB_IDENTITY_TOKEN_FILE', '/var/run/secrets/eks.amazonaws.com/serviceaccount/token'],
  ['POSTGRES_PASSWORD_FILE', '/run/secrets/postgres-passwd'],
  ['SSH_AUTH_SOCK', '/tmp/ssh-XXXXabcd/agent.4242'],
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
  // AWS configuration that selects or locates, never authenticates
  ['AWS_PROFILE', 'dev'],
  ['AWS_PROFILE', 'prod-admin'],
  ['AWS_CA_BUNDLE', '/etc/ssl/certs/ca-certificates.crt'],
  ['AWS_REGION', 'eu-central-1'],
  ['AWS_DEFAULT_REGION', 'us-east-1'],
  ['AWS_CONFIG_FILE', '/home/dev/.aws/config'],
  ['AWS_ROLE_ARN', 'arn:aws:iam::123456789012:role/ci-deploy'],
  ['AWS_ENDPOINT_URL', 'http://localhost:4566'],
  ['AWS_SDK_LOAD_CONFIG', '1'],
  // GCP and Azure identifiers that are no secret
  ['GOOGLE_CLOUD_PROJECT', 'acme-prod-4711'],
  ['CLOUDSDK_CONFIG', '/home/dev/.config/gcloud'],
  ['AZURE_CLIENT_ID', '00000000-0000-0000-0000-000000000000'],
  ['AZURE_TENANT_ID', '72f988bf-86f1-41af-91ab-2d7cd011db47'],
  ['AZURE_SUBSCRIPTION_ID', '0b1f6471-1bf0-4dda-aec3-111122223333'],
  ['AZURE_STORAGE_ACCOUNT', 'acmestorage01'],
  // Addresses without userinfo, repository names
  ['DATABASE_URL', 'postgres://db.internal:5432/app'],
  ['MONGODB_URI', 'mongodb://mongo-host:27017/app'],
  ['GIT_URL', 'ssh://git@github.com/acme/app.git'],
  ['REPO_URL', 'https://github.com/acme/app.git'],
  ['HOMEBREW_API_URL', 'https://formulae.brew.sh/api'],
  ['VAULT_ADDR', 'https://vault.internal:8200'],
  ['DOCKER_HOST', 'tcp://localhost:2375'],
  ['DOCKER_CONFIG', '/home/dev/.docker'],
  ['KUBECONFIG', '/home/dev/.kube/config'],
  ['GH_REPO', 'acme/shop-app'],
  ['GITHUB_REPOSITORY', 'acme/shop-app'],
  ['GITHUB_SHA', 'ffac537e6cbbf934b08745a378932722df287a53'],
  ['CI_COMMIT_SHA', '1ecfd275763eff1d6b4844ea3168962458c9f27a'],
  ['CI', 'true'],
  // Short words and placeholders under credential names
  ['PGPASSWORD', 'postgres'],
  ['MYSQL_ROOT_PASSWORD', 'root'],
  ['DB_PASSWORD', 'changeme'],
  ['GITHUB_TOKEN', '${{ secrets.GITHUB_TOKEN }}'],
  ['NPM_TOKEN', '$NPM_TOKEN'],
  ['API_TOKEN_ENABLED', 'true'],
  // Look-alike names
  ['TOKENIZERS_PARALLELISM', 'parallelism-off'],
  ['KEYBOARD_LAYOUT', 'dvorak-intl'],
  ['SORT_KEY', 'created_at_desc'],
  ['PRIMARY_KEY', 'id'],
  ['AUTHOR_NAME', 'Ada Lovelace'],
  ['PASSTHROUGH_MODE', 'forward-all'],
  ['GPG_TTY', '/dev/pts/3'],
  ['HF_HOME', '/home/dev/.cache/huggingface'],
  ['MINICODE_VERIFY_CMD', 'npm test --silent'],
];

/** What the child inherits and what the output shows, for one variable. */
function uses(name: string, value: string): { removedFromChild: boolean; maskedInOutput: boolean } {
  const env = { [name]: value, PATH: '/bin' };
  const child = scrubEnv(env);
  const scrubber = createEventScrubber({ env });
  const out = [
    ...scrubber.push(
      draft('tool.completed', {
        toolCallId: 'c1',
        name: 'bash',
        summary: 'ok',
        output: `${name}=${value}\nvalue: ${value}\n`,
      }),
    ),
    ...scrubber.end(),
  ];
  const output = JSON.stringify(out);
  return { removedFromChild: !(name in child), maskedInOutput: !output.includes(JSON.stringify(value).slice(1, -1)) };
}

describe('a credential variable, by its one definition', () => {
  it.each(CREDENTIALS)('%s is kept from subprocesses and masked in output (%s)', (name, value) => {
    expect(isCredentialVariable(name, value)).toBe(true);
    expect(uses(name, value)).toEqual({ removedFromChild: true, maskedInOutput: true });
  });

  it.each(POINTERS)('%s is kept from subprocesses and printed as it is: a path to a credential (%s)', (name, value) => {
    expect(credentialVerdict(name, value)).toEqual({ remove: true, mask: false });
    expect(uses(name, value)).toEqual({ removedFromChild: true, maskedInOutput: false });
  });

  it('holds more than 60 real names', () => {
    expect(
      new Set([...CREDENTIALS, ...POINTERS, ...NOT_CREDENTIALS].map(([name]) => name)).size,
    ).toBeGreaterThanOrEqual(60);
  });

  it.each(NOT_CREDENTIALS)('%s reaches subprocesses and prints as it is (%s)', (name, value) => {
    expect(isCredentialVariable(name, value)).toBe(false);
    expect(uses(name, value)).toEqual({ removedFromChild: false, maskedInOutput: false });
  });

  it('prints the working directory in `env` output as it is: PWD is no password', () => {
    const scrubber = createEventScrubber({ env: {} });
    const text =
      'PWD=/home/dev/projects/shop\nOLDPWD=/home/dev\nexport PWD="/srv/app"\n"PWD": "/srv/app"\nDB_PWD=hunter2hunter\n';
    const [out] = scrubber.push(
      draft('tool.completed', { toolCallId: 'c1', name: 'bash', summary: 'ok', output: text }),
    );
    expect((out!.payload as { output: string }).output).toBe(
      'PWD=/home/dev/projects/shop\nOLDPWD=/home/dev\nexport PWD="/srv/app"\n"PWD": "/srv/app"\nDB_PWD=[REDACTED:password]\n',
    );
  });
});
