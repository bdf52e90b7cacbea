/**
 * What a prompt run takes and gives (lib/agent/run-prompt.ts runs it): the types the surfaces
 * and the child sessions (children.ts) share, kept apart so that run-prompt.ts -> children.ts
 * runs one way.
 */
import type { EventDraft, OutputEvent } from '../events/index.js';
import type { OutputPort } from '../pipeline/output.js';
import type { ReducerState } from '../reducer/index.js';
import type { Renderer } from '../render/types.js';
import type { EventStore } from '../store/store.js';
import type { VerifyReport } from '../verify/run.js';
import type { ConversationMessage } from './conversation.js';
import type { AgentOptions, AgentResult } from './loop.js';

/** The link a child session records in its `session.started`. */
export interface ParentLink {
  parentSessionId: string;
  parentToolCallId: string;
  subagentType: string;
  /** How deep the session is: 1 for a child of a top-level session. */
  depth: number;
}

/** Options of `runPrompt` (run-prompt.ts). */
export interface PromptRunOptions
  extends Omit<
    AgentOptions,
    | 'emit'
    | 'write'
    | 'tools'
    | 'toolsReady'
    | 'history'
    | 'taskId'
    | 'turnId'
    | 'children'
    | 'cancelCause'
    | 'hookTranscript'
  > {
  /** Where the session is kept; absent (and no `openStore`) means not stored. */
  store?: EventStore | undefined;
  /**
   * Open the store once the first events are out (instead of `store`): called right after they
   * are flushed, so that loading and opening the store is not on the first line's path. The
   * events settled meanwhile are held and stored once it is open (same order, same seq); the
   * agent starts no turn before that. When it fails, the run ends there: the summary is a
   * failure with its error (`FinishExtra.error`), nothing is stored, and runPrompt rejects with
   * that error.
   */
  openStore?: (() => Promise<EventStore>) | undefined;
  renderer?: Renderer<ReducerState> | undefined;
  /** The renderer's output (stdout): a slow reader slows the provider read (backpressure). */
  output?: OutputPort | undefined;
  /** Every event after reduction (ACP projection, batch accounting). */
  onEvent?: ((event: OutputEvent, state: ReducerState) => void) | undefined;
  /** Continue a session: its id, next sequence number, rebuilt state and conversation. */
  session?:
    | { id: string; startSeq: number; state: ReducerState; history: ConversationMessage[]; turn: number }
    | undefined;
  /** New session id; default a fresh one. */
  sessionId?: string | undefined;
  /** `exec`, `batch`, `chat`, `acp`. */
  origin: string;
  /** The operator's verify command, run after the agent (only then does the summary carry `verify`). */
  verifyCommand?: string | undefined;
  /** Extra drafts to emit right after `session.started` (e.g. config diagnostics). */
  preamble?: EventDraft[];
  /**
   * Emit `session.ended` after the prompt; default true. A surface whose session outlives one
   * prompt passes false: ACP (every prompt is one turn of a session the client may load and
   * continue later; the turn's task events decide the stored outcome) and the interactive mode
   * (which ends the session once, on exit, with {@link endSession}).
   */
  endSession?: boolean;
  /** Called once the run's events are settled, before the store acknowledges them (see `RunPipelineOptions.onSettled`). */
  onSettled?: (() => void) | undefined;
  /** The tools the run may use, by name (`submit_result` and `task` always); `all` or undefined: every tool. A child's agent definition sets it. */
  toolNames?: readonly string[] | 'all' | undefined;
  /** This run is a child session (the `task` tool): its parent, recorded in `session.started`. */
  parentLink?: ParentLink | undefined;
  /**
   * How the surface shows a child session's events, one renderer per child (`exec --json`: its
   * envelopes among the parent's lines); undefined: not rendered (its progress still shows as the
   * parent's `tool.progress` under the `task` call).
   */
  childRenderer?: (() => Renderer<ReducerState> | undefined) | undefined;
}

/** What a prompt run gives its caller. */
export interface PromptRun {
  sessionId: string;
  result: AgentResult;
  state: ReducerState;
  verify?: VerifyReport;
  /** The next sequence number of the session, for a further turn. */
  nextSeq: number;
  /** The digest of the system prompt the run sent (with its tool shape's note), as `session.started` records it. */
  systemPromptDigest: string;
}
