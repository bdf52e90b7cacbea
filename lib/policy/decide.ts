import { MCP_PREFIX, serverWildcard } from './mcp-names.js';

/** Kind of tool, as the renderers and the policy group them (a subset of the event model's ToolKind). */
export type ToolKindName = 'read' | 'edit' | 'execute' | 'search' | 'other';

/** The approval modes, in the order they are offered (`--approval`, chat's `/approval`, ACP's modes). */
export const APPROVAL_MODES = ['ask', 'auto', 'read-only'] as const;

/** How much the agent may do without asking. */
export type ApprovalModeName = (typeof APPROVAL_MODES)[number];

/** An approval mode with its allowlist (used by `auto`). */
export interface ApprovalPolicy {
  mode: ApprovalModeName;
  /** `auto`: tools that run without asking. Default {@link DEFAULT_AUTO_TOOLS}. */
  allowTools?: readonly string[];
  /**
   * `auto`: bash command prefixes that run without asking even when `bash` is not in
   * `allowTools` (e.g. `npm test`). A command chaining others (`;`, `&&`, `|`, `$(`) never matches.
   */
  allowCommands?: readonly string[];
}

/** The tools `auto` allows by default: workspace reads, writes and commands, never gated tools. */
export const DEFAULT_AUTO_TOOLS: readonly string[] = [
  'read_file',
  'write_file',
  'edit',
  'bash',
  'grep',
  'glob',
  'submit_result',
  'apply_patch',
  'insert_text',
];

/**
 * The tools a model-native shape offers in place of minicode's own edit tools, and the tools of
 * ours they stand in for: an allowlist naming all of those allows them too, so one written for
 * minicode's shapes means the same under a native one.
 */
const STANDS_IN_FOR: Readonly<Record<string, readonly string[]>> = {
  apply_patch: ['write_file', 'edit'],
  insert_text: ['edit'],
};

/** True when an `auto` allowlist allows `name`, itself or through the tools it stands in for. */
function inAllowlist(name: string, tools: readonly string[]): boolean {
  if (tools.includes(name)) return true;
  const covers = STANDS_IN_FOR[name];
  return covers !== undefined && covers.every((t) => tools.includes(t));
}

/** What the policy needs to know about one call. */
export interface ToolCallFacts {
  name: string;
  kind: ToolKindName;
  gated: boolean;
  /** The parsed input, for command allowlists (`bash`'s `command`). */
  input?: unknown;
  /** The MCP server of an MCP tool: `auto` may allowlist it by name or as `mcp__<server>__*`. */
  server?: string;
  /** An MCP tool of a server the config trusts (`trust: true`). */
  trusted?: boolean;
  /** An MCP tool its server marks read-only (`readOnlyHint`): not refused in `read-only` mode, still asked for. */
  readOnly?: boolean;
}

/** The policy's answer: run it, refuse it (with the reason for `tool.denied`), or ask a person. */
export type PolicyDecision =
  | { decision: 'allow'; reason: string }
  | { decision: 'deny'; reason: string }
  | { decision: 'ask'; reason: string };

/** Shell syntax that runs a second command; such a line never matches a command allowlist entry. */
const CHAINING = /[;&|`\n]|\$\(|>|</;

/** True when `command` is `entry` or starts with `entry` and a space, and chains nothing else. */
export function commandAllowed(command: string, allowCommands: readonly string[]): boolean {
  const trimmed = command.trim();
  if (CHAINING.test(trimmed)) return false;
  return allowCommands.some((entry) => trimmed === entry || trimmed.startsWith(`${entry} `));
}

function commandOf(input: unknown): string | undefined {
  if (input && typeof input === 'object' && typeof (input as { command?: unknown }).command === 'string')
    return (input as { command: string }).command;
  return undefined;
}

/**
 * The reason a gated tool is denied without a TTY: what happened, then what to do instead
 * (seed automation-ci: "denied with a clear message").
 */
export function gatedNoTtyReason(name: string): string {
  const instead =
    name === 'ask_user'
      ? 'write a self-contained prompt instead'
      : name.startsWith(MCP_PREFIX)
        ? 'to allow it, list it (or its server as mcp__<server>__*) in approval.allowTools with approval mode auto'
        : 'do this outside the agent (e.g. a CI workflow step)';
  return `gated tool denied: no TTY to ask (${name}); non-interactive runs fail closed, ${instead}`;
}

/** Ask when a person can answer; otherwise deny with a reason that says why (fail closed). */
function askOrDeny(call: ToolCallFacts, tty: boolean, why: string): PolicyDecision {
  if (tty) return { decision: 'ask', reason: why };
  return {
    decision: 'deny',
    reason: call.gated
      ? gatedNoTtyReason(call.name)
      : `${call.name} needs approval (${why}) but there is no TTY to ask; use --approval auto with an allowlist`,
  };
}

/**
 * Decide one tool call under an approval mode. Gated tools always ask and are denied without a
 * TTY, whatever the mode (seed automation-ci: fail closed, never hang). Reads and searches are
 * always allowed; `read-only` refuses edits and commands; `auto` allows its allowlist and asks
 * for the rest; `ask` asks for every edit and command.
 */
export function decide(
  call: ToolCallFacts,
  mode: ApprovalModeName | ApprovalPolicy,
  options: { tty: boolean },
): PolicyDecision {
  const policy: ApprovalPolicy = typeof mode === 'string' ? { mode } : mode;
  if (call.gated) {
    // A server's read-only tool is not refused in read-only mode, but the hint is the server's own
    // claim: it is still asked for (or allowed by trust), as in the other modes.
    const readOnlyMcp = call.server !== undefined && call.readOnly === true;
    if (policy.mode === 'read-only' && !readOnlyMcp)
      return { decision: 'deny', reason: `gated tool denied: read-only mode (${call.name})` };
    // The operator vouched for the whole server in its config entry (Gemini CLI's `trust`).
    if (call.server !== undefined && call.trusted === true) return { decision: 'allow', reason: 'trusted MCP server' };
    // MCP tools are gated too, but an operator may name them (or a whole server) in `auto`'s
    // allowlist; the built-in gated tools (git_commit, ask_user) always ask.
    if (call.server !== undefined && policy.mode === 'auto' && policy.allowTools) {
      const wildcard = serverWildcard(call.server);
      if (policy.allowTools.includes(call.name) || policy.allowTools.includes(wildcard))
        return { decision: 'allow', reason: 'MCP tool in allowlist' };
    }
    return askOrDeny(call, options.tty, 'gated tool');
  }
  const changes = call.kind === 'edit' || call.kind === 'execute';
  if (!changes) return { decision: 'allow', reason: `${call.kind} tool` };
  if (policy.mode === 'read-only')
    return { decision: 'deny', reason: `read-only mode: ${call.name} would change the workspace or run a command` };
  if (policy.mode === 'auto') {
    const tools = policy.allowTools ?? DEFAULT_AUTO_TOOLS;
    const command = commandOf(call.input);
    if (command !== undefined && policy.allowCommands && policy.allowCommands.length > 0) {
      // With a command allowlist, bash runs only what it lists (the tool allowlist alone is not enough).
      if (commandAllowed(command, policy.allowCommands)) return { decision: 'allow', reason: 'command in allowlist' };
      return askOrDeny(call, options.tty, `command not in allowlist: ${command.split('\n')[0]}`);
    }
    if (inAllowlist(call.name, tools)) return { decision: 'allow', reason: 'tool in allowlist' };
    return askOrDeny(call, options.tty, `${call.name} not in allowlist`);
  }
  return askOrDeny(call, options.tty, `${call.kind} needs approval in ask mode`);
}
