/**
 * The usage collector: what providers reported, per request, summed per turn and session.
 * Provider usage may be missing: a field nobody reported stays undefined (unknown), never
 * zero, and a request without any usage makes the totals `complete: false`. Reports are either
 * cumulative (totals so far for that request: replace) or incremental (add).
 */
import { draft } from '../events/draft.js';
import type { EventDraftOf } from '../events/index.js';
import type { Usage } from '../events/payloads.js';
import { USAGE_FIELDS } from '../events/usage-fields.js';
import { costFor, findPrice, type ModelPrice } from './prices.js';

const FIELDS = USAGE_FIELDS;

/** One usage report from a provider stream or a compaction call. */
export interface UsageReport {
  requestId: string;
  usage: Usage;
  cumulative: boolean;
  scope: 'request' | 'compaction';
  provider: string;
  model: string;
  turn?: number;
}

/** Summed usage with its estimated cost. */
export interface UsageTotals {
  usage: Usage;
  /** Estimated USD; undefined when any request's cost is unknown. */
  costUsd: number | undefined;
  requests: number;
  /** False when some request reported no usage at all (its tokens are unknown). */
  complete: boolean;
  /**
   * Share of prompt tokens read from the provider's cache (0..1); undefined when unknown: no
   * request reported usage, or one reported none of its cache fields.
   */
  cacheHitRatio: number | undefined;
  /** Prompt tokens and the part read from cache, summed; undefined when unknown (as the ratio). */
  cache: CacheShare | undefined;
}

/** Prompt tokens of some requests and how many of them were read from cache. */
export interface CacheShare {
  prompt: number;
  read: number;
}

/**
 * Prompt tokens of one request and the part read from cache, or undefined when the report has
 * no cache fields (unknown, never zero). Anthropic counts `input_tokens` apart from cache reads
 * and writes; OpenAI and Gemini count cached tokens inside the input.
 */
export function cacheShare(usage: Usage, inputIncludesCache: boolean): CacheShare | undefined {
  if (usage.inputTokens === undefined) return undefined;
  if (usage.cacheReadTokens === undefined && usage.cacheWriteTokens === undefined) return undefined;
  const read = usage.cacheReadTokens ?? 0;
  const prompt = inputIncludesCache ? usage.inputTokens : usage.inputTokens + read + (usage.cacheWriteTokens ?? 0);
  return { prompt, read };
}

/** `cacheRead / prompt` for one usage, or undefined when unknown (see {@link cacheShare}). */
export function cacheHitRatio(usage: Usage, inputIncludesCache: boolean): number | undefined {
  const share = cacheShare(usage, inputIncludesCache);
  return share && share.prompt > 0 ? share.read / share.prompt : undefined;
}

/** Whether a provider's input count includes cached tokens (the price table's answer, else: all but Anthropic). */
export function inputIncludesCacheOf(provider: string, price: ModelPrice | undefined): boolean {
  return price?.inputIncludesCache ?? provider !== 'anthropic';
}

/** Options of {@link createUsageCollector}. */
export interface UsageCollectorOptions {
  /** Price lookup; default {@link findPrice} on the built-in table. */
  priceOf?: (provider: string, model: string) => ModelPrice | undefined;
  /** Called after each report with the new session totals (the budget watcher listens here). */
  onChange?: (session: UsageTotals) => void;
}

/** The collector a session keeps. */
export interface UsageCollector {
  /** A request started (so that a request that never reports usage is known to exist). */
  begin(
    requestId: string,
    meta: { provider: string; model: string; turn?: number; scope?: 'request' | 'compaction' },
  ): void;
  /** Record a report. Returns the `usage.reported` draft for the event stream. */
  record(report: UsageReport): EventDraftOf<'usage.reported'>;
  /** Totals of one turn. */
  turn(turn: number): UsageTotals;
  /** Totals of the session. */
  session(): UsageTotals;
  /** Total tokens recorded so far (0 before any usage; used by budget preflight). */
  tokens(): number;
}

interface RequestEntry {
  provider: string;
  model: string;
  turn: number | undefined;
  usage: Usage | undefined;
}

function add(a: Usage, b: Usage): Usage {
  const out: Usage = { ...a };
  for (const f of FIELDS) {
    const v = b[f];
    if (v !== undefined) out[f] = (out[f] ?? 0) + v;
  }
  return out;
}

/** Create a usage collector. */
export function createUsageCollector(options: UsageCollectorOptions = {}): UsageCollector {
  const priceOf = options.priceOf ?? ((p: string, m: string) => findPrice(p, m));
  const requests = new Map<string, RequestEntry>();

  const totals = (filter: (e: RequestEntry) => boolean): UsageTotals => {
    let usage: Usage = {};
    let cost: number | undefined = 0;
    let count = 0;
    let complete = true;
    let cache: CacheShare | undefined = { prompt: 0, read: 0 };
    for (const e of requests.values()) {
      if (!filter(e)) continue;
      count++;
      if (!e.usage) {
        complete = false;
        cost = undefined;
        continue;
      }
      usage = add(usage, e.usage);
      const price = priceOf(e.provider, e.model);
      const c = costFor(e.usage, price);
      cost = c === undefined || cost === undefined ? undefined : cost + c;
      const share = cacheShare(e.usage, inputIncludesCacheOf(e.provider, price));
      cache = share && cache ? { prompt: cache.prompt + share.prompt, read: cache.read + share.read } : undefined;
    }
    const cacheHitRatio = cache && cache.prompt > 0 ? cache.read / cache.prompt : undefined;
    const known = count > 0 && cache && cache.prompt > 0 ? cache : undefined;
    return { usage, costUsd: count === 0 ? 0 : cost, requests: count, complete, cacheHitRatio, cache: known };
  };

  const collector: UsageCollector = {
    begin(requestId, meta) {
      if (!requests.has(requestId))
        requests.set(requestId, { provider: meta.provider, model: meta.model, turn: meta.turn, usage: undefined });
    },
    record(report) {
      let entry = requests.get(report.requestId);
      if (!entry) {
        entry = { provider: report.provider, model: report.model, turn: report.turn, usage: undefined };
        requests.set(report.requestId, entry);
      }
      if (report.cumulative) {
        // Totals so far for this request: the fields present replace, absent ones stay.
        entry.usage = { ...(entry.usage ?? {}), ...stripUndefined(report.usage) };
      } else {
        entry.usage = add(entry.usage ?? {}, report.usage);
      }
      options.onChange?.(collector.session());
      const cost = costFor(report.usage, priceOf(report.provider, report.model));
      const payload: EventDraftOf<'usage.reported'>['payload'] = {
        usage: report.usage,
        cumulative: report.cumulative,
        scope: report.scope,
        model: report.model,
      };
      if (cost !== undefined && !report.cumulative) payload.costUsd = cost;
      return draft('usage.reported', payload, report.turn === undefined ? {} : { turnId: report.turn });
    },
    turn(turn) {
      return totals((e) => e.turn === turn);
    },
    session() {
      return totals(() => true);
    },
    tokens() {
      const u = totals(() => true).usage;
      return u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
    },
  };
  return collector;
}

function stripUndefined(u: Usage): Usage {
  const out: Usage = {};
  for (const f of FIELDS) {
    const v = u[f];
    if (v !== undefined) out[f] = v;
  }
  return out;
}
