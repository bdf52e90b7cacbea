/** Plain text for settled facts, shared by the linear and TTY renderers so both print the same words (a line's shape: fact-line.ts). */
import { diffLines, diffStat } from './diff.js';
import type { FactLine } from './fact-line.js';
import { formatDuration } from './duration.js';
import { STATUS_LOOK, statusLabel, type DisplayStatus } from './status.js';
import type { Fact } from './projection.js';
import type { FileDiff } from '../events/index.js';
import type { RunView, ToolView } from './view.js';

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

/** What a settled tool's line says after its duration: the cause, reason or summary. */
function toolDetail(tool: ToolView): string | undefined {
  let detail: string | undefined;
  if (tool.status === 'failed') detail = `${tool.cause ?? 'TOOL_ERROR'}: ${tool.message ?? ''}`.trim();
  else if (tool.status === 'denied' || tool.status === 'cancelled') detail = tool.reason;
  else if (tool.status === 'interrupted') detail = 'no terminal event';
  else detail = tool.summary;
  if (tool.incomplete) detail = `${detail ?? ''} (no start event)`.trim();
  return detail;
}

/** The settled line of a tool: status, identity, duration, then cause / reason / summary. */
export function toolLine(tool: ToolView, ids = true): FactLine {
  if (!ids) return toolHeaderLine(tool);
  const parts = [toolIdentity(tool, ids)];
  if (tool.status === 'running') {
    if (tool.title) parts.push(tool.title);
    return statusLine('running', parts.join(' '));
  }
  if (tool.durationMs !== undefined) parts.push(formatDuration(tool.durationMs));
  const detail = toolDetail(tool);
  return statusLine(tool.status, detail ? `${parts.join(' ')} - ${detail}` : parts.join(' '));
}

/** Most characters of a tool's argument in its header. */
const HEADER_ARGUMENT_MAX = 80;

/** `bash(npm test)`: the tool and its salient argument (its title), as a person reads a call. */
export function toolHeader(tool: Pick<ToolView, 'name' | 'title'>): string {
  if (!tool.title) return tool.name;
  const arg = tool.title.length > HEADER_ARGUMENT_MAX ? `${tool.title.slice(0, HEADER_ARGUMENT_MAX - 1)}…` : tool.title;
  return `${tool.name}(${arg})`;
}

/**
 * A tool call as one line, the person's view: `✓ bash(npm test) completed 1.2s - exit 0`. The
 * glyph and the word both say the outcome (colour only adds to them); no call id.
 */
export function toolHeaderLine(tool: ToolView): FactLine {
  const look = STATUS_LOOK[tool.status];
  const parts: string[] = [look.word];
  if (tool.status !== 'running' && tool.durationMs !== undefined) parts.push(formatDuration(tool.durationMs));
  const detail = tool.status === 'running' ? undefined : toolDetail(tool);
  return {
    status: tool.status,
    label: `${look.glyph} ${toolHeader(tool)}`,
    text: detail ? `${parts.join(' ')} - ${detail}` : parts.join(' '),
  };
}

/** Tools whose output is not worth a preview: file contents, edits (their diff is shown), plans, results, answers. */
const NO_PREVIEW = new Set([
  'read_file',
  'edit',
  'edit_file',
  'write_file',
  'insert_text',
  'apply_patch',
  'update_plan',
  'submit_result',
  'ask_user',
]);
/** A preview shows every line up to this many, else the first {@link PREVIEW_HEAD} and last {@link PREVIEW_TAIL}. */
const PREVIEW_WHOLE = 6;
const PREVIEW_HEAD = 3;
const PREVIEW_TAIL = 2;
/** Most characters of one preview line. */
const PREVIEW_LINE_MAX = 200;

/**
 * The output under a tool's header: every line when `whole` (verbose) or when it is short,
 * else the first and last few with `… +N lines` between them. The text is already display-safe
 * (the state view sanitises it); tabs become two spaces and a long line is cut.
 */
