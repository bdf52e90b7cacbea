import {
  EVENT_REGISTRY,
  createEnveloper,
  draft,
  type Enveloper,
  type EventDraft,
  type OutputEvent,
} from '../events/index.js';
import type { AgentPort, PromptInput, PromptOutcome } from './agent-port.js';
import { definedOnly } from '../defined-only.js';

/**
 * TEST-ONLY port: a scripted stand-in for the agent loop, so the ACP server can be driven end
 * to end before (and independently of) the real port in `lib/agent/acp-port.js`. `minicode
 * acp` uses it only when `MINICODE_ACP_SCRIPTED=1`. It emits hand-made `minicode.output.v1`
 * events chosen by keywords in the prompt:
 *
 * - `run <command>`: a gated `bash` tool that asks permission (through the client terminal
 *   when the client offers one), then completes, is denied, or is cancelled;
 * - `edit <path> <old> -> <new>`: an `edit` tool that reads the file and writes it back through
 *   the port's `fs` (the client's `fs/*` methods when offered); asks first in `ask` mode;
 * - `plan`: a plan with two steps, then both steps completed;
 * - `slow`: streams one chunk, then waits (up to 30 s) until cancelled;
 * - anything else: a thought and a two-chunk answer.
 *
 * Durable events are kept in memory per session, so `session/load` replays them.
 */
export function createScriptedPort(options: { clock?: () => number } = {}): AgentPort {
  const stored = new Map<string, OutputEvent[]>();
  const envelopers = new Map<string, Enveloper>();
  let turnCounter = 0;

  const enveloperFor = (sessionId: string): Enveloper => {
    let enveloper = envelopers.get(sessionId);
    if (!enveloper) {
      enveloper = createEnveloper(
        definedOnly({ sessionId, startSeq: stored.get(sessionId)?.length ?? 0, clock: options.clock }),
      );
      envelopers.set(sessionId, enveloper);
    }
    return enveloper;
  };

  return {
    async openSession(info) {
      if (!info.loaded) stored.set(info.sessionId, []);
    },
    async loadSession(sessionId) {
      const events = stored.get(sessionId);
      return events ? [...events] : null;
    },
    availableCommands: () => [
      { name: 'plan', description: 'Show a plan before working' },
      { name: 'run', description: 'Run a shell command (asks first)', hint: 'command to run' },
    ],
    async prompt(input) {
      const turnId = ++turnCounter;
      const enveloper = enveloperFor(input.sessionId);
      const log = stored.get(input.sessionId) ?? [];
      stored.set(input.sessionId, log);
      const emit = (d: EventDraft) => {
        const event = enveloper.wrap({ ...d, turnId });
        if (EVENT_REGISTRY[event.type].durable) log.push(event);
        input.onEvent(event);
      };
      emit(draft('user.message.received', { messageId: `u${turnId}`, text: input.text }));
      emit(draft('task.started', { taskId: `t${turnId}`, prompt: input.text }));
      const outcome = await runScript(input, emit, turnId);
      if (input.signal.aborted) emit(draft('task.cancelled', { taskId: `t${turnId}`, reason: 'aborted' }));
      else emit(draft('task.completed', { taskId: `t${turnId}`, reason: 'completed' }));
      return outcome;
    },
  };
}

type Emit = (d: EventDraft) => void;

async function runScript(input: PromptInput, emit: Emit, turn: number): Promise<PromptOutcome> {
  const text = input.text.trim();
  const run = /^run\s+(.+)$/s.exec(text);
  if (run?.[1]) return runCommand(input, emit, `call_${turn}`, run[1]);
  const edit = /^edit\s+(\S+)\s+(.+?)\s+->\s+(.+)$/s.exec(text);
  if (edit?.[1] && edit[2] !== undefined && edit[3] !== undefined)
    return editFile(input, emit, `call_${turn}`, edit[1], edit[2], edit[3]);
  if (text === 'plan') {
    const steps = [
      { id: 's1', title: 'Read the code', status: 'pending' as const },
      { id: 's2', title: 'Write the fix', status: 'pending' as const },
    ];
    emit(draft('plan.created', { planId: 'p1', steps }));
    emit(draft('plan.step.completed', { planId: 'p1', stepId: 's1' }));
    emit(draft('plan.step.completed', { planId: 'p1', stepId: 's2' }));
    say(emit, `m${turn}`, ['Plan ', 'done.']);
    return { stopReason: 'end_turn' };
  }
  if (text === 'slow') {
    emit(draft('assistant.message.delta', { messageId: `m${turn}`, delta: 'Working slowly' }));
    await waitForAbort(input.signal, 30_000);
    if (input.signal.aborted) {
      emit(draft('assistant.message.truncated', { messageId: `m${turn}`, text: 'Working slowly', reason: 'aborted' }));
      return { stopReason: 'cancelled' };
    }
    emit(draft('assistant.message.completed', { messageId: `m${turn}`, text: 'Working slowly' }));
    return { stopReason: 'end_turn' };
  }
  emit(draft('assistant.reasoning.delta', { reasoningId: `r${turn}`, delta: 'The user said hello.' }));
  emit(draft('assistant.reasoning.completed', { reasoningId: `r${turn}`, text: 'The user said hello.' }));
  say(emit, `m${turn}`, ['Hello ', 'from minicode.']);
  return { stopReason: 'end_turn' };
}

