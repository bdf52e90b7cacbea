/**
 * Codex's escalation: in `ask` mode, when the sandbox refused something a command tried (a write
 * outside the workspace, a connection), the user may approve rerunning that one command outside
 * the sandbox. Only where a person answers approvals (`ask` with a TTY or an ACP client), never
 * under `auto` or headless, and never for a command that ran outside minicode's sandbox already
 * (off, or an ACP client's terminal). The question is asked under its own tool name,
 * `bash (unsandboxed)`, so an earlier "always allow" of `bash` does not answer it. It carries
 * the refusal line, so the person sees what was refused before deciding; that line reaches a
 * terminal (the chat footer) and an ACP client directly, not through the event pipeline, so it
 * is scrubbed here: terminal sequences neutralised, secrets and credential values masked (a host
 * the allowlisting proxy refused is whatever the command asked for).
 */
import { outputRedactor } from '../artefacts.js';
import type { ApprovalModeName, ApprovalPolicy } from '../policy/decide.js';
import type { ApprovalRequest } from '../policy/approval-events.js';
import { sanitizeText } from '../scrub/terminal-sanitizer.js';
import type { AnyTool, ToolContext, ToolOutcome } from './types.js';

/** The longest refusal line a question carries; the model's copy in the tool result is whole. */
const REFUSAL_MAX = 500;

/** Inputs of {@link escalationRequest}. */
export interface EscalationInput {
  tool: AnyTool;
  outcome: ToolOutcome;
  ctx: Pick<ToolContext, 'sandbox' | 'terminal' | 'tty' | 'env'>;
  policy: ApprovalModeName | ApprovalPolicy;
  toolCallId: string;
  title: string | undefined;
}

/** The question to ask before rerunning a refused command unsandboxed, or undefined when none may be asked. */
export function escalationRequest(input: EscalationInput): ApprovalRequest | undefined {
  const { tool, outcome, ctx } = input;
  if (!tool.startsCommands || ctx.terminal || outcome.status === 'denied' || outcome.sandboxRefusal === undefined)
    return undefined;
  const mode = typeof input.policy === 'string' ? input.policy : input.policy.mode;
  if (mode !== 'ask' || ctx.tty !== true || !ctx.sandbox || ctx.sandbox.mode === 'off') return undefined;
  return {
    toolName: `${tool.name} (unsandboxed)`,
    toolCallId: input.toolCallId,
    action: `rerun outside the sandbox: ${(input.title ?? tool.name).split('\n')[0]!.slice(0, 200)}`,
    reason: 'sandbox-refused',
    sandboxRefusal: scrubbedLine(outcome.sandboxRefusal, ctx.env ?? process.env),
  };
}

/** `text` as one line a terminal or a client may show: sequences neutralised, secrets masked, at most {@link REFUSAL_MAX} characters. */
function scrubbedLine(text: string, env: NodeJS.ProcessEnv): string {
  const line = outputRedactor(env)(sanitizeText(text, { singleLine: true }))
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= REFUSAL_MAX) return line;
  // Do not cut a surrogate pair in half.
  const end = /[\ud800-\udbff]/.test(line.charAt(REFUSAL_MAX - 2)) ? REFUSAL_MAX - 2 : REFUSAL_MAX - 1;
  return `${line.slice(0, end)}…`;
}
