/**
 * What one hook's run means, by Claude Code's contract (pure: a process result in, a verdict
 * out):
 * - exit 0: go on. Its stdout, when it is a JSON object, may decide: `continue: false` stops
 *   the run (`stopReason`), `decision: "block"` with a `reason` blocks, and
 *   `hookSpecificOutput` carries `permissionDecision` (`allow | deny | ask`, PreToolUse) and
 *   `additionalContext`; `systemMessage` is shown to the user. Plain stdout (or stdout that is
 *   not a JSON object) is context for the model on `SessionStart` and `UserPromptSubmit` only.
 * - exit 2: block, with stderr as the reason (what the model or the user is told).
 * - any other exit, a timeout, or a command that cannot start: a non-blocking error, shown as
 *   a diagnostic; the run goes on as if the hook had said nothing.
 */
import type { HookProcessResult } from './run-command.js';
import type { HookEventName } from './names.js';

/** How a hook's run ended, as its event says. */
export type HookOutcome = 'success' | 'blocked' | 'error' | 'timeout';

/** A permission decision of a PreToolUse hook. */
export type HookPermission = 'allow' | 'deny' | 'ask';

/** One hook's verdict. */
export interface HookVerdict {
  outcome: HookOutcome;
  /** Why it blocked (exit 2's stderr, or the JSON `reason`). */
  blockReason?: string;
  permission?: HookPermission;
  permissionReason?: string;
  /** Context for the model. */
  context?: string;
  /** `continue: false`: the run stops, for this reason. */
  stop?: string;
  /** `systemMessage`: shown to the user. */
  message?: string;
}

/** Events whose plain stdout on exit 0 is context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['SessionStart', 'UserPromptSubmit']);

/** The verdict of one hook run for `event`. */
export function verdictOf(event: HookEventName, run: HookProcessResult): HookVerdict {
  if (run.timedOut) return { outcome: 'timeout' };
  if (run.exitCode === 2)
    return { outcome: 'blocked', blockReason: run.stderr.trim() || `blocked by a ${event} hook (exit 2)` };
  if (run.exitCode !== 0) return { outcome: 'error', ...(run.startError ? { message: run.startError } : {}) };
  const text = run.stdout.trim();
  const json = jsonObjectOf(text);
  if (!json)
    return text && STDOUT_IS_CONTEXT.has(event) ? { outcome: 'success', context: text } : { outcome: 'success' };
  const verdict: HookVerdict = { outcome: 'success' };
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  if (typeof json.systemMessage === 'string') verdict.message = json.systemMessage;
  if (json.continue === false)
    verdict.stop =
      typeof json.stopReason === 'string' && json.stopReason ? json.stopReason : `stopped by a ${event} hook`;
  const reason = typeof json.reason === 'string' ? json.reason : undefined;
  const permission = specific.permissionDecision;
  if (event === 'PreToolUse' && (permission === 'allow' || permission === 'deny' || permission === 'ask')) {
    verdict.permission = permission;
    if (typeof specific.permissionDecisionReason === 'string')
      verdict.permissionReason = specific.permissionDecisionReason;
  } else if (event === 'PreToolUse' && (json.decision === 'approve' || json.decision === 'block')) {
    // The older spelling of the same decision.
    verdict.permission = json.decision === 'approve' ? 'allow' : 'deny';
    if (reason) verdict.permissionReason = reason;
  } else if (json.decision === 'block') {
    verdict.outcome = 'blocked';
    verdict.blockReason = reason || `blocked by a ${event} hook`;
  }
  if (verdict.permission === 'deny') verdict.outcome = 'blocked';
  if (typeof specific.additionalContext === 'string' && specific.additionalContext.trim())
    verdict.context = specific.additionalContext;
  return verdict;
}

/** `text` as a JSON object, or undefined (not JSON, or JSON that is not an object: plain text then). */
function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    // Not JSON after all: the contract reads it as plain text.
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
