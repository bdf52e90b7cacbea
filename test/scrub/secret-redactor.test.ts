import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildRuleTable, createRedactor, createTextRedactor, redactText } from '../../lib/scrub/secret-redactor.js';
import { DEFAULT_RULES } from '../../lib/scrub/secret-rules.js';
import { credentialSecretsFromEnv } from '../../lib/scrub/credential-rule.js';
import { HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { splitTextAt } from '../helpers/splits.js';
import { feed, leaks, readJsonl, type NegativeRow, type PositiveRow } from './corpus.js';

fixtureSkipNote();

describe.skipIf(!HAVE_FIXTURES)('the secret redactor on the shared secret corpus', () => {
  const positives = HAVE_FIXTURES ? readJsonl<PositiveRow>('positives.jsonl') : [];
  const negatives = HAVE_FIXTURES ? readJsonl<NegativeRow>('negatives.jsonl') : [];

  it('removes every positive span from the whole text', () => {
    const leaked = positives
      .filter((r) => leaks(redactText(r.text), r.secret))
      .map((r) => `${r.kind}: ${r.secret.slice(0, 24)}`);
    expect(leaked).toEqual([]);
    expect(positives.length).toBeGreaterThan(100);
  });

  it('keeps every negative mustKeep in the whole text', () => {
    const lost = negatives
      .filter((r) => !redactText(r.text).includes(r.mustKeep))
      .map((r) => `${r.kind}/${r.tier}: ${r.mustKeep.slice(0, 40)}`);
    expect(lost).toEqual([]);
  });

  it('gives the whole-text output at every two-way split offset of every row', () => {
    const failures: string[] = [];
    for (const r of [...positives, ...negatives]) {
      const whole = redactText(r.text);
      for (let k = 0; k <= r.text.length; k++) {
        if (feed(createRedactor(), [r.text.slice(0, k), r.text.slice(k)]) !== whole) {
          failures.push(`${r.kind} @${k}`);
          break;
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('gives the whole-text output when fed one character at a time', () => {
    const failures = [...positives, ...negatives]
      .filter((r) => feed(createRedactor(), [...r.text]) !== redactText(r.text))
      .map((r) => r.kind);
    expect(failures).toEqual([]);
  });

  it('is idempotent: its markers never trigger a rule', () => {
    const failures = positives.filter((r) => redactText(redactText(r.text)) !== redactText(r.text)).map((r) => r.kind);
    expect(failures).toEqual([]);
  });

  it('leaks no positive and drops no mustKeep at random multi-way splits (property)', () => {
    const rows = [
      ...positives.map((r) => ({ text: r.text, secret: r.secret })),
      ...negatives.map((r) => ({ text: r.text, keep: r.mustKeep })),
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: rows.length - 1 }),
        fc.array(fc.nat(4000), { minLength: 2, maxLength: 7 }),
        (index, cuts) => {
          const row = rows[index]!;
          const out = feed(
            createRedactor(),
            splitTextAt(
              row.text,
              cuts.map((c) => c % (row.text.length + 1)),
            ),
          );
          expect(out).toBe(redactText(row.text));
          if ('secret' in row) expect(leaks(out, row.secret)).toBe(false);
          else expect(out).toContain(row.keep);
        },
      ),
      { numRuns: 500 },
    );
  });
});

// Hand-made cases (ours): fake values built at run time in the published formats.
describe('the secret redactor', () => {
  const ghp = 'ghp_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
  const aws = 'AKIA' + 'Q3EXAMPLEZ7WQ2M4';
  const ant = 'sk-ant-api03-' + 'x9Yb'.repeat(23) + 'AA';
  const jwt = [
    'eyJhbGciOiJIUzI1NiJ9',
    'eyJzdWIiOiIxMjM0NTY3ODkwIn0',
    'dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  ].join('.');

  it('replaces a vendor token with a marker that names its kind', () => {
    expect(redactText(`token ${ghp} end`)).toBe('token [REDACTED:github-token] end');
    expect(redactText(`id=${aws};`)).toBe('id=[REDACTED:aws-access-key-id];');
    expect(redactText(`key ${ant}\n`)).toBe('key [REDACTED:anthropic-api-key]\n');
    expect(redactText(`Bearer-less ${jwt}`)).toBe('Bearer-less [REDACTED:jwt]');
  });

  it('redacts only the value of a secret-named assignment', () => {
    expect(redactText('DB_PASSWORD = "s3cr3t-v4lue"')).toBe('DB_PASSWORD = "[REDACTED:password]"');
    expect(redactText('{"client_secret": "abc123def456"}')).toBe('{"client_secret": "[REDACTED:secret]"}');
    expect(redactText('token_count: 4096, password_file=/etc/pw, secret: ${{ secrets.X }}')).toBe(
      'token_count: 4096, password_file=/etc/pw, secret: ${{ secrets.X }}',
    );
  });

  it('redacts passwords in URLs and curl -u but not ports or placeholders', () => {
    expect(redactText('postgres://app:Pa55-w0rd@db:5432/x')).toBe('postgres://app:[REDACTED:url-password]@db:5432/x');
    expect(redactText('curl -u admin:hunter22 https://x')).toBe(
      'curl -u admin:[REDACTED:basic-auth-password] https://x',
    );
    expect(redactText('http://localhost:8080/a and mysql://u:${PW}@h')).toBe(
      'http://localhost:8080/a and mysql://u:${PW}@h',
    );
  });

  it('turns a private-key block into one marker while it streams, without holding the block', () => {
    const body = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n'.repeat(40);
    const pem = `-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----`;
    const r = createRedactor();
    const outs = [
      r.push('before\n' + pem.slice(0, 40)),
      ...[...pem.slice(40)].map((ch) => r.push(ch)),
      r.push('\nafter'),
      r.end(),
    ];
    expect(outs.join('')).toBe('before\n[REDACTED:private-key]\nafter');
    // Nothing of the block was held: every push inside it returned at once.
    expect(outs[0]).toBe('before\n[REDACTED:private-key]');
  });

  it('redacts a key block that never ends, to the end of the input (fail closed)', () => {
    expect(redactText('x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc')).toBe('x\n[REDACTED:private-key]');
  });

  it('holds back only from the start of a possible match', () => {
    const r = createRedactor();
    expect(r.push('plain text then gh')).toBe('plain text then ');
    expect(r.push(ghp.slice(2, 20))).toBe('');
    // The final `r` ends a word, and every trigger starting with `r` (`rk_live_`, `r8_`) must
    // start one: nothing waits.
    expect(r.push(ghp.slice(20) + ' after')).toBe('[REDACTED:github-token] after');
    // A final `s` after a space could still start `secret = ...`: it waits for the next chunk.
    expect(r.push(' and s')).toBe(' and ');
    expect(r.end()).toBe('s');
  });

  it('drops the whole tail of a token longer than its format (fail closed)', () => {
    expect(redactText(`${ghp}${'Z'.repeat(500)} x`)).toBe('[REDACTED:github-token] x');
  });

  it('redacts a prefix-matched but short token at the end of the stream only when its format says so', () => {
    expect(redactText('see ghp_short')).toBe('see ghp_short');
    expect(redactText('key sk-ant-api03-abcdefghijklmnopqrstuv')).toBe('key [REDACTED:anthropic-api-key]');
  });

  it('masks the exact values of credential environment variables', () => {
    const secrets = credentialSecretsFromEnv({
      MY_SERVICE_TOKEN: 'plain-looking-value-1',
      HOME: '/home/me',
      SHORT_TOKEN: 'abc',
      DB_PASSWORD: 'correct horse',
    });
    expect(secrets.map((s) => s.name).sort()).toEqual(['DB_PASSWORD', 'MY_SERVICE_TOKEN']);
    const text = 'got plain-looking-value-1 and correct horse, home /home/me';
    expect(redactText(text, { secrets })).toBe(
      'got [REDACTED:env:MY_SERVICE_TOKEN] and [REDACTED:env:DB_PASSWORD], home /home/me',
    );
    const base64 = Buffer.from('plain-looking-value-1').toString('base64').replace(/=+$/, '');
    expect(redactText(`b64 ${base64}`, { secrets })).toBe('b64 [REDACTED:env:MY_SERVICE_TOKEN]');
  });

  it('keeps look-alikes: git SHAs, UUIDs, integrity hashes, publishable keys', () => {
    const text = [
      'commit 0123456789abcdef0123456789abcdef01234567',
      'id 123e4567-e89b-12d3-a456-426614174000',
      'integrity sha512-9ByhssR2fPVsNZj478qUUbKfmL0+t5BDVyjShtyZZLiK7ZDAArFFfopy==',
      'pk_live_' + 'j5krY8XTgIcDaHDb3YrsAfCl',
      'uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8',
    ].join('\n');
    expect(redactText(text)).toBe(text);
  });

  it('gives the same output for any chunking of hand-made text (property)', () => {
    const pieces = fc.constantFrom(
      ghp,
      aws,
      jwt,
      'password: "hunter2x"',
      ' ',
      '\n',
      'https://u:p4ss@h/',
      'gh',
      'sk-',
      '-----BEGIN EC PRIVATE KEY-----\nAAA\n-----END EC PRIVATE KEY-----',
      'text',
      '"',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), fc.array(fc.nat(400), { maxLength: 8 }), (parts, cuts) => {
        const text = parts.join(' ');
        const out = feed(createRedactor(), splitTextAt(text, cuts));
        expect(out).toBe(redactText(text));
        expect(out).not.toContain(ghp);
        expect(out).not.toContain(aws);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the whole-string redactor (the scrub stage's fast path)", () => {
  const secrets = [{ name: 'OPENAI_API_KEY', value: 'sk-test-0123456789abcdefghijklmnopqrstuv' }];
  const rules = buildRuleTable(secrets, DEFAULT_RULES);
  const whole = createTextRedactor(rules);

  it.skipIf(!HAVE_FIXTURES)("gives redactText's output on every row of the shared secret corpus", () => {
    const rows = [...readJsonl<PositiveRow>('positives.jsonl'), ...readJsonl<NegativeRow>('negatives.jsonl')];
    const failures = rows.filter((r) => whole(r.text) !== redactText(r.text, { rules })).map((r) => r.kind);
    expect(failures).toEqual([]);
  });

  it("gives redactText's output on ids, hex words, trigger characters at the very end and real secrets (property)", () => {
    const ghp = 'ghp_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
    const pieces = fc.constantFrom(
      ghp,
      secrets[0]!.value,
      'msg_01ALwQ87pTS7hH1PjSdC9wJD',
      'deadbeef',
      'added',
      'call_ab12',
      'a',
      '1',
      'M',
      'Mx_',
      '|a',
      '=Ab',
      'cab',
      'sk',
      'gh',
      'd',
      's.',
      'password: "hunter2x"',
      'https://u:p4ss@h/',
      '[REDACTED:x]',
      '-----BEGIN EC PRIVATE KEY-----\nAAA',
      ' ',
      '\n',
      '"',
      'text',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 10 }), fc.constantFrom('', ' ', '-', '_'), (parts, sep) => {
        const text = parts.join(sep);
        expect(whole(text)).toBe(redactText(text, { rules }));
      }),
      { numRuns: 1000 },
    );
  });

  it('returns a string without a secret as the same string', () => {
    expect(whole('completed')).toBe('completed');
    expect(whole('')).toBe('');
  });
});
