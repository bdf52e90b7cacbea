import { diffLines, diffStat, type DiffTone } from './diff.js';
import { formatDuration } from './duration.js';
import { STATUS_LOOK, statusLabel, type DisplayStatus } from './status.js';
import type { Fact } from './projection.js';
import type { RunView, ToolView } from './view.js';

/**
 * Plain text for settled facts, shared by the linear and TTY renderers so both print the same
 * words. A line is a label (glyph + word, which the TTY may colour) and plain text; the text
 * is copyable as is: no escapes, no padding, no borders.
 */
export interface FactLine {
  /** The status the label stands for, for the TTY's colour role. */
  readonly status?: DisplayStatus;
  /** Glyph + word, e.g. `✓ completed`; absent for message text. */
  readonly label?: string;
  readonly text: string;
  /** The TTY's pre-styled form of `text` (rendered Markdown); the plain `text` stays the source. */
  readonly styled?: string;
  /** A diff line's colour role (the TTY colours the whole line by it). */
  readonly tone?: DiffTone;
}

/** Join a line's label and text into the plain string. */
export function plainLine(line: FactLine): string {
  if (line.label === undefined) return line.text;
  return line.text === '' ? line.label : `${line.label} ${line.text}`;
}

function statusLine(status: DisplayStatus, text: string): FactLine {
  return { status, label: statusLabel(status), text };
}

/**
 * `bash [call_1]`: the identity every surface prints the same way. Without `ids` (the TTY's
 * normal view) it is what a person reads instead: `bash node test.js`, the verb and its target.
 */
export function toolIdentity(tool: ToolView, ids = true): string {
  if (ids) return `${tool.name} [${tool.toolCallId}]`;
  return tool.title ? `${tool.name} ${tool.title}` : tool.name;
}

/** The settled line of a tool: status, identity, duration, then cause / reason / summary. */
export function toolLine(tool: ToolView, ids = true): FactLine {
  const parts = [toolIdentity(tool, ids)];
  if (tool.status === 'running') {
    if (tool.title && ids) parts.push(tool.title);
    return statusLine('running', parts.join(' '));
  }
  if (tool.durationMs !== undefined) parts.push(formatDuration(tool.durationMs));
  let detail: string | undefined;
  if (tool.status === 'failed') detail = `${tool.cause ?? 'TOOL_ERROR'}: ${tool.message ?? ''}`.trim();
  else if (tool.status === 'denied' || tool.status === 'cancelled') detail = tool.reason;
  else if (tool.status === 'interrupted') detail = 'no terminal event';
  else detail = tool.summary;
  if (tool.incomplete) detail = `${detail ?? ''} (no start event)`.trim();
  return statusLine(tool.status, detail ? `${parts.join(' ')} - ${detail}` : parts.join(' '));
}

const APPROVAL_LOOK: Record<string, { status: DisplayStatus; label: string }> = {
  allow: { status: 'completed', label: '✓ allowed' },
  'allow-always': { status: 'completed', label: '✓ allowed always' },
  deny: { status: 'denied', label: '⊘ denied' },
  cancelled: { status: 'cancelled', label: '◌ cancelled' },
};

/** The glyph + word of a pending approval. */
export const APPROVAL_PENDING_LABEL = '? approval';

/** One approval request as a line (also what the TTY's live prompt shows). */
export function approvalRequestText(approval: { toolName?: string; toolCallId?: string; action: string; options: readonly string[] }, ids = true): string {
  const who = approval.toolName ? `${approval.toolName}${approval.toolCallId && ids ? ` [${approval.toolCallId}]` : ''} wants to ` : '';
  const options = approval.options.length > 0 ? ` (${approval.options.join(' / ')})` : '';
  return `${who}${approval.action}${options}`;
}

/**
 * The plain lines of one settled fact. `ids` false is the TTY's normal view: no call or
 * approval ids (the linear, verbose and machine views keep them for cross-reference).
 */
