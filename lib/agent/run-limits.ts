/**
 * What one run may spend: model requests, time, money, output tokens and context. Filled once
 * where a run is set up (flags, then environment, then config, then {@link DEFAULT_RUN_LIMITS})
 * and passed whole to the loop, which enforces each through its one termination owner.
 */
import type { Budget } from '../control/budget.js';

/** A run's limits; defaults {@link DEFAULT_RUN_LIMITS}: 40 steps, no deadline, no budget, the provider's output cap, the model table's context window, children one level deep and four at once. */
export interface RunLimits {
  /** Model requests in one turn before it ends `max_steps_exceeded`; default 40. */
  maxSteps: number;
  /** Run deadline in ms (`timeout`); undefined: none. */
  timeoutMs: number | undefined;
  /** Spend limit in USD (`budget_exceeded`); undefined: none. */
  budget: Budget | undefined;
  /** Output tokens asked of the model per request; undefined: the provider's default. */
  maxTokens: number | undefined;
  /** The model's context window in tokens; undefined: the built-in table's (see context-window.ts). */
  contextWindow: number | undefined;
  /** How deep child sessions (the `task` tool) may nest: 1 lets a session start children that cannot start their own; 0 none. Default 1. */
  maxChildDepth: number;
  /** Child sessions of one run running at once; more wait for a slot. Default 4. */
  maxChildren: number;
}

/** The defaults of {@link RunLimits}. */
export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxSteps: 40,
  timeoutMs: undefined,
  budget: undefined,
  maxTokens: undefined,
  contextWindow: undefined,
  maxChildDepth: 1,
  maxChildren: 4,
});

/** Run limits: `given` over {@link DEFAULT_RUN_LIMITS}. */
export function runLimits(given: Partial<RunLimits> = {}): RunLimits {
  return { ...DEFAULT_RUN_LIMITS, ...given };
}
