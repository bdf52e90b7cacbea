/**
 * Exact-value masking of credentials known at start-up, as CI runners do (GitHub Actions'
 * SecretMasker masks every registered value and its common encodings): if the value of
 * `OPENAI_API_KEY` appears anywhere in the output, whatever its shape, it is replaced by
 * `[REDACTED:env:OPENAI_API_KEY]`. Which variables are credentials is decided by
 * `lib/scrub/credential-rule.ts` (`credentialSecretsFromEnv`); this module turns their values
 * into rules.
 */
import type { Decision, SecretRule } from './rule-types.js';

/** A secret value to mask exactly, with the name shown in its marker. */
export interface NamedSecret {
  name: string;
  value: string;
}

/** Values shorter than this are not masked: too many false hits (`true`, `8080`, ...). Default 8. */
export const MIN_SECRET_VALUE_LENGTH = 8;

/** Longest exact form matched whole (the redactor's holdback bound is 4096). Default 2048. */
export const MAX_SECRET_FORM_LENGTH = 2048;

/** The forms in which a value may appear in output: raw, JSON-escaped, URL-encoded, base64, per line. */
function encodings(value: string): string[] {
  const forms = new Set<string>([value]);
  forms.add(JSON.stringify(value).slice(1, -1));
  forms.add(encodeURIComponent(value));
  forms.add(Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, ''));
  // Multi-line values (keys, certificates) are also masked line by line, like the Actions runner.
  if (value.includes('\n'))
    for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_SECRET_VALUE_LENGTH) forms.add(line.trim());
  // Longer forms stay masked line by line; a 2 KiB literal would hold too much text back.
  return [...forms].filter((f) => f.length >= MIN_SECRET_VALUE_LENGTH && f.length <= MAX_SECRET_FORM_LENGTH);
}

/** One rule per distinct form of each secret, longest first so a longer form wins over its prefix. */
export function exactValueRules(secrets: readonly NamedSecret[]): SecretRule[] {
  const forms: { name: string; form: string }[] = [];
  const seen = new Set<string>();
  for (const { name, value } of secrets) {
    if (value.length < MIN_SECRET_VALUE_LENGTH) continue;
    for (const form of encodings(value)) {
      if (seen.has(form)) continue;
      seen.add(form);
      forms.push({ name, form });
    }
  }
  forms.sort((a, b) => b.form.length - a.form.length);
  return forms.map(({ name, form }) => ({
    id: 'env-value',
    triggers: [form],
    // The dispatch has already compared the whole literal: this is a decided match.
    decide: (_s: string, p: number): Decision => ({
      kind: 'match',
      redactStart: p,
      redactEnd: p + form.length,
      label: `env:${name}`,
    }),
  }));
}