export function factLines(fact: Fact, ids = true): FactLine[] {
  switch (fact.kind) {
    case 'user':
      return fact.text.split('\n').map((text, i) => (i === 0 ? { label: '>', text } : { text: `  ${text}` }));
    case 'tool.started':
      return [statusLine('running', ids ? [toolIdentity(fact.tool), fact.tool.title].filter(Boolean).join(' ') : toolIdentity(fact.tool, false))];
    case 'tool.finished':
      return [toolLine(fact.tool, ids)];
    case 'tool.call':
      return [{ label: 'call', text: `${fact.name} [${fact.toolCallId}] ${fact.argumentsText}` }];
    case 'anomaly':
      return [{ status: 'partial', label: '△ anomaly', text: `[${fact.toolCallId}] second terminal ${STATUS_LOOK[fact.ignored].word} ignored; kept ${STATUS_LOOK[fact.kept].word}` }];
    case 'message': {
      const lines: FactLine[] = fact.text === '' ? [] : fact.text.split('\n').map((text) => ({ text }));
      if (fact.refusal) lines.push(statusLine('denied', `refusal: ${fact.refusal.replace(/\s+/g, ' ')}`));
      if (fact.truncated) lines.push(statusLine('partial', `message ${fact.messageId} truncated (${fact.truncated})`));
      return lines;
    }
    case 'reasoning':
      return fact.text.split('\n').map((text, i) => (i === 0 ? { label: 'thinking:', text } : { text: `  ${text}` }));
    case 'approval.requested':
      return [{ status: 'running', label: APPROVAL_PENDING_LABEL, text: ids ? `${fact.approval.approvalId}: ${approvalRequestText(fact.approval)}` : approvalRequestText(fact.approval, false) }];
    case 'approval.settled': {
      const look = APPROVAL_LOOK[fact.outcome] ?? { status: 'completed' as const, label: fact.outcome };
      const what = ids ? `approval ${fact.approvalId}` : 'approval';
      return [{ status: look.status, label: look.label, text: `${what}${fact.reason ? ` (${fact.reason})` : ''}` }];
    }
    case 'task': {
      const parts = [`task ${fact.taskId}`];
      if (fact.reason && fact.reason !== 'completed') parts.push(fact.reason);
      if (fact.durationMs !== undefined) parts.push(formatDuration(fact.durationMs));
      if (fact.steps !== undefined) parts.push(`${fact.steps} ${fact.steps === 1 ? 'step' : 'steps'}`);
      return [statusLine(fact.status, fact.detail ? `${parts.join(' ')} - ${fact.detail}` : parts.join(' '))];
    }
    case 'error':
      return [{ status: fact.status, label: `✗ ${fact.label}`, text: `${fact.category}${fact.code ? ` ${fact.code}` : ''}: ${fact.message}${fact.action ? ` - ${fact.action}` : ''}` }];
    case 'diagnostic':
      return [{ status: 'partial', label: '△ warning', text: `${fact.code}: ${fact.message}${fact.action ? ` - ${fact.action}` : ''}${fact.where ? ` (${fact.where})` : ''}` }];
    case 'plan': {
      // A checklist, one step a line, so it reads the same in a terminal and in a log.
      const box = { completed: '[x]', in_progress: '[~]', pending: '[ ]' } as const;
      return [{ label: 'plan:', text: fact.explanation ?? '' }, ...fact.steps.map((s) => ({ text: `  ${box[s.status]} ${s.title}` }))];
    }
    case 'files': {
      const list = fact.changes.map((c) => `${c.kind} ${c.path}${c.diff ? ` (${diffStat(c.diff)})` : ''}`).join(', ');
      const lines: FactLine[] = [{ label: 'files:', text: list }];
      for (const c of fact.changes) {
        if (!c.diff) continue;
        if (fact.changes.length > 1) lines.push({ text: `  ${c.path}` });
        lines.push(...diffLines(c.diff));
      }
      return lines;
    }
    case 'note':
      return [fact.status ? { status: fact.status, label: `${STATUS_LOOK[fact.status].glyph} ${fact.label}`, text: fact.text } : { label: `${fact.label}:`, text: fact.text }];
  }
}

function outcomeStatus(outcome: RunView['outcome']): DisplayStatus {
  return outcome;
}

/** The final summary as plain lines: outcome, tools by status, files, usage. */
export function summaryLines(run: RunView): FactLine[] {
  const head = [`session ${run.sessionId}`];
  if (run.reason && run.reason !== run.outcome) head.push(`reason ${run.reason}`);
  if (run.durationMs !== undefined) head.push(formatDuration(run.durationMs));
  const lines: FactLine[] = [statusLine(outcomeStatus(run.outcome), head.join(' · '))];
  if (run.error) lines.push({ label: 'error:', text: `${run.error.category}: ${run.error.message}${run.error.action ? ` - ${run.error.action}` : ''}` });
  const t = run.tools;
  const counts = (['completed', 'failed', 'denied', 'cancelled', 'interrupted'] as const).filter((s) => t[s] > 0).map((s) => `${t[s]} ${statusLabel(s)}`);
  lines.push({ label: 'tools:', text: counts.length > 0 ? counts.join(', ') : 'none' });
  if (run.agents !== undefined && run.agents.length > 1) lines.push({ label: 'agents:', text: `${run.agents.join(' -> ')} (finished by ${run.agents[run.agents.length - 1]})` });
  if (run.filesChanged.length > 0) lines.push({ label: 'files changed:', text: run.filesChanged.join(', ') });
  const u = run.usage;
  const usage = [u.inputTokens !== undefined ? `${u.inputTokens} in` : '', u.outputTokens !== undefined ? `${u.outputTokens} out` : ''].filter(Boolean).join(', ');
  const cost = run.costUsd !== undefined ? ` · $${run.costUsd.toFixed(4)}` : '';
  lines.push({ label: 'usage:', text: `${usage === '' ? 'unknown' : `${usage} tokens`}${cost}` });
  return lines;
}
