/**
 * The redactor's dispatch tables three ways (lib/scrub/dispatch.ts): compiled from the rules,
 * unpacked from the tables shipped for the default rules, and with rules laid in front of those
 * of a compiled base. Each must give the redactor the same tables as compiling the whole rule list.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileDispatch, layerDispatch, packDispatch, rulesFingerprint, unpackDispatch, type Dispatch, type Entry } from '../../lib/scrub/dispatch.js';
import { DEFAULT_DISPATCH } from '../../lib/scrub/default-dispatch.js';
import { exactValueRules } from '../../lib/scrub/env-secrets.js';
import type { SecretRule } from '../../lib/scrub/rule-types.js';
import { DEFAULT_RULES } from '../../lib/scrub/secret-rules.js';
import { scrubDispatchModule } from '../../scripts/gen-scrub-dispatch.js';

/** An entry as comparable data: its rule's position in `rules`, its literal and flags. */
function entryData(rules: readonly SecretRule[], e: Entry): unknown[] {
  return [rules.indexOf(e.rule), e.literal, e.ignoreCase, e.boundary];
}

/**
 * What the redactor reads from a dispatch, independent of how slots are numbered: the triple
 * mask by `c1 << 14 | c2 << 7 | c3`, every entry list and every other mask.
 */
function effective(d: Dispatch, rules: readonly SecretRule[]): { triples: Buffer; pairs: unknown[]; high: unknown[]; masks: Buffer[] } {
  const triples = Buffer.alloc(1 << 21);
  for (let key = 0; key < 1 << 14; key++) {
    const slot = d.pairSlot[key]!;
    if (slot !== 0) triples.set(d.triMask.subarray(slot << 7, (slot + 1) << 7), key << 7);
  }
  expect(d.triMask.subarray(0, 128).every((v) => v === 0)).toBe(true);
  const pairs: unknown[] = [];
  for (let key = 0; key < 1 << 14; key++) pairs.push(d.pairs[key]?.map((e) => entryData(rules, e)) ?? null);
  const high = [...d.high].sort((a, b) => a[0] - b[0]).map(([unit, list]) => [unit, list.map((e) => entryData(rules, e))]);
  return { triples, pairs, high, masks: [d.first, d.pairMask, d.lastMask, d.endMask].map((m) => Buffer.from(m.buffer, m.byteOffset, m.byteLength)) };
}

function expectSameTables(actual: Dispatch, expected: Dispatch, rules: readonly SecretRule[]): void {
  const a = effective(actual, rules);
  const e = effective(expected, rules);
  expect(a.triples.equals(e.triples)).toBe(true);
  expect(a.pairs).toEqual(e.pairs);
  expect(a.high).toEqual(e.high);
  for (let i = 0; i < a.masks.length; i++) expect(a.masks[i]!.equals(e.masks[i]!), `mask ${i}`).toBe(true);
}

const bytes = (m: Uint8Array | Uint16Array): Buffer => Buffer.from(m.buffer, m.byteOffset, m.byteLength);

describe('the dispatch tables shipped for the default rules', () => {
  it('are what the generator writes from the current rules (run `npm run build && node dist/scripts/gen-scrub-dispatch.js`)', () => {
    expect(fs.readFileSync(new URL('../../lib/scrub/default-dispatch.ts', import.meta.url), 'utf8')).toBe(scrubDispatchModule());
    expect(DEFAULT_DISPATCH.fingerprint).toBe(rulesFingerprint(DEFAULT_RULES));
  });

  it('unpack to exactly the tables the default rules compile to, byte for byte and entry for entry', () => {
    const shipped = unpackDispatch(DEFAULT_DISPATCH, DEFAULT_RULES)!;
    const compiled = compileDispatch(DEFAULT_RULES);
    for (const name of ['first', 'triMask', 'pairSlot', 'pairMask', 'lastMask', 'endMask'] as const) expect(bytes(shipped[name]).equals(bytes(compiled[name])), name).toBe(true);
    const lists = (d: Dispatch): unknown[] => d.pairs.map((list) => list?.map((e) => entryData(DEFAULT_RULES, e)));
    expect(lists(shipped)).toEqual(lists(compiled));
    expect(shipped.pairs.length).toBe(compiled.pairs.length);
    expect([...shipped.high]).toEqual([...compiled.high]);
  });

  it('are refused for rules they were not compiled from, so the caller compiles those', () => {
    const changed = DEFAULT_RULES.map((r, i) => (i === 3 ? { ...r, triggers: [...r.triggers, 'zzq_'] } : r));
    expect(unpackDispatch(DEFAULT_DISPATCH, changed)).toBeUndefined();
    expect(unpackDispatch(DEFAULT_DISPATCH, DEFAULT_RULES.slice(1))).toBeUndefined();
    expect(unpackDispatch(packDispatch(changed), changed)).toBeDefined();
  });
});

describe('a dispatch with rules laid in front of those it was compiled from', () => {
  const base = (): Dispatch => unpackDispatch(DEFAULT_DISPATCH, DEFAULT_RULES)!;

  it('equals compiling the whole table, for the exact values of credential variables', () => {
    const extra = exactValueRules([
      { name: 'ANTHROPIC_API_KEY', value: 'sk-ant-bench-fake-key-0123456789' },
      { name: 'SERVICE_TOKEN', value: 'ghp_' + 'a1B2'.repeat(9) },
      { name: 'DB_PASSWORD', value: 'päss wörd/=+ "quoted"' },
      { name: 'UNICODE_SECRET', value: 'éclair-secret-value-42' },
      { name: 'MULTILINE_KEY', value: 'first line of key\nsecond line of key' },
    ]);
    expect(extra.length).toBeGreaterThan(5);
    const rules = [...extra, ...DEFAULT_RULES];
    expectSameTables(layerDispatch(base(), extra), compileDispatch(rules), rules);
    // The non-ASCII first unit got a table of its own: the one shared by dispatches without any stays all zero.
    expect(base().first.every((v) => v === 0)).toBe(true);
  });

  it('equals compiling the whole table when the rules in front need case folding, word boundaries or one-character triggers', () => {
    for (const k of [1, 17, 60, DEFAULT_RULES.length - 1]) {
      const layered = layerDispatch(compileDispatch(DEFAULT_RULES.slice(k)), DEFAULT_RULES.slice(0, k));
      expectSameTables(layered, compileDispatch(DEFAULT_RULES), DEFAULT_RULES);
    }
  });
});
