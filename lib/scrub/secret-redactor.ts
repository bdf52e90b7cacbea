/**
 * Streaming secret redactor: text in, text with every secret replaced by `[REDACTED:<kind>]`.
 *
 * How it stays fast: no rule regex runs over the text. One loop looks at each character once
 * through a first-character table; only where a trigger's first two characters appear
 * (`gh`, `sk`, `-----`, `pa` of password, ...) does it compare the trigger literal, and only
 * when the literal is there does the rule's own sticky regex or detector run, anchored there.
 *
 * How it stays correct across chunks: text is emitted as soon as it cannot be the start of a
 * secret. From a candidate position on, text is held until every rule triggered there has
 * decided; each rule looks at a bounded window (see `rule-types.ts`), so a decision never
 * depends on where the chunks were cut, and `redactText(s)` equals any chunked run. Once a
 * match is decided the marker is emitted at once and the rest of the token (or a whole
 * private-key block) is dropped as it streams past, without being buffered. If a candidate
 * is still undecided when `maxHoldback` characters are held, the held text is redacted
 * (fail closed); with the default rules this bound is never reached.
 */
import { DEFAULT_RULES } from './secret-rules.js';
import { LEFT_CONTEXT, NONE, isWordChar, type Decision, type SecretRule, type Suppress } from './rule-types.js';
import { exactValueRules, type NamedSecret } from './env-secrets.js';
import { compileDispatch, END_BUCKET, type Dispatch, type Entry } from './dispatch.js';

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** The rule table; default {@link DEFAULT_RULES}. */
  rules?: readonly SecretRule[];
  /** Exact values to mask wherever they appear (credential env values); default none. */
  secrets?: readonly NamedSecret[];
  /** Most characters held for one undecided candidate before failing closed; default 4096. */
  maxHoldback?: number;
  /** Longest private-key block dropped before scanning resumes; default 65536. */
  maxSuppressedBlock?: number;
}

/** A push redactor. */
export interface Redactor {
  push(text: string): string;
  end(): string;
}

const compiled = new WeakMap<readonly SecretRule[], Dispatch>();

/** Compile a rule table once; later redactors over the same array reuse it. */
function compileCached(rules: readonly SecretRule[]): Dispatch {
  let d = compiled.get(rules);
  if (d === undefined) {
    d = compileDispatch(rules);
    compiled.set(rules, d);
  }
  return d;
}

/**
 * The full rule table for a set of exact secrets: build it once and pass it as `rules` to
 * every redactor (one per stream channel) so the dispatch is compiled only once.
 */
export function buildRuleTable(
  secrets: readonly NamedSecret[],
  rules: readonly SecretRule[] = DEFAULT_RULES,
): readonly SecretRule[] {
  if (secrets.length === 0) return rules;
  // The same secrets again (every session of a batch or benchmark): no key string to build.
  if (rules === lastTable.rules && sameSecrets(secrets, lastTable.secrets)) return lastTable.table;
  // Same secrets and rules, same table (and so the same compiled dispatch): a batch run opens
  // one scrubber per session, and compiling the dispatch for each would cost more than scrubbing
  // a short session. Bounded: a process sees very few distinct sets.
  let bySecrets = tables.get(rules);
  if (bySecrets === undefined) tables.set(rules, (bySecrets = new Map()));
  const key = secrets.map((s) => `${s.name}\u0000${s.value}`).join('\u0000');
  let table = bySecrets.get(key);
  if (table === undefined) {
    if (bySecrets.size >= MAX_CACHED_TABLES) bySecrets.clear();
    const extra = exactValueRules(secrets);
    table = [...extra, ...rules];
    bySecrets.set(key, table);
  }
  lastTable = { rules, secrets: secrets.map((x) => ({ name: x.name, value: x.value })), table };
  return table;
}

/** The last table built or found, with a copy of its secrets (the caller's array may change). */
let lastTable: {
  rules: readonly SecretRule[] | undefined;
  secrets: readonly NamedSecret[];
  table: readonly SecretRule[];
} = { rules: undefined, secrets: [], table: [] };

function sameSecrets(a: readonly NamedSecret[], b: readonly NamedSecret[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]?.name !== b[i]?.name || a[i]?.value !== b[i]?.value) return false;
  return true;
}

/** Rule tables built by {@link buildRuleTable}, by base rules then by secret set; at most 16 sets per base. */
const tables = new WeakMap<readonly SecretRule[], Map<string, readonly SecretRule[]>>();
const MAX_CACHED_TABLES = 16;

