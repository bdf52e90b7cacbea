/**
 * The redactor's dispatch tables: which rules may start at a pair (and triple) of code units,
 * compiled from the rules' trigger literals (see secret-redactor.ts for the loop that reads them).
 */
import { charClass, type SecretRule } from './rule-types.js';

/** One trigger literal of one rule. */
export interface Entry {
  rule: SecretRule;
  literal: string;
  ignoreCase: boolean;
  boundary: boolean;
}

/** The compiled dispatch: which rules may start at a character pair. */
export interface Dispatch {
  /**
   * By code unit, non-zero for every non-ASCII unit that starts some trigger (an exact value's
   * first character); ASCII units are decided by the pair and triple masks. One shared all-zero
   * array when no trigger starts with a non-ASCII unit, as with the default rules.
   */
  first: Uint8Array;
  /**
   * The triple mask, by `pairSlot[c1 << 7 | c2] << 7 | c3` for ASCII units: 0 = no trigger
   * starts with the triple, 1 = some trigger does, 2 = only triggers that need a word boundary
   * before them (skipped inside words at once). Three characters make `se` of `use` or `to` of
   * `tool` no candidate. Slot 0 is every pair no trigger starts with, most of them, and
   * its row stays all zero (the scan loops read it without testing the slot: keep it so).
   *
   * Compact on purpose (a row per pair some trigger starts with, not a full table by
   * `c1 << 14 | c2 << 7 | c3`): in the pipeline the other stages evict the tables between
   * events, and the reads of a large table would miss the caches and the TLB.
   */
  triMask: Uint8Array;
  pairSlot: Uint16Array;
  /** Entries by `c1 * 128 + c2` for ASCII c1 (c2 >= 127 and end-of-text share bucket 127/0). */
  pairs: (Entry[] | undefined)[];
  /**
   * The masks of the last two positions of a text, where no triple exists (values as in
   * `triMask`; a non-ASCII unit is read from `first`). `pairMask` by `c1 * 128 + c2`: the
   * pair's own entries, for the last-but-one unit. `lastMask` by ASCII unit: every entry
   * starting with it, for the last unit of a chunk (any text may follow). `endMask` by ASCII
   * unit: the end-of-text entries only, for the last unit of a whole text.
   * They let `scan` skip what `evaluate` would answer `none` for whatever follows: most
   * strings end in a letter or digit that starts some trigger, and deciding it was most of the
   * candidates of the pipeline corpus.
   */
  pairMask: Uint8Array;
  lastMask: Uint8Array;
  endMask: Uint8Array;
  /** Entries whose first code unit is not ASCII (exact values), by first code unit. */
  high: Map<number, Entry[]>;
}

/** The pair bucket of the end of text (a one-character trigger as the last unit). */
export const END_BUCKET = 0;

/** A set of ASCII units as half-open ranges, flattened: `[from, to, from, to, ...]`. */
type Runs = readonly number[];

/** Every ASCII unit (bucket 127 standing for the rest). */
const ALL_UNITS: Runs = [0, 128];

/** What the rules' triggers put in the tables, before any table is allocated. */
interface Collected {
  /** Entries by ASCII pair key, in rule order. */
  pairs: Map<number, Entry[]>;
  high: Map<number, Entry[]>;
  /** The keys that need a slot, in the order they first came up. */
  slotted: number[];
  /** The triples to mark: the pair's key, the third units and whether the entry needs a boundary. */
  marks: { key: number; thirds: Runs; boundary: boolean }[];
}

function caseVariants(ch: string, ignoreCase: boolean): number[] {
  if (!ignoreCase) return [ch.charCodeAt(0)];
  const set = new Set([ch.toLowerCase().charCodeAt(0), ch.toUpperCase().charCodeAt(0)]);
  return [...set];
}

