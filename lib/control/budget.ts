/**
 * The budget contract (control-plane §4), one place for every surface (TUI, one-shot, exec).
 * Status is `ok | over | unknown-strict`. Preflight decides whether a new prompt may start;
 * the in-flight watcher reads the live cost after every usage report and aborts the run once,
 * with reason kind `budget_exceeded` (distinct from a user abort). Context pressure and cost
 * are independent: nothing here looks at the context size.
 */
import { abortReason } from './termination.js';

/** Budget status: within limit, over it, or unknown cost under `--budget-strict`. */
export type BudgetStatus = 'ok' | 'over' | 'unknown-strict';

/** A budget: a USD limit and whether an unknown cost counts against it. */
export interface Budget {
  limitUsd: number;
  /** Refuse to go on when the cost cannot be known (`--budget-strict`); default false. */
  strict?: boolean;
}

/** The status for spend `costUsd` (undefined = unknown). Spend equal to the limit is `ok`. */
export function budgetStatus(budget: Budget, costUsd: number | undefined): BudgetStatus {
  if (costUsd === undefined) return budget.strict ? 'unknown-strict' : 'ok';
  return costUsd > budget.limitUsd ? 'over' : 'ok';
}

/** A preflight decision. */
export interface PreflightDecision {
  allowed: boolean;
  status: BudgetStatus;
  /** Why it was refused. */
  reason?: 'over' | 'unknown-cost';
}

/**
 * May a new prompt start? `tokens == 0` (nothing recorded yet) always may: strict mode does not
 * lock out a first prompt. With tokens recorded, an unknown cost is refused under strict mode
 * (fail closed) and a known cost over the limit is refused.
 */
export function preflight(budget: Budget, spend: { tokens: number; costUsd: number | undefined }): PreflightDecision {
  const status = budgetStatus(budget, spend.costUsd);
  if (spend.tokens === 0) return { allowed: true, status };
  if (status === 'unknown-strict') return { allowed: false, status, reason: 'unknown-cost' };
  if (status === 'over') return { allowed: false, status, reason: 'over' };
  return { allowed: true, status };
}

/** The watcher a run keeps while it is in flight. */
export interface BudgetWatcher {
  /** Check the live cost (call after every usage report). Returns true when this call fired. */
  check(costUsd: number | undefined): boolean;
  /** Whether the watcher has fired. */
  readonly fired: boolean;
}

/**
 * Watch a budget during a run: the first time the known live cost goes over the limit, abort
 * `controller` with reason kind `budget_exceeded`; later checks do nothing (fire-once). An
 * unknown cost does not fire: strict mode refuses at preflight, not in the middle of a stream.
 */
export function watchBudgetLimit(budget: Budget, controller: { abort(reason?: unknown): void }): BudgetWatcher {
  let fired = false;
  return {
    check(costUsd) {
      if (fired || budgetStatus(budget, costUsd) !== 'over') return false;
      fired = true;
      controller.abort(
        abortReason(
          'budget_exceeded',
          `estimated cost $${(costUsd as number).toFixed(4)} is over the budget of $${budget.limitUsd}`,
        ),
      );
      return true;
    },
    get fired() {
      return fired;
    },
  };
}