/** Compare `entry.literal` at `j`: 1 = present, 0 = absent, -1 = cut off by the end of `s`. */
function literalAt(s: string, j: number, entry: Entry): number {
  const lit = entry.literal;
  const n = s.length;
  for (let k = 0; k < lit.length; k++) {
    if (j + k >= n) return -1;
    let c = s.charCodeAt(j + k);
    if (entry.ignoreCase && c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== lit.charCodeAt(k)) return 0;
  }
  return 1;
}

const PENDING_AT_LITERAL: Decision = { kind: 'pending' };

/** Default of {@link RedactorOptions.maxHoldback}. */
const DEFAULT_MAX_HOLDBACK = 4096;

/**
 * The hot loop: the index of the next position where some trigger may start, or `n`. Reads
 * each code unit once (the pair's second unit is carried over) and filters on the pair table,
 * so ordinary text never leaves this loop. Kept small so that it is optimised on its own.
 * `lastMask` is the mask of the final unit: `lastMask` in a chunk, `endMask` in a whole text;
 * `prev` is the code unit before `s[0]` (0 for none), for the word-boundary test at 0.
 */
function scan(s: string, from: number, n: number, d: Dispatch, lastMask: Uint8Array, prev: number): number {
  const { first, triMask, pairSlot } = d;
  const stop = n - 2;
  let c1 = from < n ? s.charCodeAt(from) : 0;
  let c2 = from + 1 < n ? s.charCodeAt(from + 1) : 0;
  let j = from;
  for (; j < stop; j++) {
    const c3 = s.charCodeAt(j + 2);
    if (c1 < 128) {
      // No test of the slot: slot 0's row of the triple mask is all zero (see scanLong).
      const mask = triMask[((pairSlot[(c1 << 7) | (c2 > 127 ? 127 : c2)] as number) << 7) | (c3 > 127 ? 127 : c3)];
      if (mask !== 0 && (mask === 1 || (mask === 2 && !isWordChar(j === 0 ? prev : s.charCodeAt(j - 1))))) return j;
    } else if (first[c1] !== 0) {
      return j;
    }
    c1 = c2;
    c2 = c3;
  }
  // The last two units, which no triple covers: the exact pair, or for the last unit what may
  // start with it. Anything these masks let through is decided (or held) by evaluate().
  if (j < n && j === n - 2) {
    const c = s.charCodeAt(j);
    const mask = c < 128 ? d.pairMask[c * 128 + Math.min(s.charCodeAt(j + 1), 127)] : first[c];
    if (mask === 1 || (mask === 2 && !isWordChar(j === 0 ? prev : s.charCodeAt(j - 1)))) return j;
    j++;
  }
  if (j < n) {
    const c = s.charCodeAt(j);
    const mask = c < 128 ? lastMask[c] : first[c];
    if (mask === 1 || (mask === 2 && !isWordChar(j === 0 ? prev : s.charCodeAt(j - 1)))) return j;
  }
  return n;
}

/** Shortest remainder scanned as bytes (below it the copy costs more than it saves). */
const BYTE_SCAN_MIN = 48;
/** Longest text copied into the byte scratch (a bound on the memory it keeps). */
const BYTE_SCAN_MAX = 1 << 20;
const encoder = new TextEncoder();
/** The scratch: the code units of `bytesOf` when `bytesAscii`. */
let bytes = new Uint8Array(4096);
let bytesOf: string | undefined;
let bytesAscii = false;

/**
 * {@link scan} for long texts: an all-ASCII text is copied once into a byte array by the
 * native UTF-8 encoder (its bytes are then its code units) and scanned there, which is about
 * twice as fast as `charCodeAt` over strings of mixed representation (sliced, cons, internal)
 * as they come from the decoders. Later calls on the same text (after a candidate) reuse the
 * copy. Same result as `scan`: the same triple test, and the last two units are left to it.
 */
function scanLong(s: string, from: number, n: number, d: Dispatch, lastMask: Uint8Array, prev: number): number {
  if (n - from < BYTE_SCAN_MIN || n > BYTE_SCAN_MAX) return scan(s, from, n, d, lastMask, prev);
  if (bytesOf !== s) {
    if (bytes.length < n) bytes = new Uint8Array(Math.min(BYTE_SCAN_MAX, Math.max(n, 2 * bytes.length)));
    const r = encoder.encodeInto(s, bytes);
    bytesOf = s;
    bytesAscii = r.read === n && r.written === n;
  }
  if (!bytesAscii) return scan(s, from, n, d, lastMask, prev);
  const b = bytes;
  const { triMask, pairSlot } = d;
  const stop = n - 2;
  let c1 = b[from] as number;
  let c2 = b[from + 1] as number;
  let j = from;
  for (; j < stop; j++) {
    const c3 = b[j + 2] as number;
    // The triple mask is read without testing the pair's slot first: slot 0 (no trigger starts
    // with the pair) has an all-zero row, and the test would be a branch taken at random
    // positions of prose, so mispredicted often.
    const mask = triMask[((pairSlot[(c1 << 7) | c2] as number) << 7) | c3];
    if (mask !== 0 && (mask === 1 || (mask === 2 && !isWordChar(j === 0 ? prev : (b[j - 1] as number))))) return j;
    c1 = c2;
    c2 = c3;
  }
  return scan(s, j, n, d, lastMask, prev);
}

