import { draft } from '../events/draft.js';
import type { EventDraftOf } from '../events/index.js';
import type { FileDiff } from '../events/payloads.js';
import { definedOnly } from '../defined-only.js';
import { reportDropped } from '../debug.js';

/** What a tool asks the approval hook (a write outside the workspace, a gated action). */
export interface ApprovalRequest {
  toolName: string;
  toolCallId?: string;
  /** One line: what would happen, e.g. `write /etc/hosts` or `git commit -m "..."`. */
  action: string;
  /** Why approval is needed, e.g. `outside-workspace`, `gated`. */
  reason: string;
  /** What an edit would change (from the tool's `preview`), shown with the question. */
  diff?: FileDiff | undefined;
  /** An escalation question (lib/tools/escalation.ts): the one line, scrubbed, that says what the sandbox refused. */
  sandboxRefusal?: string | undefined;
}

/** Answer of the approval hook; `allow-always` is remembered by the caller, not the tool. */
export type ApprovalDecision = 'allow' | 'allow-always' | 'deny' | 'cancelled';

/** Why an approval settled: a person answered, the policy answered, or nobody could. */
export type SettleReason = 'user' | 'policy' | 'no-tty' | 'parent-ended';

/** Draft of `user.approval.requested` for one request (correlated with the tool call). */
export function approvalRequestedDraft(
  approvalId: string,
  request: ApprovalRequest,
): EventDraftOf<'user.approval.requested'> {
  return draft(
    'user.approval.requested',
    definedOnly({
      approvalId,
      toolCallId: request.toolCallId,
      toolName: request.toolName,
      action: request.action.split('\n')[0]!.slice(0, 200),
      options: ['allow', 'allow-always', 'deny'],
      diff: request.diff,
      sandboxRefusal: request.sandboxRefusal,
    }),
    { correlationId: request.toolCallId ?? approvalId },
  );
}

/** Draft of `user.approval.settled`; `deny` and `cancelled` carry status `denied` / `cancelled`. */
export function approvalSettledDraft(
  approvalId: string,
  outcome: ApprovalDecision,
  reason: SettleReason,
  correlationId?: string,
): EventDraftOf<'user.approval.settled'> {
  const status = outcome === 'deny' ? 'denied' : outcome === 'cancelled' ? 'cancelled' : 'completed';
  return draft(
    'user.approval.settled',
    { approvalId, outcome, reason },
    { correlationId: correlationId ?? approvalId, status },
  );
}

/** Options of {@link createApprovalHook}. */
export interface ApprovalHookOptions {
  tty: boolean;
  /** Asks the person (TTY surface); absent means nobody can answer. */
  prompt?: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | undefined;
  /** Receives the approval event drafts. */
  onEvent?: (event: EventDraftOf<'user.approval.requested'> | EventDraftOf<'user.approval.settled'>) => void;
  /** Id source for approvals; default `approval-1`, `approval-2`, ... */
  nextId?: (() => string) | undefined;
}

/**
 * The `approve` hook tools call for actions outside the allowlist. Without a TTY or a prompt it
 * settles `deny` at once (reason `no-tty`): it never waits for an answer nobody can give.
 * `allow-always` is remembered per action for the rest of the run.
 */
export function createApprovalHook(
  options: ApprovalHookOptions,
): (request: ApprovalRequest) => Promise<ApprovalDecision> {
  let counter = 0;
  const nextId = options.nextId ?? (() => `approval-${++counter}`);
  const always = new Set<string>();
  return async (request) => {
    const id = nextId();
    const key = `${request.toolName}\u0000${request.action}`;
    options.onEvent?.(approvalRequestedDraft(id, request));
    if (always.has(key)) {
      options.onEvent?.(approvalSettledDraft(id, 'allow', 'policy', request.toolCallId));
      return 'allow';
    }
    if (!options.tty || !options.prompt) {
      options.onEvent?.(approvalSettledDraft(id, 'deny', 'no-tty', request.toolCallId));
      return 'deny';
    }
    let outcome: ApprovalDecision;
    try {
      outcome = await options.prompt(request);
    } catch (error) {
      reportDropped('approval prompt', error);
      outcome = 'cancelled';
    }
    if (outcome === 'allow-always') always.add(key);
    options.onEvent?.(approvalSettledDraft(id, outcome, 'user', request.toolCallId));
    return outcome;
  };
}