function say(emit: Emit, messageId: string, chunks: string[]): void {
  for (const delta of chunks) emit(draft('assistant.message.delta', { messageId, delta }));
  emit(draft('assistant.message.completed', { messageId, text: chunks.join('') }));
}

async function runCommand(input: PromptInput, emit: Emit, toolCallId: string, command: string): Promise<PromptOutcome> {
  emit(
    draft(
      'tool.started',
      { toolCallId, name: 'bash', kind: 'execute', title: command, input: { command } },
      { correlationId: toolCallId },
    ),
  );
  const settled = await approve(input, emit, toolCallId, 'bash', command);
  if (settled !== 'run') return settled;
  let output = `ran: ${command}`;
  if (input.terminal) {
    const result = await input.terminal.run({ command: 'sh', args: ['-c', command], toolCallId }, input.signal);
    output = result.output;
  }
  emit(draft('tool.completed', { toolCallId, name: 'bash', summary: 'exit 0', output }, { correlationId: toolCallId }));
  say(emit, `m${toolCallId}`, ['Command ', 'finished.']);
  return { stopReason: 'end_turn' };
}

async function editFile(
  input: PromptInput,
  emit: Emit,
  toolCallId: string,
  file: string,
  oldText: string,
  newText: string,
): Promise<PromptOutcome> {
  const toolInput = { path: file, old_string: oldText, new_string: newText };
  emit(
    draft(
      'tool.started',
      { toolCallId, name: 'edit', kind: 'edit', title: `Edit ${file}`, input: toolInput, locations: [{ path: file }] },
      { correlationId: toolCallId },
    ),
  );
  if (input.mode !== 'auto') {
    const settled = await approve(input, emit, toolCallId, 'edit', `Edit ${file}`);
    if (settled !== 'run') return settled;
  }
  const before = await input.fs.readTextFile(file);
  if (!before.includes(oldText)) {
    emit(
      draft(
        'tool.failed',
        { toolCallId, name: 'edit', cause: 'TOOL_ERROR', message: `old text not found in ${file}` },
        { correlationId: toolCallId },
      ),
    );
    return { stopReason: 'end_turn' };
  }
  await input.fs.writeTextFile(file, before.replace(oldText, newText));
  emit(draft('file.changed', { changes: [{ path: file, kind: 'modify' }], toolCallId }, { correlationId: toolCallId }));
  emit(
    draft(
      'tool.completed',
      { toolCallId, name: 'edit', summary: `edited ${file}`, receipt: { paths: [file] } },
      { correlationId: toolCallId },
    ),
  );
  say(emit, `m${toolCallId}`, ['Edited ', file, '.']);
  return { stopReason: 'end_turn' };
}

/** Ask, record the approval events, and close the tool when it may not run. */
async function approve(
  input: PromptInput,
  emit: Emit,
  toolCallId: string,
  toolName: string,
  action: string,
): Promise<'run' | PromptOutcome> {
  const approvalId = `a_${toolCallId}`;
  emit(draft('user.approval.requested', { approvalId, toolCallId, toolName, action }, { correlationId: toolCallId }));
  const decision = await input.requestPermission({
    toolCallId,
    toolName,
    title: action,
    kind: toolName === 'edit' ? 'edit' : 'execute',
  });
  emit(
    draft('user.approval.settled', { approvalId, outcome: decision, reason: 'user' }, { correlationId: toolCallId }),
  );
  if (decision === 'allow' || decision === 'allow-always') return 'run';
  if (decision === 'cancelled') {
    emit(
      draft('tool.cancelled', { toolCallId, name: toolName, reason: 'turn cancelled' }, { correlationId: toolCallId }),
    );
    return { stopReason: 'cancelled' };
  }
  emit(
    draft('tool.denied', { toolCallId, name: toolName, reason: 'denied by the user' }, { correlationId: toolCallId }),
  );
  say(emit, `m${toolCallId}`, ['Understood, ', 'not running it.']);
  return { stopReason: 'end_turn' };
}

function waitForAbort(signal: AbortSignal, maxMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, maxMs);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