export function outputPreview(tool: Pick<ToolView, 'name' | 'output'>, whole = false): FactLine[] {
  if (tool.output === undefined || NO_PREVIEW.has(tool.name)) return [];
  const lines = tool.output.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  const cut = (line: string): string => {
    const flat = line.replace(/\t/g, '  ');
    return flat.length > PREVIEW_LINE_MAX ? `${flat.slice(0, PREVIEW_LINE_MAX - 1)}…` : flat;
  };
  let shown: string[];
  if (whole || lines.length <= PREVIEW_WHOLE) shown = lines.map(cut);
  else
    shown = [
      ...lines.slice(0, PREVIEW_HEAD).map(cut),
      `… +${lines.length - PREVIEW_HEAD - PREVIEW_TAIL} lines`,
      ...lines.slice(-PREVIEW_TAIL).map(cut),
    ];
  return shown.map((text, i) => ({ text: `${i === 0 ? '  ⎿ ' : '    '}${text}` }));
}

/** Verbs of the approval question by tool: what the person is asked to let happen. */
const APPROVAL_VERB: Readonly<Record<string, string>> = {
  bash: 'Run',
  shell: 'Run',
  write_file: 'Write',
  edit: 'Edit',
  edit_file: 'Edit',
  insert_text: 'Edit',
  apply_patch: 'Patch',
};

/**
 * An approval as a question: "Run `echo hi`?", "Edit src/app.js (+1 -1)?", else
 * "Allow git_commit: commit 1 file?". The action is the tool's title (a command, a path).
 */