function collect(rules: readonly SecretRule[]): Collected {
  const out: Collected = { pairs: new Map(), high: new Map(), slotted: [], marks: [] };
  const slotted = new Set<number>();
  for (const rule of rules) {
    const ignoreCase = rule.ignoreCase ?? false;
    // After a one-character trigger, `next` holds for the next two characters (bucket 127 is
    // every non-ASCII unit too, so it always stays; triples never see the end of text).
    let following: number[] | undefined;
    let followingRuns: Runs | undefined;
    for (const literal of rule.triggers) {
      if (literal.length === 0) throw new Error(`secret rule ${rule.id}: empty trigger`);
      const entry: Entry = {
        rule,
        literal: ignoreCase ? literal.toLowerCase() : literal,
        ignoreCase,
        boundary: rule.boundary ?? false,
      };
      if (literal.length === 1 && following === undefined) {
        following = followingUnits(rule.next);
        followingRuns = runsOf(following);
      }
      for (const c1 of caseVariants(literal[0] as string, ignoreCase)) {
        if (c1 >= 128) {
          const list = out.high.get(c1) ?? [];
          list.push(entry);
          out.high.set(c1, list);
          continue;
        }
        const seconds =
          literal.length > 1
            ? caseVariants(literal[1] as string, ignoreCase).map((c) => Math.min(c, 127))
            : [...new Set([...(following as number[]), END_BUCKET])];
        const thirds =
          literal.length > 2
            ? runsOf(caseVariants(literal[2] as string, ignoreCase).map((c) => Math.min(c, 127)))
            : literal.length === 1
              ? (followingRuns as Runs)
              : ALL_UNITS;
        for (const c2 of seconds) {
          const key = c1 * 128 + c2;
          const list = out.pairs.get(key);
          if (list) list.push(entry);
          else out.pairs.set(key, [entry]);
          if (thirds.length > 0 && !slotted.has(key)) {
            slotted.add(key);
            out.slotted.push(key);
          }
          out.marks.push({ key, thirds, boundary: entry.boundary });
        }
      }
    }
  }
  return out;
}

/** {@link Dispatch.first} of every dispatch without non-ASCII triggers; never written. */
const NO_HIGH_UNITS = new Uint8Array(65536);

/** Compile the dispatch of a rule table from its triggers. */
export function compileDispatch(rules: readonly SecretRule[]): Dispatch {
  const c = collect(rules);
  const pairSlot = new Uint16Array(128 * 128);
  let slots = 1;
  for (const key of c.slotted) pairSlot[key] = slots++;
  const triMask = new Uint8Array(slots * 128);
  // A triple is 1 when a trigger without a word boundary starts with it, else 2 when one with a
  // boundary does: marking every boundary triple first and then the others gives that by plain
  // overwrites, so each run of third units is one native fill instead of a write per unit.
  for (const m of c.marks) if (m.boundary) fillRuns(triMask, (pairSlot[m.key] as number) << 7, m.thirds, 2);
  for (const m of c.marks) if (!m.boundary) fillRuns(triMask, (pairSlot[m.key] as number) << 7, m.thirds, 1);
  const pairs: (Entry[] | undefined)[] = new Array(128 * 128);
  const pairMask = new Uint8Array(128 * 128);
  const lastMask = new Uint8Array(128);
  const endMask = new Uint8Array(128);
  for (const [key, entries] of c.pairs) {
    const c1 = key >> 7;
    pairs[key] = entries;
    pairMask[key] = boundaryMask(entries, 0);
    lastMask[c1] = boundaryMask(entries, lastMask[c1] as number);
    if ((key & 127) === END_BUCKET) endMask[c1] = boundaryMask(entries, 0);
  }
  let first = NO_HIGH_UNITS;
  if (c.high.size > 0) {
    first = new Uint8Array(65536);
    for (const unit of c.high.keys()) first[unit] = 1;
  }
  return { first, triMask, pairSlot, pairs, high: c.high, pairMask, lastMask, endMask };
}

/** Merge `entries` into a mask value: 1 if one of them needs no word boundary, else 2 (0 stays for none). */
function boundaryMask(entries: readonly Entry[], mask: number): number {
  for (const e of entries) mask = !e.boundary || mask === 1 ? 1 : 2;
  return mask;
}

/** The ranges of the units in `units`. */
function runsOf(units: readonly number[]): Runs {
  const sorted = [...new Set(units)].sort((a, b) => a - b);
  const runs: number[] = [];
  for (const c of sorted) {
    if (runs.length > 0 && runs[runs.length - 1] === c) runs[runs.length - 1] = c + 1;
    else runs.push(c, c + 1);
  }
  return runs;
}

/** The units that may follow a one-character trigger: those of its `next` class, and 127. */
function followingUnits(next: string | undefined): number[] {
  const inClass = next === undefined ? undefined : charClass(next);
  const units: number[] = [];
  for (let c = 0; c < 128; c++) if (inClass === undefined || inClass(c) || c === 127) units.push(c);
  return units;
}

/** Set `value` at `base | c3` for every `c3` of `runs`. */
function fillRuns(triMask: Uint8Array, base: number, runs: Runs, value: number): void {
  for (let i = 0; i < runs.length; i += 2)
    triMask.fill(value, base + (runs[i] as number), base + (runs[i + 1] as number));
}
