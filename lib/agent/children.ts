/**
 * Child sessions: what the `task` tool starts. A child is a session of its own (its own id,
 * events, reducer state and entry in the same store) whose `session.started` names its parent
 * session and the parent's tool call. It runs the agent definition it was asked for, with the
 * parent's provider (or the definition's model), workspace, sandbox, approval policy and
 * person to ask, and its own context: the prompt the parent wrote, the parent's system prompt
 * plus what a child needs to know.
 *
 * The control plane holds it under its parent: the child's signal is the parent's run signal
 * (any stop of the parent stops it, `task.cancelled` with cause `parent-cancel`); its estimated
 * spend is reported to the parent's budget as it goes; at most `maxChildren` run at once (more
 * wait their turn); the depth limit decides whether a child may start children of its own; and
 * the parent's session does not end before its children's have ({@link ChildSessionsRunner.settled}).
 */
import { childHookSettings } from '../hooks/settings.js';
import type { ReducerState } from '../reducer/index.js';
import type { Renderer } from '../render/types.js';
import type { EventStore } from '../store/store.js';
import type { ChildSessions, ChildTaskRequest, ToolOutcome } from '../tools/types.js';
import type { OutputEvent } from '../events/index.js';
import type { AgentCatalogue, AgentDefinition } from './agent-definitions.js';
import { promptSettings, promptSettingsFor, type PromptSettings } from './prompt-settings.js';
import type { ParentLink, PromptRun, PromptRunOptions } from './prompt-run.js';

/** What a child is told about its situation, before its agent definition's own instructions. */
export const CHILD_PREAMBLE = [
  '# You are a sub-agent',
  'Another agent started you through its task tool to do the task in the user message. Nobody can answer questions: work on your own, within your tools.',
  'Your final answer is returned to that agent as the tool result, and it sees nothing else of your work: end with a complete, self-contained report of what you found or did (paths, names, results).',
].join('\n');

/** Options of {@link createChildSessions}. */
export interface ChildSessionsOptions {
  /** The parent run's options (provider, limits, environment, interaction, prompting, clock, surface hooks). */
  parent: PromptRunOptions;
  parentSessionId: string;
  /** The parent's depth: 0 for a top-level session. */
  depth: number;
  agents: AgentCatalogue;
  /** The store the parent writes to (its held store until it opens): children are stored beside it. */
  store: EventStore | undefined;
  /** Resolves once the parent's events so far are out, so a child's shown events follow its `tool.started`. */
  parentSettled: () => Promise<unknown>;
  /** The prompt runner (runPrompt itself, passed in: run-prompt.ts imports this module). */
  runPrompt: (options: PromptRunOptions) => Promise<PromptRun>;
}

/** The child sessions of one parent run, and the wait for them to end. */
export interface ChildSessionsRunner extends ChildSessions {
  /** Resolves once every child started so far has ended (the parent then ends its session). */
  settled(): Promise<void>;
}