export function approvalQuestion(approval: { toolName?: string; action: string; diff?: FileDiff }): string {
  const verb = approval.toolName === undefined ? undefined : APPROVAL_VERB[approval.toolName];
  const stat = approval.diff ? ` (${diffStat(approval.diff)})` : '';
  if (verb === 'Run') return `Run \`${approval.action}\`?`;
  if (verb !== undefined) return `${verb} ${approval.action}${stat}?`;
  return `Allow ${approval.toolName ?? 'this'}: ${approval.action}${stat}?`;
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
export function approvalRequestText(
  approval: { toolName?: string; toolCallId?: string; action: string; options: readonly string[] },
  ids = true,
): string {
  const who = approval.toolName
    ? `${approval.toolName}${approval.toolCallId && ids ? ` [${approval.toolCallId}]` : ''} wants to `
    : '';
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
      // A person's view shows a call once, when it ends (the TTY's live region shows it running).
      return ids ? [statusLine('running', [toolIdentity(fact.tool), fact.tool.title].filter(Boolean).join(' '))] : [];
    case 'tool.finished':
      return [toolLine(fact.tool, ids), ...outputPreview(fact.tool, ids)];
    case 'tool.call':
      return [{ label: 'call', text: `${fact.name} [${fact.toolCallId}] ${fact.argumentsText}` }];
    case 'anomaly':
      return [
        {
          status: 'partial',
          label: '△ anomaly',
          text: `[${fact.toolCallId}] second terminal ${STATUS_LOOK[fact.ignored].word} ignored; kept ${STATUS_LOOK[fact.kept].word}`,
        },
      ];
    case 'message': {
      const lines: FactLine[] = fact.text === '' ? [] : fact.text.split('\n').map((text) => ({ text }));
      if (fact.refusal) lines.push(statusLine('denied', `refusal: ${fact.refusal.replace(/\s+/g, ' ')}`));
      if (fact.truncated)
        lines.push(
          statusLine(
            'partial',
            ids
              ? `message ${fact.messageId} truncated (${fact.truncated})`
              : `the answer was cut short (${fact.truncated})`,
          ),
        );
      return lines;
    }
    case 'reasoning':
      return fact.text.split('\n').map((text, i) => (i === 0 ? { label: 'thinking:', text } : { text: `  ${text}` }));
    case 'approval.requested': {
      if (ids)
        return [
          {
            status: 'running',
            label: APPROVAL_PENDING_LABEL,
            text: `${fact.approval.approvalId}: ${approvalRequestText(fact.approval)}`,
          },
        ];
      const options = fact.approval.options.length > 0 ? ` (${fact.approval.options.join(' / ')})` : '';
      return [{ status: 'running', label: '?', text: `${approvalQuestion(fact.approval)}${options}` }];
    }
    case 'approval.settled': {
      // A person's view: the call's own line says what the answer did (completed, or denied with why).
      if (!ids) return [];
      const look = APPROVAL_LOOK[fact.outcome] ?? { status: 'completed' as const, label: fact.outcome };
      const what = ids ? `approval ${fact.approvalId}` : 'approval';
      return [{ status: look.status, label: look.label, text: `${what}${fact.reason ? ` (${fact.reason})` : ''}` }];
    }
    case 'task': {
      if (!ids) return [turnLine(fact)];
      const parts = [`task ${fact.taskId}`];
      if (fact.reason && fact.reason !== 'completed') parts.push(fact.reason);
      if (fact.durationMs !== undefined) parts.push(formatDuration(fact.durationMs));
      if (fact.steps !== undefined) parts.push(`${fact.steps} ${fact.steps === 1 ? 'step' : 'steps'}`);
      return [statusLine(fact.status, fact.detail ? `${parts.join(' ')} - ${fact.detail}` : parts.join(' '))];
    }
    case 'error':
      return [
        {
          status: fact.status,
          label: `✗ ${fact.label}`,
          text: `${fact.category}${fact.code ? ` ${fact.code}` : ''}: ${fact.message}${fact.action ? ` - ${fact.action}` : ''}`,
        },
      ];
    case 'diagnostic':
      return [
        {
          status: 'partial',
          label: '△ warning',
          text: `${fact.code}: ${fact.message}${fact.action ? ` - ${fact.action}` : ''}${fact.where ? ` (${fact.where})` : ''}`,
        },
      ];
    case 'plan': {
      // A checklist, one step a line, so it reads the same in a terminal and in a log.
      const box = { completed: '[x]', in_progress: '[~]', pending: '[ ]' } as const;
      return [
        { label: 'plan:', text: fact.explanation ?? '' },
        ...fact.steps.map((s) => ({ text: `  ${box[s.status]} ${s.title}` })),
      ];
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
      return [
        fact.status
          ? { status: fact.status, label: `${STATUS_LOOK[fact.status].glyph} ${fact.label}`, text: fact.text }
          : { label: `${fact.label}:`, text: fact.text },
      ];
  }
}

/**
 * How a turn ended, the person's view (no task id): `✓ completed 2.6s · 5 steps`,
 * `◌ stopped (Esc)` when the person stopped it, `✗ failed (provider) 1.6s - ...`.
 */
function turnLine(fact: Extract<Fact, { kind: 'task' }>): FactLine {
  const look = STATUS_LOOK[fact.status];
  const stoppedBy =
    fact.status === 'cancelled' && fact.reason === 'aborted'
      ? /^stopped with (.+)$/.exec(fact.detail ?? '')?.[1]
      : undefined;
  if (stoppedBy !== undefined) return { status: 'cancelled', label: look.glyph, text: `stopped (${stoppedBy})` };
  const parts: string[] = [look.word];
  if (fact.reason && fact.reason !== 'completed') parts.push(`(${fact.reason})`);
  if (fact.durationMs !== undefined) parts.push(formatDuration(fact.durationMs));
  let text = parts.join(' ');
  if (fact.steps !== undefined) text += ` · ${fact.steps} ${fact.steps === 1 ? 'step' : 'steps'}`;
  return { status: fact.status, label: look.glyph, text: fact.detail ? `${text} - ${fact.detail}` : text };
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
  if (run.error)
    lines.push({
      label: 'error:',
      text: `${run.error.category}: ${run.error.message}${run.error.action ? ` - ${run.error.action}` : ''}`,
    });
  const t = run.tools;
  const counts = (['completed', 'failed', 'denied', 'cancelled', 'interrupted'] as const)
    .filter((s) => t[s] > 0)
    .map((s) => `${t[s]} ${statusLabel(s)}`);
  lines.push({ label: 'tools:', text: counts.length > 0 ? counts.join(', ') : 'none' });
  if (run.agents !== undefined && run.agents.length > 1)
    lines.push({
      label: 'agents:',
      text: `${run.agents.join(' -> ')} (finished by ${run.agents[run.agents.length - 1]})`,
    });
  if (run.filesChanged.length > 0) lines.push({ label: 'files changed:', text: run.filesChanged.join(', ') });
  const u = run.usage;
  const usage = [
    u.inputTokens !== undefined ? `${u.inputTokens} in` : '',
    u.outputTokens !== undefined ? `${u.outputTokens} out` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const cost = run.costUsd !== undefined ? ` · $${run.costUsd.toFixed(4)}` : '';
  lines.push({ label: 'usage:', text: `${usage === '' ? 'unknown' : `${usage} tokens`}${cost}` });
  return lines;
}

export { plainLine, type FactLine } from './fact-line.js';