/** Ask every rule triggered at `j` of `s` for its decision; the first that is not `none` wins. */
function evaluate(dispatch: Dispatch, s: string, j: number, ended: boolean): Decision {
  const c1 = s.charCodeAt(j);
  let entries: Entry[] | undefined;
  if (c1 >= 128) entries = dispatch.high.get(c1);
  else if (j + 1 < s.length) entries = dispatch.pairs[c1 * 128 + Math.min(s.charCodeAt(j + 1), 127)];
  else if (!ended)
    return PENDING_AT_LITERAL; // the pair is cut by the chunk end
  else entries = dispatch.pairs[c1 * 128 + END_BUCKET];
  if (entries === undefined) return NONE;
  for (const entry of entries) {
    if (entry.boundary && j > 0 && isWordChar(s.charCodeAt(j - 1))) continue;
    const at = literalAt(s, j, entry);
    if (at === 0) continue;
    if (at === -1) {
      if (ended) continue;
      return PENDING_AT_LITERAL;
    }
    const d = entry.rule.decide(s, j, ended);
    if (d.kind !== 'none') return d;
  }
  return NONE;
}

/** Create a streaming redactor. Options are checked here; see {@link RedactorOptions} for defaults. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const maxHoldback = options.maxHoldback ?? DEFAULT_MAX_HOLDBACK;
  const maxBlock = options.maxSuppressedBlock ?? 65536;
  if (!(maxHoldback >= 256)) throw new TypeError('createRedactor: maxHoldback must be at least 256');
  if (!(maxBlock > 0)) throw new TypeError('createRedactor: maxSuppressedBlock must be positive');
  const rules = buildRuleTable(options.secrets ?? [], options.rules ?? DEFAULT_RULES);
  const dispatch = compileCached(rules);
  const { lastMask } = dispatch;

  /** Left context (already emitted original text) followed by the text not yet emitted. */
  let buf = '';
  /** Index in `buf` where unprocessed text begins; everything before it is context only. */
  let start = 0;
  let suppress: Suppress = undefined;
  /** Characters dropped so far inside the current private-key block. */
  let suppressed = 0;
  /** The last code unit of `buf` (0 when empty), valid while nothing is held. */
  let prevUnit = 0;

  /**
   * The common case of a streaming delta: nothing held, no block being dropped, and no
   * candidate in `text` (its start is checked against the context's last unit). The text is
   * emitted as it is, without concatenating it to the context, and the context grows by
   * concatenation (cheap) until it is trimmed. A longer context than LEFT_CONTEXT changes no
   * decision: rules look at most LEFT_CONTEXT characters to the left.
   */
  function clean(text: string): boolean {
    const n = text.length;
    if (suppress !== undefined || start !== buf.length) return false;
    if (scanLong(text, 0, n, dispatch, lastMask, prevUnit) < n) return false;
    if (n >= LEFT_CONTEXT) buf = text;
    else {
      buf += text;
      if (buf.length > 4 * LEFT_CONTEXT) buf = buf.slice(buf.length - LEFT_CONTEXT);
    }
    start = buf.length;
    prevUnit = text.charCodeAt(n - 1);
    return true;
  }

  function process(text: string, ended: boolean): string {
    const s = buf + text;
    const n = s.length;
    let out = '';
    let i = start;
    /** Where held text begins; `n` when nothing is held. */
    let hold = n;
    outer: while (i < n) {
      if (suppress !== undefined) {
        if (suppress.kind === 'run') {
          const test = suppress.test;
          while (i < n && test(s.charCodeAt(i))) i++;
          if (i < n) suppress = undefined;
          continue;
        }
        const re = suppress.end;
        re.lastIndex = i;
        const m = re.exec(s);
        // The END marker must be followed by a character (or the end of input) so that a
        // marker cut by the chunk end is not accepted shorter than it is.
        if (m !== null && (m.index + m[0].length < n || ended) && m.index - i + suppressed <= maxBlock) {
          i = m.index + m[0].length;
          suppress = undefined;
          suppressed = 0;
          continue;
        }
        if (ended) {
          i = n;
          break;
        }
        // Keep a short tail (not emitted) in which an END marker split by the chunk may start.
        const keepFrom = Math.max(i, n - 64);
        suppressed += keepFrom - i;
        if (suppressed > maxBlock) {
          // Not a key block any more: resume scanning (documented bound).
          suppress = undefined;
          suppressed = 0;
          i = keepFrom;
          continue;
        }
        i = keepFrom;
        hold = keepFrom;
        break;
      }
      const last = ended ? dispatch.endMask : lastMask;
      let j = scanLong(s, i, n, dispatch, last, 0);
      for (; j < n; j = scanLong(s, j + 1, n, dispatch, last, 0)) {
        const d = evaluate(dispatch, s, j, ended);
        if (d.kind === 'none') continue;
        if (j > i) out += s.slice(i, j);
        if (d.kind === 'pending') {
          if (n - j > maxHoldback) {
            // Fail closed: a candidate this long that still cannot be decided is dropped.
            out += '[REDACTED:undecided]';
            i = n;
            break outer;
          }
          hold = j;
          i = j;
          break outer;
        }
        if (d.kind === 'skip') {
          out += s.slice(j, d.end);
          i = d.end;
          continue outer;
        }
        if (d.redactStart > j) out += s.slice(j, d.redactStart);
        out += `[REDACTED:${d.label}]`;
        i = d.redactEnd;
        suppress = d.suppress;
        continue outer;
      }
      if (j > i) out += s.slice(i, j);
      i = n;
    }
    if (ended) {
      buf = '';
      start = 0;
      suppress = undefined;
      suppressed = 0;
      prevUnit = 0;
    } else {
      const keep = Math.min(hold, i);
      const ctxStart = Math.max(0, keep - LEFT_CONTEXT);
      buf = s.slice(ctxStart);
      start = keep - ctxStart;
      prevUnit = keep > 0 ? s.charCodeAt(keep - 1) : 0;
    }
    return out;
  }

  return {
    push(text: string): string {
      if (text.length === 0) return '';
      return clean(text) ? text : process(text, false);
    },
    end(): string {
      return process('', true);
    },
  };
}

