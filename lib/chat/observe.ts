/**
 * What the interactive mode tells about size and spend, kept apart as the observability
 * contract asks (control-plane §1, §7): the footer's first line is the CURRENT context window
 * estimate (kernel estimator, never cumulative), its second line is spend (provider-reported
 * usage, estimated cost, budget status). `/status` prints the four figures each with its label.
 * Unknown stays unknown: an absent count or price prints `unknown`, never 0.
 */
import type { SandboxMode } from '../sandbox/settings.js';
import { budgetStatus, type Budget } from '../control/budget.js';
import { cacheShare } from '../control/usage.js';
import type { ApprovalModeName } from '../policy/index.js';
import type { Usage } from '../events/index.js';

/** Context window sizes (tokens) by model-name prefix; the longest matching prefix wins. */
export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'claude-': 200_000,
  'gpt-5': 400_000,
  'gpt-4.1': 1_047_576,
  'gpt-4o': 128_000,
  'gemini-2.5': 1_048_576,
  llama3: 128_000,
};

/** The window of `model`, or undefined when the table does not know it. */
export function contextWindowOf(model: string): number | undefined {
  let best: string | undefined;
  for (const key of Object.keys(CONTEXT_WINDOWS))
    if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
  return best ? CONTEXT_WINDOWS[best] : undefined;
}

/** The figures shown; built from the estimator and the reducer state by the caller. */
export interface Observed {
  /** Estimated tokens of the next request (system + tools + conversation). */
  contextTokens: number;
  /** Whether the estimate is anchored to a provider-reported input count. */
  anchored: boolean;
  windowTokens?: number;
  /** Session usage as the provider reported it. */
  usage: Usage;
  /** Estimated USD; undefined = unknown. */
  costUsd?: number;
  /** Share of prompt tokens read from the provider's cache; undefined = unknown. */
  cacheHitRatio?: number;
  budget?: Budget;
  model: string;
  /** How much runs without asking (`ask`, `auto`, `read-only`). */
  approvalMode?: ApprovalModeName;
  /** The sandbox of the session's commands (docs/sandbox.md); absent: none. */
  sandbox?: { mode: SandboxMode; network: boolean; allowHosts?: readonly string[] } | undefined;
}

/** The sandbox in a few words: `workspace-write, network off`. */
function sandboxText(o: Observed): string {
  if (!o.sandbox || o.sandbox.mode === 'off') return 'off (commands run unsandboxed)';
  const hosts = o.sandbox.allowHosts ?? [];
  const network = o.sandbox.network
    ? 'open'
    : hosts.length > 0
      ? `only ${hosts.join(', ')} (through the proxy)`
      : 'off';
  return `${o.sandbox.mode}, network ${network}`;
}

/**
 * Tokens of one request's whole prompt, cached parts included: what the context window holds.
 * Anthropic reports `input_tokens` apart from cache reads and writes, so after a cached first
 * answer its input count alone is a small fraction of the context (the footer must not fall).
 */
export function promptTokensOf(usage: Usage, inputIncludesCache: boolean): number | undefined {
  return cacheShare(usage, inputIncludesCache)?.prompt ?? usage.inputTokens;
}

/** `12,345` (en-US grouping, stable across locales). */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function usd(n: number): string {
  return `$${n.toFixed(4)}`;
}

function contextText(o: Observed): string {
  const size = `~${count(o.contextTokens)}`;
  if (o.windowTokens === undefined) return `${size} tokens (window unknown)`;
  const pct = Math.min(999, Math.round((o.contextTokens / o.windowTokens) * 100));
  return `${size} of ${count(o.windowTokens)} tokens (${pct}%)`;
}

function budgetText(o: Observed): string {
  if (!o.budget) return 'none';
  const status = budgetStatus(o.budget, o.costUsd);
  return `${status} (limit ${usd(o.budget.limitUsd)}${o.budget.strict ? ', strict' : ''})`;
}

function tokens(n: number | undefined): string {
  return n === undefined ? 'unknown' : count(n);
}

/**
 * The footer: context on its own line, spend on the next. Below 60 columns spend and budget
 * split onto two lines so nothing is cut at 40 columns.
 */
export function footerLines(o: Observed, columns: number, keys?: string): string[] {
  const context = `Context: ${contextText(o)}`;
  const cost = o.costUsd === undefined ? 'cost unknown' : `${usd(o.costUsd)} est.`;
  const budget = `Budget: ${budgetText(o)}`;
  const io = `${tokens(o.usage.inputTokens)} in, ${tokens(o.usage.outputTokens)} out`;
  const spend =
    columns < 60
      ? [`Spend: ${io} tokens`, `Cost: ${o.costUsd === undefined ? 'unknown' : cost} · ${budget}`]
      : [`Spend: ${io}, ${cost} · ${budget}`];
  // A session without the sandbox says so where the person looks: never a silent `off`.
  const mode = `${o.approvalMode ? ` · approvals: ${o.approvalMode}` : ''}${o.sandbox?.mode === 'off' ? ' · sandbox off' : ''}`;
  const labelled = `Model: ${o.model}${mode}`;
  const model = labelled.length <= columns ? labelled : `${o.model}${mode}`;
  // The keys share the model's line when it fits, else get their own.
  const tail =
    keys === undefined ? [model] : model.length + 3 + keys.length <= columns ? [`${model} · ${keys}`] : [model, keys];
  return [context, ...spend, ...tail];
}

/** `/status`: Context vs Input/Output/Total vs Cost vs Budget, each on its own labelled line. */
export function statusLines(o: Observed): string[] {
  const total =
    o.usage.totalTokens ??
    (o.usage.inputTokens !== undefined && o.usage.outputTokens !== undefined
      ? o.usage.inputTokens + o.usage.outputTokens
      : undefined);
  return [
    `Model:   ${o.model}${o.approvalMode ? ` (approvals: ${o.approvalMode})` : ''}`,
    `Context: ${contextText(o)} - window estimate, ${o.anchored ? 'anchored to provider usage' : 'heuristic'}`,
    `         (next request: system prompt + tools + messages, cached included)`,
    `Input:   ${tokens(o.usage.inputTokens)} tokens - provider usage, session`,
    `Output:  ${tokens(o.usage.outputTokens)} tokens - provider usage, session`,
    `Total:   ${tokens(total)} tokens - provider usage, session`,
    `Cache:   ${o.cacheHitRatio === undefined ? 'unknown' : `${Math.round(o.cacheHitRatio * 100)}% of input read from cache`} - provider usage, session`,
    `Cost:    ${o.costUsd === undefined ? 'unknown' : `${usd(o.costUsd)} (estimated from the price table)`}`,
    `Budget:  ${budgetText(o)}`,
    `Sandbox: ${sandboxText(o)}`,
  ];
}
