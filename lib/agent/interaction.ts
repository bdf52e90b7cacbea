/**
 * Who answers a run's questions: whether a person is at a terminal, and the surface's ways to
 * ask them (approvals, `ask_user`). Without a person, approvals that need one are denied and
 * `ask_user` is refused: a run never hangs waiting for an answer no one can give.
 */
import type { ApprovalDecision, ApprovalRequest } from '../tools/types.js';

/** How a run reaches a person; default {@link NO_PERSON}. */
export interface Interaction {
  /** True when a person can answer approvals and `ask_user`; default false. */
  tty: boolean;
  /** Asks the person for an approval; undefined: approvals that need a person are denied. */
  promptApproval: ((request: ApprovalRequest) => Promise<ApprovalDecision>) | undefined;
  /** Asks the person a question (`ask_user`) and resolves with the answer; undefined: refused. */
  promptAskText: ((question: string, signal: AbortSignal) => Promise<string>) | undefined;
  /** Approval ids; undefined: `approval-1`, `approval-2`, ... per run (a chat passes one source for its whole session). */
  nextApprovalId: (() => string) | undefined;
}

/** No person to ask: the interaction of `exec --json`, batch lines and every run without a TTY. */
export const NO_PERSON: Readonly<Interaction> = Object.freeze({
  tty: false,
  promptApproval: undefined,
  promptAskText: undefined,
  nextApprovalId: undefined,
});

/** An interaction: `given` over {@link NO_PERSON}. */
export function interaction(given: Partial<Interaction> = {}): Interaction {
  return { ...NO_PERSON, ...given };
}