/** Redact a complete string with the default rules (same result as any chunked run). */
export function redactText(text: string, options: RedactorOptions = {}): string {
  const r = createRedactor(options);
  return r.push(text) + r.end();
}

/**
 * A redactor of complete strings over one rule table (default options), compiled once: the
 * scrub stage calls it for every string field of every event, most of them ids and short
 * prose. Building a streaming redactor per string (closures, buffer, push + end passes) costs
 * several times the scan itself (bench/pipeline.ts), so the common case
 * runs here without one: scan the text, and as long as every candidate decides `none` (a hex
 * word that is no Mailchimp key, ...) the text comes back as it is. The first candidate that
 * decides anything else hands the whole text to a streaming redactor.
 *
 * Same result as `redactText(text, { rules })`, which is `push(text) + end()`: `push` evaluates
 * the same candidates with `ended = false` and emits the text up to the first one that is not
 * `none`. If that one is `pending` (a trigger's first character ends the text, as in any id
 * ending in a hex digit), `push` holds the text from there and `end` evaluates from the same
 * position on with `ended = true` (rules see the same left context, at most LEFT_CONTEXT
 * characters, there); so does this loop. Anything else, or a hold longer than the streaming
 * redactor allows, takes the streaming path itself.
 */
export function createTextRedactor(rules: readonly SecretRule[]): (text: string) => string {
  const dispatch = compileCached(rules);
  const { endMask } = dispatch;
  return (text) => {
    const n = text.length;
    let ended = false;
    for (
      let j = scanLong(text, 0, n, dispatch, endMask, 0);
      j < n;
      j = scanLong(text, j + 1, n, dispatch, endMask, 0)
    ) {
      // At the last unit `push` can only answer pending (its pair is cut): go to `end` at once.
      if (j === n - 1 && text.charCodeAt(j) < 128) ended = true;
      let d = evaluate(dispatch, text, j, ended);
      if (d.kind === 'pending' && !ended && n - j <= DEFAULT_MAX_HOLDBACK) {
        ended = true;
        d = evaluate(dispatch, text, j, true);
      }
      if (d.kind !== 'none') {
        const r = createRedactor({ rules });
        return r.push(text) + r.end();
      }
    }
    return text;
  };
}
