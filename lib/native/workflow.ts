import type { WorkspaceCheckpoints } from '../checkpoints/turn.js';
import type { EventDraft, Fidelity } from '../events/index.js';
import { MinicodeError } from '../errors.js';
import type { NativeAgent } from '../decode/formats.js';
import { AGENT_SPECS } from './agents.js';
import { buildHandoffPrompt, workspaceState, type TranscriptCollector } from './handoff-prompt.js';
import { superviseAgent, type AgentExit } from './supervisor.js';
import { definedOnly } from '../defined-only.js';

/** Options of {@link runAgentWorkflow}. */
export interface WorkflowOptions {
  /** The active agent first, then its fallbacks in order. */
  agents: readonly NativeAgent[];
  prompt: string;
  cwd: string;
  /** Into the session pipeline: the workflow's own drafts. */
  emit: (draft: EventDraft) => void;
  /**
   * Into the session pipeline: the agent's drafts, one batch per stdout chunk; a returned promise
   * pauses the agent's stdout (backpressure). Default: each draft through `emit`.
   */
  write?: ((drafts: EventDraft[]) => Promise<void> | undefined) | undefined;
  /** Resolves once the pipeline has reduced everything written so far (the transcript is complete). */
  settled?: (() => Promise<unknown>) | undefined;
  /** Fed by the pipeline's `onEvent`; the workflow tells it which agent is active. */
  transcript: TranscriptCollector;
  signal?: AbortSignal | undefined;
  extraArgs?: readonly string[] | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** Called as each agent starts; what it returns is added to that agent's environment (its `TRACEPARENT`). */
  onAgentStart?: ((agent: NativeAgent, index: number) => NodeJS.ProcessEnv | undefined) | undefined;
  /** Awaited after a handoff, before the next agent starts: everything so far is stored (a crash keeps it). */
  durable?: (() => Promise<void>) | undefined;
  /**
   * How long an agent may stay silent after reporting an exhausted quota before minicode stops
   * it (a CLI that waits for a reset instead of exiting); default `MINICODE_QUOTA_GRACE_MS` of
   * the environment, else {@link DEFAULT_QUOTA_GRACE_MS}.
   */
  quotaGraceMs?: number | undefined;
  /**
   * Workspace checkpoints: one before the first agent starts (so `minicode undo` takes the run
   * back), and after each agent a `file.changed` of what the checkpoint diff saw it change.
   */
  checkpoints?: WorkspaceCheckpoints | undefined;
}

/** Silence allowed after a usage-quota signal before the agent is stopped. */
export const DEFAULT_QUOTA_GRACE_MS = 10_000;

/** `MINICODE_QUOTA_GRACE_MS` of `env` (a non-negative number of ms), else the default; a bad value is a usage error. */
export function quotaGraceOf(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MINICODE_QUOTA_GRACE_MS;
  if (raw === undefined || raw === '') return DEFAULT_QUOTA_GRACE_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new MinicodeError(
      'MINICODE_E_USAGE',
      `MINICODE_QUOTA_GRACE_MS must be a non-negative number of ms, got "${raw}"`,
      {
        action: `set MINICODE_QUOTA_GRACE_MS=${DEFAULT_QUOTA_GRACE_MS} (the default) or unset it`,
      },
    );
  }
  return ms;
}

/** How the workflow ended. */
export interface WorkflowResult {
  /** Agents started, in order. */
  ran: NativeAgent[];
  exit: AgentExit;
}

interface QuotaSignal {
  message?: string;
  resetAt?: string;
  fidelity: Fidelity;
}

/**
 * Run the agents one after another in the same workspace: the next one starts only when the
 * active agent's task ended failed after it reported `limit.reached {kind: 'usage-quota'}`
 * (transient rate limits, auth failures, crashes and successes end the workflow). Each agent's
 * task gets its own id (`task-1`, `task-2`, ...) so one session holds every agent's task.
 */
