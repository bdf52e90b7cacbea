/**
 * The user's hooks at the points of one agent turn (lib/hooks runs them): `SessionStart` for a
 * new session and `UserPromptSubmit` before the first request, `PreToolUse` / `PostToolUse`
 * around each tool call, `PreCompact` before a compaction, `Stop` when the model is done. What
 * they say comes back as the loop needs it: context for the prompt, a tool decision, the next
 * instruction, or a stop (`continue: false`, a blocked prompt).
 */
import type { EventDraft } from '../events/index.js';
import { createHookRunner, type HookRunner } from '../hooks/run-hooks.js';
import type { HookTranscript } from '../hooks/transcript.js';
import type { ToolCallHooks } from '../tools/execute.js';
import type { ToolOutcome } from '../tools/types.js';
import type { ToolEnvironment } from './tool-environment.js';

/** Times a turn goes on because a Stop hook blocked, before it ends anyway: 3. */
export const MAX_STOP_CONTINUATIONS = 3;

/** Why SessionStart runs (its matcher value): a new session, a resumed one, one `/clear` started, after a compaction. */
export type SessionStartSource = 'startup' | 'resume' | 'clear' | 'compact';

/** The hooks of one turn. */
export interface TurnHooks {
  /** SessionStart (when `source` is given) then UserPromptSubmit: context for the prompt, or why the run stops. */
  beforePrompt(
    prompt: string,
    source: SessionStartSource | undefined,
    signal: AbortSignal,
  ): Promise<{ context: string[]; stop?: string }>;
  /** SessionStart with source `compact`, after a compaction in the turn: context for the model. */
  afterCompact(signal: AbortSignal): Promise<string[]>;
  /** PreToolUse / PostToolUse for the calls of one step; undefined when neither is configured. */
  toolHooks(signal: AbortSignal, emit: (d: EventDraft) => void): ToolCallHooks | undefined;
  /** PreCompact, trigger `auto`. */
  beforeCompact(signal: AbortSignal): Promise<void>;
  /** Stop: the instruction to go on with when a hook blocks the stop (bounded by {@link MAX_STOP_CONTINUATIONS}). */
  onStop(lastText: string, signal: AbortSignal, emit: (d: EventDraft) => void): Promise<{ continueWith?: string }>;
  /** A tool hook said `continue: false`: why; undefined otherwise. */
  readonly stopReason: string | undefined;
}

/** Options of {@link createTurnHooks}. */
export interface TurnHookOptions {
  environment: ToolEnvironment;
  sessionId: string;
  emit: (d: EventDraft) => void;
  clock: () => number;
  /** The session's transcript for `transcript_path` (hooks/transcript.ts); absent: null (the session is not stored). */
  transcript?: HookTranscript | undefined;
}

/** What runs the hooks of a session outside a turn (its end, a manual compaction). */
export type SessionHookOptions = Omit<TurnHookOptions, 'clock'>;

