/**
 * The hooks of one session at work: for an event, every configured hook whose matcher takes the
 * event's value runs at once (each a real subprocess, see run-command.ts), each run becomes one
 * `hook.completed` or `hook.failed` event, and their verdicts combine into one decision: any
 * block blocks (reasons joined), a `deny` beats an `ask`, which beats an `allow`; contexts are
 * kept in configuration order. Text that goes to the model (context, reasons, the next
 * instruction) passes the scrub of all output here: terminal sequences dropped, then the secret
 * rules and the environment's credential values masked (a hook may `cat` a token file; the model
 * never reads it). Events are scrubbed by the pipeline like every other.
 */
import { outputRedactor } from '../artefacts.js';
import { draft } from '../events/draft.js';
import type { EventDraft, PayloadOf } from '../events/index.js';
import { sanitizeText } from '../scrub/terminal-sanitizer.js';
import { capHeadTail } from '../tools/truncate.js';
import { compileMatcher, type MatchTest } from './matcher.js';
import { HOOK_EXCERPT_MAX, type HookEventName } from './names.js';
import { hookEnv, runHookCommand } from './run-command.js';
import type { HookSettings, HookSpec } from './settings.js';
import type { HookTranscript } from './transcript.js';
import { verdictOf, type HookPermission, type HookVerdict } from './verdict.js';

/** What the hooks of one event decided together. */
export interface HookDecision {
  /** Some hook blocked: why (each blocking hook's reason, one per line). */
  blockReason?: string;
  /** PreToolUse: the strongest permission decision. */
  permission?: HookPermission;
  permissionReason?: string;
  /** Context for the model, in configuration order. */
  context: string[];
  /** Some hook said `continue: false`: the run stops, for this reason. */
  stop?: string;
}

/** Options of {@link createHookRunner}. */
export interface HookRunnerOptions {
  settings: HookSettings;
  /** The workspace: the hooks' working folder and `MINICODE_PROJECT_DIR`. */
  cwd: string;
  /** What the hooks' minimal environment is taken from. */
  env: NodeJS.ProcessEnv;
  sessionId: string;
  /** The approval mode, sent as `permission_mode`. */
  permissionMode?: string | undefined;
  /** Receives one `hook.*` draft per hook run. */
  emit: (draft: EventDraft) => void;
  /** Default `Date.now`. */
  clock?: (() => number) | undefined;
  /** Brings the session's transcript file up to date before each hook run (transcript.ts); absent: `transcript_path` is null. */
  transcript?: HookTranscript | undefined;
}

/** Where an event comes from in the run: the matcher's value, a tool call, the run's signal. */
export interface HookCall {
  /** What matchers are tested against: the tool name, SessionStart's source, PreCompact's trigger. */
  match?: string | undefined;
  toolName?: string | undefined;
  toolCallId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Sends the hook's event through another emit (a step's, with its ids); default the runner's. */
  emit?: ((draft: EventDraft) => void) | undefined;
}

/** The hooks of a session. */
export interface HookRunner {
  /** True when some hook is configured for `event` (nothing is spawned otherwise). */
  has(event: HookEventName): boolean;
  /** Run the hooks of `event` with its fields (`tool_name`, `prompt`, ...) added to the common ones. */
  run(event: HookEventName, fields: Record<string, unknown>, call?: HookCall): Promise<HookDecision>;
  /** What the settings left out, once (diagnostics for the session's start). */
  ignored: readonly string[];
}

/** Characters of one hook's text the model reads (head and tail, with a marker): 10,000. */
export const HOOK_MODEL_TEXT_MAX = 10_000;

const PERMISSION_RANK: Record<HookPermission, number> = { allow: 1, ask: 2, deny: 3 };