export async function runAgentWorkflow(options: WorkflowOptions): Promise<WorkflowResult> {
  const ran: NativeAgent[] = [];
  let prompt = options.prompt;
  const quotaGraceMs = options.quotaGraceMs ?? quotaGraceOf(options.env ?? process.env);
  // Native agents edit the workspace themselves: the checkpoint comes before any of them starts.
  await options.checkpoints?.beforeChange();
  for (let index = 0; ; index++) {
    const agent = options.agents[index] as NativeAgent;
    ran.push(agent);
    options.transcript.setAgent(agent);
    const taskPrefix = `task-${index + 1}`;
    let quota: QuotaSignal | undefined;
    let terminal: string | undefined;
    // After a quota signal the agent should end by itself; one that stays silent for the grace
    // period (waiting for a reset) is stopped, and its own exit record (a crash by SIGTERM) is
    // replaced with the quota failure below.
    let stoppedForQuota = false;
    let silence: NodeJS.Timeout | undefined;
    const armSilence = (): void => {
      if (silence) clearTimeout(silence);
      silence = setTimeout(() => {
        stoppedForQuota = true;
        child.stop();
      }, quotaGraceMs);
    };
    const extraEnv = options.onAgentStart?.(agent, index);
    const env = extraEnv ? { ...(options.env ?? process.env), ...extraEnv } : options.env;
    const child = superviseAgent({
      agent,
      prompt,
      cwd: options.cwd,
      signal: options.signal,
      env,
      extraArgs: options.extraArgs,
      write: (batch) => {
        let drafts = index === 0 ? batch : batch.map((d) => renumberTask(d, taskPrefix));
        if (stoppedForQuota) drafts = drafts.filter((d) => !isRootTerminal(d));
        for (const draft of drafts) {
          if (draft.type === 'limit.reached' && draft.payload.kind === 'usage-quota' && quota === undefined) {
            quota = { fidelity: draft.fidelity ?? 'native', ...pick(draft.payload.message, draft.payload.resetAt) };
          }
          if (isRootTerminal(draft)) terminal = draft.type;
        }
        if (quota !== undefined && !stoppedForQuota) armSilence();
        if (options.write) return options.write(drafts);
        for (const draft of drafts) options.emit(draft);
        return undefined;
      },
    });
    const exit = await child.done.finally(() => clearTimeout(silence));
    const changes = await options.checkpoints?.afterChange();
    if (changes && changes.length > 0)
      options.emit({ type: 'file.changed', payload: { changes }, fidelity: 'synthetic' });
    const next = options.agents[index + 1];
    if (exit.aborted || quota === undefined || terminal === 'task.completed' || terminal === 'task.cancelled')
      return { ran, exit };
    if (terminal === undefined) {
      // A clean exit right after the quota signal: the supervisor ends the task with the quota as cause.
      options.emit({
        type: 'task.failed',
        payload: {
          taskId: taskPrefix,
          reason: 'provider',
          error: {
            category: 'PROVIDER_ERROR',
            code: 'MINICODE_E_USAGE_QUOTA',
            message: `${agent}: usage quota exhausted${quota.message ? ` (${quota.message})` : ''}${stoppedForQuota ? `; stopped after ${quotaGraceMs} ms without output` : ''}`,
            recoverability: 'ACTION_REQUIRED',
          },
        },
        fidelity: 'synthetic',
      });
    }
    if (next === undefined) return { ran, exit };
    // The transcript is fed by the pipeline's listener: wait until it has seen the agent's last event.
    await options.settled?.();
    const workspace = workspaceState(options.cwd, options.env);
    const cause = quota.message ?? 'usage quota exhausted';
    const handoff = buildHandoffPrompt({
      task: options.prompt,
      from: agent,
      cause,
      entries: options.transcript.entries(),
      workspace,
    });
    options.emit({
      type: 'agent.handoff',
      payload: {
        from: agent,
        to: next,
        reason: 'usage-quota',
        cause: { fidelity: quota.fidelity, ...pick(quota.message, quota.resetAt) },
        fromTaskId: taskPrefix,
        toTaskId: `task-${index + 2}`,
        carried: {
          transcriptEntries: handoff.transcriptEntries,
          droppedEntries: handoff.droppedEntries,
          workspace: workspace.git ? 'git' : 'none',
          diffChars: workspace.diff.length,
          diffTruncated: workspace.diffTruncated,
          promptChars: handoff.text.length,
        },
      },
      fidelity: 'synthetic',
    });
    prompt = handoff.text;
    await options.durable?.();
  }
}

/** The task's own end (not a subtask's). */
function isRootTerminal(draft: EventDraft): boolean {
  return (
    (draft.type === 'task.completed' || draft.type === 'task.failed' || draft.type === 'task.cancelled') &&
    draft.parentId === undefined
  );
}

function pick(message: string | undefined, resetAt: string | undefined): { message?: string; resetAt?: string } {
  return definedOnly({ message, resetAt });
}

const FIRST_TASK = /^task-1(?=$|\.)/;

/** Move a decoder's `task-1...` ids to this agent's `task-N...`; the payload is otherwise untouched. */
function renumberTask(draft: EventDraft, prefix: string): EventDraft {
  const payload = draft.payload as { taskId?: unknown };
  let out = draft;
  if (typeof payload.taskId === 'string' && FIRST_TASK.test(payload.taskId)) {
    out = { ...out, payload: { ...payload, taskId: payload.taskId.replace(FIRST_TASK, prefix) } } as EventDraft;
  }
  if (typeof out.parentId === 'string' && FIRST_TASK.test(out.parentId))
    out = { ...out, parentId: out.parentId.replace(FIRST_TASK, prefix) };
  if (typeof out.correlationId === 'string' && FIRST_TASK.test(out.correlationId))
    out = { ...out, correlationId: out.correlationId.replace(FIRST_TASK, prefix) };
  return out;
}

/**
 * The workflow's agents from `--agent` and `--fallback B,C`: known agents, each once. Anything
 * else is a usage error (`MINICODE_E_USAGE`, exit 2).
 */
export function parseAgentChain(agent: string, fallback: string | undefined): NativeAgent[] {
  const names = [agent, ...(fallback === undefined ? [] : fallback.split(',').map((name) => name.trim()))];
  const chain: NativeAgent[] = [];
  for (const name of names) {
    if (!Object.hasOwn(AGENT_SPECS, name)) {
      throw new MinicodeError('MINICODE_E_USAGE', `unknown agent ${JSON.stringify(name)} in --fallback`, {
        action: `use one or more of ${Object.keys(AGENT_SPECS).join(', ')}, comma-separated`,
      });
    }
    if (chain.includes(name as NativeAgent)) {
      throw new MinicodeError('MINICODE_E_USAGE', `agent ${name} appears twice in --agent/--fallback`, {
        action: 'name each agent once',
      });
    }
    chain.push(name as NativeAgent);
  }
  return chain;
}