/** A semaphore of `limit` slots; a waiter leaves the queue when its signal aborts. */
function slots(limit: number): { take(signal: AbortSignal): Promise<() => void> } {
  let free = limit;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return {
    take(signal) {
      if (free > 0) {
        free--;
        return Promise.resolve(release);
      }
      return new Promise((resolve, reject) => {
        const onGo = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        };
        const onAbort = (): void => {
          const at = waiting.indexOf(onGo);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal.reason);
        };
        waiting.push(onGo);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

/** One line of a child's progress from one of its events, or undefined for events not worth a line. */
export function progressLineOf(event: OutputEvent): string | undefined {
  switch (event.type) {
    case 'tool.started':
      return `${event.payload.name}${event.payload.title ? ` ${event.payload.title}` : ''}`;
    case 'tool.failed':
      return `${event.payload.name ?? 'tool'} failed: ${event.payload.message.split('\n')[0]}`;
    case 'tool.denied':
      return `${event.payload.name ?? 'tool'} denied`;
    case 'assistant.message.completed': {
      const first = event.payload.text.trim().split('\n')[0] ?? '';
      return first === '' ? undefined : first.length > 160 ? `${first.slice(0, 159)}…` : first;
    }
    default:
      return undefined;
  }
}

/** The prompt settings of a child: the parent's recipe with the preamble and the definition's instructions appended, no typed result. */
export function childPromptSettings(parent: PromptSettings, cwd: string, definition: AgentDefinition): PromptSettings {
  const append = [parent.recipe.append, CHILD_PREAMBLE, definition.instructions]
    .filter((t): t is string => t !== undefined && t.trim() !== '')
    .join('\n\n');
  return promptSettingsFor(parent, cwd, { append }, undefined);
}

/** The child sessions a parent run may start. */
export function createChildSessions(options: ChildSessionsOptions): ChildSessionsRunner {
  const { parent } = options;
  const limits = parent.limits;
  const canStart = options.depth < limits.maxChildDepth;
  const gate = slots(limits.maxChildren);
  const running = new Set<Promise<unknown>>();
  const agents = [...options.agents.agents.values()].map((a) => ({ name: a.name, description: a.description }));

  const runChild = async (request: ChildTaskRequest, definition: AgentDefinition): Promise<ToolOutcome> => {
    let release: () => void;
    try {
      release = await gate.take(request.signal);
    } catch (error) {
      // The parent stopped while this child waited for a slot: it never started.
      if (!request.signal.aborted) throw error;
      return { status: 'failed', cause: 'USER_ERROR', message: 'the parent run stopped before the sub-agent started' };
    }
    try {
      await options.parentSettled();
      const model = request.model ?? definition.model ?? parent.provider.model;
      const link: ParentLink = {
        parentSessionId: options.parentSessionId,
        parentToolCallId: request.toolCallId,
        subagentType: definition.name,
        depth: options.depth + 1,
      };
      const renderer: Renderer<ReducerState> | undefined = parent.childRenderer?.();
      const run = await options.runPrompt({
        ...parent,
        origin: 'task',
        prompt: request.prompt,
        images: undefined,
        provider: { ...parent.provider, model },
        // The parent's deadline and budget govern the child (its stop is the parent's stop;
        // its spend is counted in the parent's budget), so it has neither of its own.
        limits: { ...limits, timeoutMs: undefined, budget: undefined },
        // The parent's checkpoint, taken before its `task` call, covers what the child changes.
        environment: {
          ...parent.environment,
          checkpoints: undefined,
          hooks: childHookSettings(parent.environment.hooks),
        },
        // A child is a session of its own: its commands start from a shell of their own.
        shell: undefined,
        prompting: childPromptSettings(parent.prompting ?? promptSettings(), parent.environment.cwd, definition),
        toolNames: definition.tools,
        signal: request.signal,
        store: options.store,
        openStore: undefined,
        renderer,
        output: undefined,
        session: undefined,
        sessionId: undefined,
        verifyCommand: undefined,
        preamble: [],
        endSession: true,
        onSettled: undefined,
        parentLink: link,
        onEvent: (event) => {
          const line = progressLineOf(event);
          if (line !== undefined) request.onProgress(line);
        },
        onUsage: (totals) => request.onCost(totals.costUsd),
      });
      const { result } = run;
      const where = `child session ${run.sessionId}`;
      if (result.reason === 'completed') {
        const output =
          result.result !== undefined
            ? JSON.stringify(result.result, null, 2)
            : result.finalText.trim() === ''
              ? '(the sub-agent finished without an answer)'
              : result.finalText;
        return {
          status: 'completed',
          summary: `${definition.name}: ${request.description} (${where}, ${result.steps} step${result.steps === 1 ? '' : 's'})`,
          output,
        };
      }
      return {
        status: 'failed',
        cause: result.error?.category ?? 'AGENT_ERROR',
        message: `the sub-agent stopped (${result.reason}): ${result.error?.message ?? result.reason} (${where})`,
        ...(result.finalText.trim() !== '' ? { output: result.finalText } : {}),
      };
    } finally {
      release();
    }
  };

  return {
    agents,
    canStart,
    run(request) {
      if (!canStart)
        return Promise.resolve({
          status: 'failed',
          cause: 'MODEL_ERROR',
          message: 'child sessions may not start their own (depth limit)',
        });
      const definition = options.agents.agents.get(request.agent);
      if (!definition) {
        return Promise.resolve({
          status: 'failed',
          cause: 'MODEL_ERROR',
          message: `unknown subagent_type "${request.agent}"`,
          hint: `available: ${agents.map((a) => a.name).join(', ')}`,
        });
      }
      const child = runChild(request, definition);
      const tracked = child.catch(() => undefined);
      running.add(tracked);
      void tracked.finally(() => running.delete(tracked));
      return child;
    },
    async settled() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