/** The hooks of a session, run by `options.settings`. */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const clock = options.clock ?? Date.now;
  const env = hookEnv(options.env, options.cwd);
  const redact = outputRedactor(options.env);
  const forModel = (text: string): string => capHeadTail(redact(sanitizeText(text)), HOOK_MODEL_TEXT_MAX).text;
  const matchers = new Map<string, MatchTest>();
  const matches = (matcher: string, value: string | undefined): boolean => {
    let test = matchers.get(matcher);
    if (!test) matchers.set(matcher, (test = compileMatcher(matcher)));
    return test(value);
  };
  const applicable = (event: HookEventName, match: string | undefined): readonly HookSpec[] =>
    (options.settings.byEvent[event] ?? []).filter(
      (spec) => spec.matcher === undefined || matches(spec.matcher, match),
    );
  return {
    ignored: options.settings.ignored,
    has: (event) => (options.settings.byEvent[event]?.length ?? 0) > 0,
    async run(event, fields, call = {}) {
      const specs = applicable(event, call.match);
      if (specs.length === 0) return { context: [] };
      const emit = call.emit ?? options.emit;
      const input = JSON.stringify({
        session_id: options.sessionId,
        transcript_path: await transcriptPath(options.transcript, emit),
        cwd: options.cwd,
        hook_event_name: event,
        ...(options.permissionMode ? { permission_mode: options.permissionMode } : {}),
        ...fields,
      });
      const verdicts = await Promise.all(
        specs.map(async (spec) => {
          const run = await runHookCommand(spec.command, input, {
            cwd: options.cwd,
            env,
            timeoutMs: spec.timeoutMs,
            signal: call.signal,
            clock,
          });
          const verdict = run.aborted
            ? ({ outcome: 'error', message: 'the run stopped while the hook ran' } as HookVerdict)
            : verdictOf(event, run);
          emit(hookDraft(spec, verdict, run, call));
          return verdict;
        }),
      );
      return combine(verdicts, forModel);
    },
  };
}

/** The transcript's path once it is up to date; null without one, or when it cannot be written (said in a diagnostic: the hook runs anyway). */
async function transcriptPath(
  transcript: HookTranscript | undefined,
  emit: (draft: EventDraft) => void,
): Promise<string | null> {
  if (!transcript) return null;
  try {
    return await transcript();
  } catch (error) {
    emit(
      draft(
        'diagnostic.raised',
        {
          code: 'MINICODE_W_HOOK_TRANSCRIPT',
          message: `the session transcript for hooks could not be written: ${error instanceof Error ? error.message : String(error)}`,
          category: 'FILESYSTEM_ERROR',
        },
        { severity: 'warning' },
      ),
    );
    return null;
  }
}

/** The verdicts of one event's hooks as one decision; `forModel` scrubs each text the model will read. */
function combine(verdicts: readonly HookVerdict[], forModel: (text: string) => string): HookDecision {
  const decision: HookDecision = { context: [] };
  const blocks: string[] = [];
  for (const v of verdicts) {
    if (v.blockReason !== undefined) blocks.push(forModel(v.blockReason));
    if (
      v.permission &&
      (!decision.permission || PERMISSION_RANK[v.permission] > PERMISSION_RANK[decision.permission])
    ) {
      decision.permission = v.permission;
      if (v.permissionReason !== undefined) decision.permissionReason = forModel(v.permissionReason);
      else delete decision.permissionReason;
    }
    if (v.context !== undefined) decision.context.push(forModel(v.context));
    if (v.stop !== undefined && decision.stop === undefined) decision.stop = forModel(v.stop);
  }
  if (blocks.length > 0) decision.blockReason = blocks.join('\n');
  return decision;
}

/** The `hook.*` draft of one run. */
function hookDraft(
  spec: HookSpec,
  verdict: HookVerdict,
  run: { exitCode: number | null; stdout: string; stderr: string; durationMs: number; startError?: string },
  call: HookCall,
): EventDraft {
  const decision =
    verdict.stop !== undefined ? 'stop' : (verdict.permission ?? (verdict.outcome === 'blocked' ? 'block' : undefined));
  const reason = verdict.stop ?? verdict.blockReason ?? verdict.permissionReason;
  const excerpt = (text: string): string | undefined =>
    text.trim() ? capHeadTail(text, HOOK_EXCERPT_MAX).text : undefined;
  const stdout = excerpt(run.stdout);
  const stderr = excerpt(run.stderr);
  const message = verdict.message ?? run.startError;
  const payload: PayloadOf<'hook.completed'> = {
    hookEvent: spec.event,
    command: spec.command,
    source: spec.source,
    ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
    ...(call.toolName !== undefined ? { toolName: call.toolName } : {}),
    ...(call.toolCallId !== undefined ? { toolCallId: call.toolCallId } : {}),
    outcome: verdict.outcome,
    ...(run.exitCode !== null ? { exitCode: run.exitCode } : {}),
    durationMs: run.durationMs,
    ...(decision !== undefined ? { decision } : {}),
    ...(reason !== undefined ? { reason: capHeadTail(reason, HOOK_EXCERPT_MAX).text } : {}),
    ...(message !== undefined ? { message: capHeadTail(message, HOOK_EXCERPT_MAX).text } : {}),
    ...(stdout !== undefined ? { stdout } : {}),
    ...(stderr !== undefined ? { stderr } : {}),
  };
  const fields = call.toolCallId !== undefined ? { correlationId: call.toolCallId } : {};
  return verdict.outcome === 'success' || verdict.outcome === 'blocked'
    ? draft('hook.completed', payload, fields)
    : draft('hook.failed', payload, fields);
}
