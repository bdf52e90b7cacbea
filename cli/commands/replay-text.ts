/**
 * The plain text view of `minicode replay` until the linear renderer is wired in: one line per
 * durable event that matters to a reader, glyph + word for every status (NO_COLOR-safe), and
 * the run summary at the end. Text is already scrubbed and sanitised by the pipeline.
 */
import type { OutputEvent } from '../../lib/events/index.js';
import type { RunSummary } from '../../lib/reducer/index.js';

const GLYPH: Record<string, string> = { completed: '✓', failed: '✗', denied: '⊘', cancelled: '⊘', incomplete: '…' };

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** One line for an event, or undefined for events the text view does not show. */
export function formatEventLine(e: OutputEvent): string | undefined {
  switch (e.type) {
    case 'session.started':
      return `session ${e.sessionId} · ${[e.payload.origin, e.payload.agent ?? e.payload.provider, e.payload.model].filter(Boolean).join(' ')} · ${e.timestamp}`;
    case 'user.message.received':
      return `> ${oneLine(e.payload.text)}`;
    case 'task.started':
      return `▶ task ${e.payload.taskId}${e.payload.prompt ? `: ${oneLine(e.payload.prompt, 120)}` : ''}`;
    case 'task.completed':
      return `✓ task ${e.payload.taskId} completed`;
    case 'task.failed':
      return `✗ task ${e.payload.taskId} failed (${e.payload.reason}): ${oneLine(e.payload.error.message)}`;
    case 'task.cancelled':
      return `⊘ task ${e.payload.taskId} cancelled (${e.payload.reason})`;
    case 'assistant.message.completed':
      return oneLine(e.payload.text, 2000);
    case 'assistant.message.truncated':
      return `${oneLine(e.payload.text, 2000)} [truncated: ${e.payload.reason}]`;
    case 'tool.started':
      return `· ${e.payload.name} ${oneLine(e.payload.title ?? '', 120)}`.trimEnd();
    case 'tool.completed':
      return `${GLYPH.completed} completed ${e.payload.name ?? e.payload.toolCallId}: ${oneLine(e.payload.summary)}${e.payload.durationMs !== undefined ? ` (${e.payload.durationMs} ms)` : ''}`;
    case 'tool.failed':
      return `${GLYPH.failed} failed ${e.payload.name ?? e.payload.toolCallId}: ${e.payload.cause} ${oneLine(e.payload.message)}`;
    case 'tool.denied':
      return `${GLYPH.denied} denied ${e.payload.name ?? e.payload.toolCallId}: ${oneLine(e.payload.reason)}`;
    case 'tool.cancelled':
      return `${GLYPH.cancelled} cancelled ${e.payload.name ?? e.payload.toolCallId}: ${oneLine(e.payload.reason)}`;
    case 'user.approval.requested':
      return `? approval ${e.payload.approvalId}: ${oneLine(e.payload.action)}`;
    case 'user.approval.settled':
      return `? approval ${e.payload.approvalId}: ${e.payload.outcome}${e.payload.reason ? ` (${e.payload.reason})` : ''}`;
    case 'file.changed':
      return e.payload.changes.map((c) => `  ${c.kind} ${c.path}`).join('\n');
    case 'test.completed':
      return `${e.payload.ok ? '✓' : '✗'} tests ${e.payload.ok ? 'passed' : 'failed'}${e.payload.passed !== undefined ? ` · ${e.payload.passed} passed` : ''}${e.payload.failed !== undefined ? ` · ${e.payload.failed} failed` : ''}`;
    case 'finding.detected':
      return `! finding (${e.payload.severity}) ${oneLine(e.payload.summary)}`;
    case 'error.raised':
      return `✗ error ${e.payload.error.code}: ${oneLine(e.payload.error.message)}`;
    case 'limit.reached':
      return `! limit ${e.payload.kind}${e.payload.message ? `: ${oneLine(e.payload.message)}` : ''}`;
    default:
      return undefined;
  }
}

/** The summary block at the end of the text view. */
export function formatSummary(s: RunSummary): string {
  const tools = Object.entries(s.tools.byStatus).map(([k, v]) => `${v} ${k}`).join(', ');
  const parts = [
    `outcome: ${s.outcome}${s.reason && s.reason !== s.outcome ? ` (${s.reason})` : ''}`,
    `tools: ${s.tools.total}${tools ? ` (${tools})` : ''}`,
    `files changed: ${s.filesChanged.length}`,
  ];
  if (s.tests.runs > 0) parts.push(`tests: ${s.tests.ok ? 'passed' : 'failed'}`);
  if (s.findings.total > 0) parts.push(`findings: ${s.findings.total}`);
  if (s.durationMs !== undefined) parts.push(`duration: ${(s.durationMs / 1000).toFixed(1)} s`);
  if (s.usage) {
    const u = s.usage;
    parts.push(`tokens: ${u.inputTokens ?? '?'} in / ${u.outputTokens ?? '?'} out`);
  }
  if (s.costUsd !== undefined) parts.push(`cost: $${s.costUsd.toFixed(4)}`);
  if (s.anomalies > 0) parts.push(`anomalies: ${s.anomalies}`);
  return `— ${parts.join(' · ')}\n`;
}
