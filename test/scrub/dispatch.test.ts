/**
 * The redactor's dispatch tables (lib/scrub/dispatch.ts), compiled from the rules' triggers: every
 * trigger must be found where it starts (a miss there is a secret that is never looked at), and
 * the invariants the scan loop relies on without testing them must hold. The redactor's own
 * tests (secret-redactor.test.ts) check what is redacted, whole and at every split.
 */
import { describe, expect, it } from 'vitest';
import { compileDispatch, type Dispatch } from '../../lib/scrub/dispatch.js';
import { exactValueRules } from '../../lib/scrub/env-secrets.js';
import { charClass, type SecretRule } from '../../lib/scrub/rule-types.js';
import { DEFAULT_RULES } from '../../lib/scrub/secret-rules.js';

const EXACT = exactValueRules([
  { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-bench-fake-key-0123456789' },
  { name: 'DB_PASSWORD', value: 'päss wörd/=+ "quoted"' },
  { name: 'UNICODE_SECRET', value: 'éclair-secret-value-42' },
  { name: 'MULTILINE_KEY', value: 'first line of key\nsecond line of key' },
]);

/** The spellings of a trigger the rule matches: as written, and lower/upper-cased when the rule ignores case. */
function spellings(rule: SecretRule, literal: string): string[] {
  return rule.ignoreCase ? [...new Set([literal, literal.toLowerCase(), literal.toUpperCase()])] : [literal];
}

/** Whether the tables let a scan at the start of `text` reach `rule`'s entry (the masks, then the entry list). */
function found(d: Dispatch, rule: SecretRule, text: string): boolean {
  const c1 = text.charCodeAt(0);
  if (c1 >= 128) return d.first[c1] === 1 && (d.high.get(c1) ?? []).some((e) => e.rule === rule);
  const c2 = text.length > 1 ? Math.min(text.charCodeAt(1), 127) : 0;
  const key = c1 * 128 + c2;
  if (!(d.pairs[key] ?? []).some((e) => e.rule === rule) || d.pairMask[key] === 0 || d.lastMask[c1] === 0) return false;
  if (text.length < 3) return true;
  return d.triMask[(d.pairSlot[key]! << 7) | Math.min(text.charCodeAt(2), 127)] !== 0;
}

/** A character of the rule's `next` class (what may follow a one-character trigger), else any. */
function nextChar(rule: SecretRule): string {
  const inClass = rule.next === undefined ? () => true : charClass(rule.next);
  for (let c = 0x21; c < 127; c++) if (inClass(c)) return String.fromCharCode(c);
  throw new Error(`${rule.id}: empty next class`);
}

describe('the compiled dispatch tables', () => {
  for (const [name, rules] of [
    ['default rules', DEFAULT_RULES],
    ['exact values of credential variables in front of the default rules', [...EXACT, ...DEFAULT_RULES]],
  ] as const) {
    it(`find every trigger of the ${name} where it starts, in every spelling the rule matches`, () => {
      const d = compileDispatch(rules);
      for (const rule of rules) {
        for (const literal of rule.triggers) {
          const tail = literal.length >= 3 ? '' : nextChar(rule).repeat(3 - literal.length);
          for (const text of spellings(rule, literal))
            expect(found(d, rule, text + tail), `${rule.id}: ${JSON.stringify(text)}`).toBe(true);
        }
      }
    });
  }

  it('keep slot 0 (every pair no trigger starts) all zero, which the scan reads without testing the slot', () => {
    for (const rules of [DEFAULT_RULES, [...EXACT, ...DEFAULT_RULES]]) {
      const slotZero = compileDispatch(rules).triMask.subarray(0, 128);
      expect(slotZero.every((v) => v === 0)).toBe(true);
    }
  });

  it('give a table of non-ASCII first units only to rules that have such triggers, and never write the shared empty one', () => {
    const plain = compileDispatch(DEFAULT_RULES);
    const withUnicode = compileDispatch([...EXACT, ...DEFAULT_RULES]);
    expect(plain.first.every((v) => v === 0)).toBe(true);
    expect(withUnicode.first).not.toBe(plain.first);
    expect(withUnicode.first['é'.charCodeAt(0)]).toBe(1);
    expect(compileDispatch(DEFAULT_RULES).first.every((v) => v === 0)).toBe(true);
  });

  it('refuse an empty trigger', () => {
    expect(() => compileDispatch([{ ...DEFAULT_RULES[0]!, triggers: [''] }])).toThrow(/empty trigger/);
  });
});
