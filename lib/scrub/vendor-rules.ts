/**
 * Vendor token formats, written by us from the published formats. Each entry cites where the
 * format is documented: the vendor's own docs or changelog where one exists, otherwise the rule
 * of the same name in gitleaks `config/gitleaks.toml` (MIT, © 2019 Zachary Rice, commit
 * b58d3f1) or secretlint's `@secretlint/secretlint-rule-*` (MIT, © 2020 azu, commit 18346ba).
 * No pattern text was copied: bodies are minimum lengths plus a `tail` run, so that a longer or
 * newer variant of a format is still redacted whole (fail closed).
 */
import { tokenRule, hasDigit } from './token-rule.js';
import type { SecretRule } from './rule-types.js';

const B62 = 'A-Za-z0-9';
const B64URL = 'A-Za-z0-9_\\-';
const B64 = 'A-Za-z0-9+/=';

/** Upper, lower and digit all present: random tokens have them, identifiers rarely do. */
function mixed(s: string): boolean {
  return /[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s);
}

export const VENDOR_RULES: readonly SecretRule[] = [
  // GitHub: "Behind GitHub's new authentication token formats" (github.blog, 2021-04-05):
  // ghp_ personal, gho_ OAuth, ghu_ user-to-server, ghs_ server-to-server, ghr_ refresh; body
  // 36 base62 (last 6 a CRC32). gitleaks `github-pat`, `github-oauth`, `github-app-token`,
  // `github-refresh-token`.
  tokenRule({
    id: 'github-token',
    triggers: ['ghp_', 'gho_', 'ghu_', 'ghr_'],
    boundary: false,
    pattern: `gh[pour]_[${B62}]{30}`,
    window: 34,
    tail: `${B62}_`,
  }),
  // ghs_: classic 36-char form, and the 2026 `ghs_<appId>_<JWT>` installation token (GitHub
  // changelog 2026-04-24; secretlint `secretlint-rule-github`).
  tokenRule({
    id: 'github-token',
    triggers: ['ghs_'],
    boundary: false,
    pattern: `ghs_[${B62}_]{30}`,
    window: 34,
    tail: `${B64URL}.`,
  }),
  // Fine-grained PAT: `github_pat_` + 22 + `_` + 59 (GitHub docs "About personal access tokens";
  // gitleaks `github-fine-grained-pat`).
  tokenRule({
    id: 'github-token',
    triggers: ['github_pat_'],
    boundary: false,
    pattern: `github_pat_[${B62}_]{40}`,
    window: 51,
    tail: `${B62}_`,
  }),
  // Legacy installation token `v1.<40 hex>` (octokit/auth-token.js README, token types).
  tokenRule({ id: 'github-token', triggers: ['v1.'], pattern: 'v1\\.[0-9a-f]{40}(?![A-Za-z0-9_])', window: 44 }),

  // Anthropic: `sk-ant-api03-`, `sk-ant-api04-`, `sk-ant-admin01-`, `sk-ant-oat01-` + ~95 chars
  // (Anthropic API docs "API keys"; secretlint `secretlint-rule-anthropic`). Before OpenAI.
  tokenRule({
    id: 'anthropic-api-key',
    triggers: ['sk-ant-'],
    boundary: false,
    pattern: `sk-ant-[a-z]{2,8}\\d{2}-[${B64URL}]{20}`,
    window: 40,
    tail: B64URL,
  }),
  // OpenAI: `sk-` legacy (with `T3BlbkFJ`), `sk-proj-`, `sk-svcacct-`, `sk-admin-`, also
  // OpenRouter/DeepSeek `sk-...` keys (OpenAI docs "API keys"; secretlint
  // `secretlint-rule-openai`; gitleaks `openai-api-key`).
  tokenRule({
    id: 'openai-api-key',
    triggers: ['sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-or-v1-'],
    pattern: `sk-[a-z]{2,8}(?:-v1)?-[${B64URL}]{20}`,
    window: 40,
    tail: B64URL,
  }),
  tokenRule({
    id: 'openai-api-key',
    triggers: ['sk-'],
    pattern: `sk-[${B64URL}]{24}`,
    window: 27,
    tail: B64URL,
    check: (m) => hasDigit(m) || (/[A-Z]/.test(m) && /[a-z]/.test(m.slice(3))),
  }),

  // AWS access key ids: 4-char type prefix + 16 base32 upper (AWS IAM User Guide "Understanding
  // unique ID prefixes"; gitleaks `aws-access-token`). Exactly 20 characters.
  tokenRule({
    id: 'aws-access-key-id',
    triggers: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA', 'A3T'],
    pattern: '(?:A3T[A-Z0-9]|A[A-Z]{3})[A-Z0-9]{16}(?![A-Za-z0-9_])',
    window: 21,
    // Not a run of nucleotides (DNA in bioinformatics output is upper-case too).
    check: (m) => !/^[ACGTN]+$/.test(m.slice(4)),
  }),
  // Bedrock API keys: `ABSK` + base64 (AWS Bedrock docs "API keys"; gitleaks `aws-amazon-bedrock-api-key-long-term`).
  tokenRule({
    id: 'aws-bedrock-api-key',
    triggers: ['bedrock-api-key-'],
    pattern: `bedrock-api-key-[${B64}]{24}`,
    window: 41,
    tail: B64,
  }),
  tokenRule({ id: 'aws-bedrock-api-key', triggers: ['ABSK'], pattern: `ABSK[${B64}]{60}`, window: 64, tail: B64 }),

  // Google API key: `AIza` + 35 (Google Cloud docs "API keys"; gitleaks `gcp-api-key`).
  tokenRule({ id: 'google-api-key', triggers: ['AIza'], pattern: `AIza[${B64URL}]{35}`, window: 39, tail: B64URL }),

  // Slack: `xoxb-`/`xoxp-`/`xoxa-`/`xoxe-`/`xoxo-`/`xoxr-`/`xoxs-`, `xoxe.xoxp-` rotating,
  // `xapp-` app-level (Slack API docs "Token types"; gitleaks `slack-*-token`).
  tokenRule({
    id: 'slack-token',
    triggers: ['xox'],
    boundary: false,
    pattern: `xox[a-z](?:\\.xox[a-z])?-[${B62}-]{10}`,
    window: 26,
    tail: `${B62}-`,
  }),
  tokenRule({
    id: 'slack-token',
    triggers: ['xapp-'],
    boundary: false,
    pattern: `xapp-\\d-[${B62}-]{10}`,
    window: 18,
    tail: `${B62}-`,
  }),
  // Webhooks: hooks.slack.com/{services,workflows,triggers}/... (Slack docs "Incoming webhooks";
  // gitleaks `slack-webhook-url`). The scheme before it stays visible.
  tokenRule({
    id: 'slack-webhook-url',
    triggers: ['hooks.slack.com/'],
    boundary: false,
    pattern: `hooks\\.slack\\.com/(?:services|workflows|triggers)/[${B62}_/+-]{16}`,
    window: 44,
    tail: `${B62}_/+-`,
  }),
  // Discord webhooks and bot tokens (Discord developer docs; gitleaks `discord-*`).
  tokenRule({
    id: 'discord-webhook-url',
    triggers: ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'],
    boundary: false,
    pattern: `discord(?:app)?\\.com/api/webhooks/\\d{5,30}/[${B64URL}]{20}`,
    window: 90,
    tail: B64URL,
  }),
  tokenRule({
    id: 'discord-bot-token',
    triggers: ['M', 'N', 'O'],
    pattern: `[MNO][${B62}]{23,27}\\.[${B64URL}]{6}\\.[${B64URL}]{27}`,
    window: 64,
    alphabet: `${B64URL}.`,
    next: B62,
    tail: B64URL,
  }),

  // Stripe secret and restricted keys; `pk_` publishable keys are public and stay (Stripe docs
  // "API keys"; gitleaks `stripe-access-token`). Webhook signing secrets `whsec_`.
  tokenRule({
    id: 'stripe-secret-key',
    triggers: ['sk_live_', 'sk_test_', 'sk_prod_', 'rk_live_', 'rk_test_', 'rk_prod_'],
    pattern: `[rs]k_(?:live|test|prod)_[${B62}]{16}`,
    window: 24,
    tail: B62,
  }),
  tokenRule({
    id: 'stripe-webhook-secret',
    triggers: ['whsec_'],
    pattern: `whsec_[${B62}]{24}`,
    window: 30,
    tail: B62,
  }),

  // npm granular/automation tokens `npm_` + 36 (npm docs "About access tokens"; gitleaks `npm-access-token`).
  tokenRule({
    id: 'npm-token',
    triggers: ['npm_'],
    pattern: `npm_[${B62}]{36}`,
    window: 40,
    tail: B62,
    check: hasDigit,
  }),
  // PyPI: macaroon `pypi-AgEIcHlwaS5vcmc...` (PyPI docs "API tokens"; gitleaks `pypi-upload-token`).
  tokenRule({
    id: 'pypi-token',
    triggers: ['pypi-AgE'],
    boundary: false,
    pattern: `pypi-AgE[${B64URL}]{40}`,
    window: 48,
    tail: B64URL,
  }),

  // GitLab token prefixes (GitLab docs "Token overview: token prefixes"; gitleaks `gitlab-*`).
  tokenRule({
    id: 'gitlab-token',
    triggers: [
      'glpat-',
      'glptt-',
      'glrt-',
      'gldt-',
      'glcbt-',
      'glimt-',
      'glagent-',
      'gloas-',
      'glsoat-',
      'glffct-',
      'glft-',
      'glcf-',
      'glwt-',
      'glrtr-',
    ],
    boundary: false,
    pattern: `gl[a-z]{2,6}-[${B64URL}]{20}`,
    window: 29,
    tail: `${B64URL}.`,
  }),
  tokenRule({
    id: 'gitlab-token',
    triggers: ['GR1348941'],
    boundary: false,
    pattern: `GR1348941[${B64URL}]{20}`,
    window: 29,
    tail: B64URL,
  }),

  // JWT: base64url header `eyJ` . payload . signature (RFC 7519; gitleaks `jwt`). A lone header
  // (no dot) is not a token. Grafana `eyJrIjoi` keys share the prefix (gitleaks `grafana-api-key`).
  tokenRule({
    id: 'jwt',
    triggers: ['eyJ'],
    pattern: `eyJ[${B64URL}]{8,600}\\.[${B64URL}]{8}`,
    window: 620,
    tail: `${B64URL}.+/=`,
  }),
  tokenRule({ id: 'grafana-token', triggers: ['eyJrIjoi'], pattern: `eyJrIjoi[${B62}]{60}`, window: 68, tail: B64 }),

  // 1Password: secret key `A3-XXXXXX-...` and service-account tokens `ops_eyJ...` (1Password
  // developer docs "Service accounts"; gitleaks `1password-secret-key`, `1password-service-account-token`).
  tokenRule({
    id: '1password-secret-key',
    triggers: ['A3-'],
    pattern:
      'A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9])',
    window: 40,
  }),
  tokenRule({
    id: '1password-service-account-token',
    triggers: ['ops_eyJ'],
    pattern: `ops_eyJ[${B64}]{100}`,
    window: 107,
    tail: B64,
  }),

  // Docker Hub PAT / org access token (Docker docs "Access tokens"; secretlint `secretlint-rule-docker`).
  tokenRule({
    id: 'docker-pat',
    triggers: ['dckr_pat_', 'dckr_oat_'],
    boundary: false,
    pattern: `dckr_[po]at_[${B64URL}]{20}`,
    window: 29,
    tail: B64URL,
  }),
  // Figma PAT `figd_` (Figma developer docs; secretlint `secretlint-rule-figma`).
  tokenRule({ id: 'figma-pat', triggers: ['figd_'], pattern: `figd_[${B64URL}]{30}`, window: 35, tail: B64URL }),
  // Fly.io `fo1_`, `fm1a_`/`fm1r_`/`fm2_` macaroons (gitleaks `flyio-access-token`).
  tokenRule({
    id: 'flyio-token',
    triggers: ['fo1_', 'fm1a_', 'fm1r_', 'fm2_'],
    pattern: `f(?:o1|m1[ar]|m2)_[${B64URL}+/]{30}`,
    window: 36,
    tail: `${B64URL}+/=`,
  }),
  // Grafana service-account `glsa_` and cloud `glc_` tokens (Grafana docs; gitleaks `grafana-*`).
  tokenRule({
    id: 'grafana-token',
    triggers: ['glsa_'],
    pattern: `glsa_[${B62}]{32}_[0-9a-fA-F]{8}`,
    window: 46,
    tail: B62,
  }),
  tokenRule({ id: 'grafana-token', triggers: ['glc_'], pattern: `glc_[${B64}]{32}`, window: 36, tail: B64 }),
  // Groq `gsk_` (Groq docs; secretlint `secretlint-rule-groq`).
  tokenRule({ id: 'groq-api-key', triggers: ['gsk_'], pattern: `gsk_[${B62}]{40}`, window: 44, tail: B62 }),
  // Heroku `HRKU-` platform keys (Heroku Dev Center "Heroku API tokens"; gitleaks `heroku-api-key-v2`).
  tokenRule({ id: 'heroku-api-key', triggers: ['HRKU-'], pattern: `HRKU-[${B64URL}]{40}`, window: 45, tail: B64URL }),
  // Hugging Face user `hf_` and org `api_org_` tokens (HF docs "User access tokens"; gitleaks `huggingface-*`).
  tokenRule({
    id: 'huggingface-token',
    triggers: ['hf_', 'api_org_'],
    pattern: `(?:hf|api_org)_[A-Za-z]{30}`,
    window: 38,
    tail: B62,
  }),
  // Infracost `ico-` (gitleaks `infracost-api-token`).
  tokenRule({ id: 'infracost-token', triggers: ['ico-'], pattern: `ico-[${B62}]{32}`, window: 36, tail: B62 }),
  // 42 intra `s-s4t2ud-`/`s-s4t2af-` (gitleaks `intra42-client-secret`).
  tokenRule({ id: 'intra42-client-secret', triggers: ['s-s4t2'], pattern: 's-s4t2(?:ud|af)-[a-f0-9]{64}', window: 73 }),
  // Linear `lin_api_` (Linear developer docs; secretlint `secretlint-rule-linear`).
  tokenRule({
    id: 'linear-api-key',
    triggers: ['lin_api_', 'lin_oauth_'],
    pattern: `lin_(?:api|oauth)_[${B62}]{32}`,
    window: 42,
    tail: B62,
  }),
  // Notion `ntn_` (2024) and legacy `secret_` + 43 integration tokens (Notion developer docs).
  tokenRule({ id: 'notion-token', triggers: ['ntn_'], pattern: `ntn_\\d{8}[${B62}]{28}`, window: 40, tail: B62 }),
  tokenRule({
    id: 'notion-token',
    triggers: ['secret_'],
    pattern: `secret_[${B62}]{43}(?![A-Za-z0-9_])`,
    window: 51,
    check: mixed,
  }),
  // Octopus Deploy `API-` + 26 upper (Octopus docs; gitleaks `octopus-deploy-api-key`).
  tokenRule({
    id: 'octopus-deploy-api-key',
    triggers: ['API-'],
    pattern: 'API-[A-Z0-9]{26}(?![A-Za-z0-9])',
    window: 31,
    check: hasDigit,
  }),
  // OpenShift `sha256~` OAuth access tokens (OpenShift docs; gitleaks `openshift-user-token`).
  tokenRule({
    id: 'openshift-token',
    triggers: ['sha256~'],
    pattern: `sha256~[${B64URL}]{40}`,
    window: 47,
    tail: B64URL,
  }),
  // Scalingo `tk-us-` (gitleaks `scalingo-api-token`).
  tokenRule({ id: 'scalingo-token', triggers: ['tk-us-'], pattern: `tk-us-[${B64URL}]{40}`, window: 46, tail: B64URL }),
  // SendGrid `SG.<22>.<43>` (Twilio SendGrid docs "API keys"; gitleaks `sendgrid-api-token`).
  tokenRule({
    id: 'sendgrid-api-key',
    triggers: ['SG.'],
    pattern: `SG\\.[${B64URL}]{20,24}\\.[${B64URL}]{30}`,
    window: 60,
    tail: B64URL,
  }),
  // Sentry org `sntrys_` and user `sntryu_` tokens (Sentry docs "Auth tokens"; gitleaks `sentry-*`).
  tokenRule({
    id: 'sentry-token',
    triggers: ['sntrys_', 'sntryu_'],
    pattern: `sntry[su]_[${B64}]{40}`,
    window: 48,
    tail: `${B64}_`,
  }),
  // Shopify `shpat_`/`shpca_`/`shppa_`/`shpss_` (Shopify docs; gitleaks `shopify-*`).
  tokenRule({
    id: 'shopify-token',
    triggers: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    pattern: `shp(?:at|ca|pa|ss)_[${B62}]{32}`,
    window: 38,
    tail: B62,
  }),
  // SonarQube/SonarCloud `squ_`/`sqp_`/`sqa_` (Sonar docs "Generating tokens"; gitleaks `sonar-api-token`).
  tokenRule({
    id: 'sonar-token',
    triggers: ['squ_', 'sqp_', 'sqa_'],
    pattern: `sq[upa]_[${B62}]{40}`,
    window: 44,
    tail: B62,
  }),
  // Sourcegraph `sgp_` access tokens (Sourcegraph docs; gitleaks `sourcegraph-access-token`).
  tokenRule({
    id: 'sourcegraph-token',
    triggers: ['sgp_'],
    pattern: `sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}`,
    window: 62,
  }),
  // Square `EAAA` access and `sq0atp-`/`sq0csp-` tokens (Square docs; gitleaks `square-access-token`).
  tokenRule({ id: 'square-token', triggers: ['EAAA'], pattern: `EAAA[${B64URL}]{40}`, window: 44, tail: B64URL }),
  tokenRule({
    id: 'square-token',
    triggers: ['sq0atp-', 'sq0csp-'],
    pattern: `sq0(?:atp|csp)-[${B64URL}]{22}`,
    window: 29,
    tail: B64URL,
  }),
  // Facebook/Meta user and page access tokens `EAA[MC]...` (Meta docs "Access tokens"; gitleaks `facebook-access-token`).
  tokenRule({
    id: 'facebook-token',
    triggers: ['EAAM', 'EAAC', 'EAAG'],
    pattern: `EAA[MCG][${B62}]{60}`,
    window: 64,
    tail: B62,
  }),
  // Tailscale `tskey-<kind>-<id>-<secret>` (Tailscale docs "API keys"; secretlint `secretlint-rule-tailscale`).
  tokenRule({
    id: 'tailscale-key',
    triggers: ['tskey-'],
    pattern: `tskey-(?:[a-z]{2,10}-)?[${B62}]{6,40}-[${B62}]{10}`,
    window: 70,
    tail: B62,
  }),
  // HashiCorp Vault `hvs.`/`hvb.`/`hvr.` (Vault docs "Tokens: token prefixes"; gitleaks `vault-*`).
  tokenRule({
    id: 'vault-token',
    triggers: ['hvs.', 'hvb.', 'hvr.'],
    boundary: false,
    pattern: `hv[sbr]\\.[${B64URL}]{24}`,
    window: 28,
    tail: B64URL,
  }),
  // Legacy Vault service token `s.` + 24 base62, only with mixed case and digits.
  tokenRule({
    id: 'vault-token',
    triggers: ['s.'],
    pattern: `s\\.[${B62}]{24}(?![A-Za-z0-9_])`,
    window: 27,
    alphabet: `${B62}.`,
    check: mixed,
  }),
  // Vercel `vck_`/`vca_`/`vcr_`/`vci_`/`vcp_` (Vercel changelog 2025; secretlint `secretlint-rule-vercel`).
  tokenRule({
    id: 'vercel-token',
    triggers: ['vck_', 'vca_', 'vcr_', 'vci_', 'vcp_'],
    pattern: `vc[karip]_[${B62}]{24}`,
    window: 28,
    tail: B62,
  }),
  // Cloudflare `cfat_`/`cfut_`/`cfk_` (Cloudflare changelog 2026; secretlint `secretlint-rule-cloudflare`).
  tokenRule({
    id: 'cloudflare-api-token',
    triggers: ['cfat_', 'cfut_', 'cfk_'],
    pattern: `cf(?:at|ut|k)_[${B62}]{32}`,
    window: 37,
    tail: B62,
  }),
  // Databricks `dapi` + 32 hex (+ `-N`) (Databricks docs "PATs"; gitleaks `databricks-api-token`).
  tokenRule({
    id: 'databricks-token',
    triggers: ['dapi'],
    pattern: 'dapi[a-fA-F0-9]{32}(?:-\\d)?',
    window: 39,
    tail: `${B62}-`,
  }),
  // Terraform Cloud `<14>.atlasv1.<60+>`: matched from `.atlasv1.`, the public 14-char id stays
  // (HashiCorp docs "API tokens"; gitleaks `hashicorp-tf-api-token`).
  tokenRule({
    id: 'terraform-cloud-token',
    triggers: ['.atlasv1.'],
    boundary: false,
    pattern: `\\.atlasv1\\.[${B64URL}=]{40}`,
    window: 49,
    tail: `${B64URL}=`,
  }),
  // Azure AD client secret `xxx<d>Q~<31-34>`: matched from `Q~` after a digit (Microsoft identity
  // platform credential format; gitleaks `azure-ad-client-secret`). The 3 chars before stay.
  tokenRule({
    id: 'azure-client-secret',
    triggers: ['Q~'],
    boundary: false,
    before: /[A-Za-z0-9_~.-]{3}\d$/,
    pattern: `Q~[${B62}_~.-]{30}`,
    window: 33,
    tail: `${B62}_~.-`,
  }),
  // Telegram bot token `<bot id>:AA<33>`: matched from `:AA` after 8-10 digits (Telegram Bot API docs).
  tokenRule({
    id: 'telegram-bot-token',
    triggers: [':AA'],
    boundary: false,
    before: /(?:^|[^0-9])\d{8,10}$/,
    pattern: `:AA[${B64URL}]{33}`,
    window: 37,
    tail: B64URL,
  }),
  // Facebook app token `<app id>|<secret>` (gitleaks `facebook-secret`): matched from `|`.
  tokenRule({
    id: 'facebook-token',
    triggers: ['|'],
    boundary: false,
    next: B64URL,
    before: /(?:^|[^0-9])\d{15,16}$/,
    pattern: `\\|[${B64URL}]{27,40}(?![A-Za-z0-9_-])`,
    window: 42,
  }),
  // Mailchimp `<32 hex>-us<N>` (Mailchimp docs "API keys"; gitleaks `mailchimp-api-key`).
  tokenRule({
    id: 'mailchimp-api-key',
    triggers: [...'0123456789abcdef'],
    pattern: '[0-9a-f]{32}-us\\d{1,2}(?![A-Za-z0-9])',
    window: 38,
    alphabet: '0-9a-fus-',
    next: '0-9a-f',
  }),
  // Atlassian API token `ATATT3` (Atlassian docs; gitleaks `atlassian-api-token`).
  tokenRule({
    id: 'atlassian-api-token',
    triggers: ['ATATT3'],
    pattern: `ATATT3[${B64URL}=]{100}`,
    window: 106,
    tail: `${B64URL}=`,
  }),
  // A few more common AI and infra formats (vendor docs): Replicate `r8_`, Perplexity `pplx-`,
  // xAI `xai-`, LangSmith `lsv2_`, DigitalOcean `dop_v1_`, New Relic `NRAK-`, Postman `PMAK-`,
  // Doppler `dp.pt.`, Pulumi `pul-`, age `AGE-SECRET-KEY-1`.
  tokenRule({ id: 'replicate-token', triggers: ['r8_'], pattern: `r8_[${B62}]{37}`, window: 41, tail: B62 }),
  tokenRule({ id: 'perplexity-api-key', triggers: ['pplx-'], pattern: `pplx-[${B62}]{40}`, window: 46, tail: B62 }),
  tokenRule({ id: 'xai-api-key', triggers: ['xai-'], pattern: `xai-[${B62}]{70}`, window: 75, tail: B62 }),
  tokenRule({
    id: 'langsmith-api-key',
    triggers: ['lsv2_'],
    pattern: 'lsv2_(?:pt|sk)_[a-f0-9]{32}',
    window: 42,
    tail: `${B62}_`,
  }),
  tokenRule({
    id: 'digitalocean-token',
    triggers: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    pattern: 'do[por]_v1_[a-f0-9]{64}',
    window: 72,
  }),
  tokenRule({
    id: 'newrelic-key',
    triggers: ['NRAK-', 'NRJS-', 'NRII-'],
    pattern: `NR(?:AK|JS|II)-[${B62}]{20}`,
    window: 26,
    tail: B62,
  }),
  tokenRule({ id: 'postman-api-key', triggers: ['PMAK-'], pattern: 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}', window: 65 }),
  tokenRule({
    id: 'doppler-token',
    triggers: ['dp.pt.', 'dp.st.', 'dp.ct.'],
    pattern: `dp\\.[psc]t\\.[${B62}]{40}`,
    window: 47,
    tail: B62,
  }),
  tokenRule({ id: 'pulumi-token', triggers: ['pul-'], pattern: 'pul-[a-f0-9]{40}', window: 45 }),
  tokenRule({
    id: 'age-secret-key',
    triggers: ['AGE-SECRET-KEY-1'],
    pattern: 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}',
    window: 75,
  }),
];
