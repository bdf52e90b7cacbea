import { formatDuration } from './duration.js';
import type { StateView } from './view.js';

/**
 * The live activity line: what a running turn is doing right now, how long it has run, and how
 * to stop it (`⠹ running bash (12s · esc to interrupt)`). It is the TTY renderer's last live
 * line while a turn is open, so the screen moves even when the model stream stalls; it is never
 * printed as a settled fact and never reaches a log, a pipe or the store.
 *
 * What it says is read from reducer state, in this order: an approval waiting for an answer,
 * then a running tool, then a note the producer gave (`task.progress`: compacting, a retry
 * wait), then reasoning or text streaming in, and otherwise the turn is waiting for the model.
 */

/** What the activity line reads besides reducer state: the renderer's own live knowledge. */
export interface ActivityInput {
  /** Ids of messages (`m:`) and reasoning (`r:`) that streamed through this renderer. */
  streamed: ReadonlySet<string>;
  /** The latest producer note (`task.progress` message) not yet overtaken by other events. */
  note?: string | undefined;
}

/** The activity's words, without spinner or time: `running bash`, `waiting for the model`. */
export function activityText(view: StateView, input: ActivityInput): string {
  const approvals = view.openApprovals();
  if (approvals.length > 0) return 'waiting for approval';
  const tools = view.runningTools();
  if (tools.length > 0) {
    const names = [...new Set(tools.map((t) => t.name))];
    return `running ${names.slice(0, 2).join(', ')}${names.length > 2 ? ` and ${names.length - 2} more` : ''}`;
  }
  if (input.note !== undefined && input.note !== '') return input.note;
  if (view.liveReasoning().some((r) => input.streamed.has(`r:${r.reasoningId}`))) return 'thinking';
  if (view.liveMessages().some((m) => input.streamed.has(`m:${m.messageId}`))) return 'writing';
  return 'waiting for the model';
}

/**
 * The whole line: `⠹ waiting for the model (12s · esc to interrupt)`. Elapsed time is whole
 * seconds below a minute, so the line changes once a second rather than on every frame.
 */
export function activityLine(
  text: string,
  elapsedMs: number | undefined,
  spinner: string,
  interruptHint: string,
): string {
  const parts: string[] = [];
  if (elapsedMs !== undefined)
    parts.push(elapsedMs < 60_000 ? `${Math.floor(Math.max(0, elapsedMs) / 1000)}s` : formatDuration(elapsedMs));
  if (interruptHint !== '') parts.push(interruptHint);
  return `${spinner} ${text}${parts.length > 0 ? ` (${parts.join(' · ')})` : ''}`;
}