/** The turn's hooks; undefined when the environment has none. */
export function createTurnHooks(options: TurnHookOptions): TurnHooks | undefined {
  const { environment } = options;
  if (!environment.hooks) return undefined;
  const runner: HookRunner = sessionHookRunner(options);
  let stopReason: string | undefined;
  let continuations = 0;
  return {
    get stopReason() {
      return stopReason;
    },
    async beforePrompt(prompt, source, signal) {
      const context: string[] = [];
      if (source !== undefined) {
        for (const note of runner.ignored)
          options.emit({
            type: 'diagnostic.raised',
            payload: { code: 'MINICODE_W_HOOK_IGNORED', message: note, category: 'CONFIGURATION_ERROR' },
          });
        const started = await runner.run('SessionStart', { source }, { match: source, signal });
        if (started.stop !== undefined) return { context, stop: started.stop };
        context.push(...started.context);
      }
      const submitted = await runner.run('UserPromptSubmit', { prompt }, { signal });
      const stop =
        submitted.stop ??
        (submitted.blockReason !== undefined
          ? `a UserPromptSubmit hook blocked the prompt: ${submitted.blockReason}`
          : undefined);
      if (stop !== undefined) return { context, stop };
      context.push(...submitted.context);
      return { context };
    },
    toolHooks(signal, emit) {
      if (!runner.has('PreToolUse') && !runner.has('PostToolUse')) return undefined;
      const call = (c: { id: string; name: string }) => ({
        match: c.name,
        toolName: c.name,
        toolCallId: c.id,
        signal,
        emit,
      });
      return {
        async before(c, input) {
          const d = await runner.run(
            'PreToolUse',
            { tool_name: c.name, tool_input: input ?? {}, tool_use_id: c.id },
            call(c),
          );
          if (d.stop !== undefined) stopReason ??= d.stop;
          if (d.blockReason !== undefined) return { permission: 'deny', reason: d.blockReason };
          return { permission: d.permission, reason: d.permissionReason };
        },
        async after(c, input, outcome) {
          const d = await runner.run(
            'PostToolUse',
            { tool_name: c.name, tool_input: input ?? {}, tool_use_id: c.id, tool_response: responseOf(outcome) },
            call(c),
          );
          if (d.stop !== undefined) stopReason ??= d.stop;
          const notes = [...(d.blockReason !== undefined ? [d.blockReason] : []), ...d.context];
          return notes.length > 0 ? `[PostToolUse hook]\n${notes.join('\n')}` : undefined;
        },
      };
    },
    async afterCompact(signal) {
      return (await runner.run('SessionStart', { source: 'compact' }, { match: 'compact', signal })).context;
    },
    async beforeCompact(signal) {
      await runner.run('PreCompact', { trigger: 'auto', custom_instructions: '' }, { match: 'auto', signal });
    },
    async onStop(lastText, signal, emit) {
      if (!runner.has('Stop')) return {};
      const d = await runner.run(
        'Stop',
        { stop_hook_active: continuations > 0, last_assistant_message: lastText },
        { signal, emit },
      );
      // `continue: false` at the end of a turn only confirms the stop.
      if (d.blockReason === undefined || d.stop !== undefined) return {};
      if (continuations >= MAX_STOP_CONTINUATIONS) {
        emit({
          type: 'diagnostic.raised',
          payload: {
            code: 'MINICODE_W_HOOK_STOP_LOOP',
            message: `a Stop hook blocked the end of the turn ${continuations + 1} times; the turn ends anyway`,
            category: 'CONFIGURATION_ERROR',
            action: 'let the Stop hook exit 0 when stop_hook_active is true',
          },
        });
        return {};
      }
      continuations++;
      return { continueWith: d.blockReason };
    },
  };
}

/** The prompt as the model gets it: the hooks' context after the user's words. */
export function promptWithContext(prompt: string, context: readonly string[]): string {
  if (context.length === 0) return prompt;
  return [prompt, ...context.map((c) => `<hook-context>\n${c}\n</hook-context>`)].join('\n\n');
}

/** A tool's outcome as PostToolUse's `tool_response`. */
function responseOf(outcome: ToolOutcome): Record<string, unknown> {
  if (outcome.status === 'completed') return { status: 'completed', summary: outcome.summary, output: outcome.output };
  if (outcome.status === 'failed')
    return { status: 'failed', message: outcome.message, ...(outcome.output ? { output: outcome.output } : {}) };
  return { status: 'denied', reason: outcome.reason };
}

/**
 * SessionEnd hooks, when the session ends (`reason`: `exit` for a chat closed by the user,
 * `other` for a run that ended by itself); nothing when none is configured. Their output changes
 * nothing: the session is over.
 */
export async function runSessionEndHooks(options: SessionHookOptions, reason: string): Promise<void> {
  if (!options.environment.hooks?.byEvent.SessionEnd?.length) return;
  await sessionHookRunner(options).run('SessionEnd', { reason }, { match: reason });
}

/** PreCompact hooks of a compaction the person asked for (`/compact`, trigger `manual`); nothing when none is configured. */
export async function runManualCompactHooks(options: SessionHookOptions): Promise<void> {
  if (!options.environment.hooks?.byEvent.PreCompact?.length) return;
  await sessionHookRunner(options).run(
    'PreCompact',
    { trigger: 'manual', custom_instructions: '' },
    { match: 'manual' },
  );
}

/** The hook runner of one session in its tool environment (hooks run in its folder, with its env and mode). */
function sessionHookRunner(options: Omit<TurnHookOptions, 'clock'> & { clock?: () => number }): HookRunner {
  const { environment } = options;
  return createHookRunner({
    settings: environment.hooks!,
    cwd: environment.cwd,
    env: environment.env,
    sessionId: options.sessionId,
    permissionMode: environment.policy.mode,
    emit: options.emit,
    clock: options.clock,
    transcript: options.transcript,
  });
}
