import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { EventDraft } from '../../lib/events/index.js';
import type { NativeFormat } from '../../lib/decode/formats.js';
import { NATIVE_AGENT_DECODERS } from '../../lib/native/index.js';
import { ROOT } from '../helpers/cli.js';
import { byteByByte, splitAt } from '../helpers/splits.js';
import { decodeBytes, decodeChunks, summarise, type Ending } from './decode-helpers.js';
import { violations } from './invariants.js';

// Our own hand-made streams (see test/streams/native/README.md): they run on a bare clone.
const STREAMS = path.join(ROOT, 'test/streams/native');
const read = (name: string) => fs.readFileSync(path.join(STREAMS, name));
const ofType = <T extends EventDraft['type']>(events: EventDraft[], type: T) =>
  events.filter((e): e is Extract<EventDraft, { type: T }> => e.type === type);

const CASES: {
  file: string;
  format: NativeFormat;
  ending: Ending;
  message: string | undefined;
  tools: Record<string, string>;
  outcome: string | undefined;
  diagnostics: string[];
}[] = [
  {
    file: 'codex-all-items.jsonl',
    format: 'codex',
    ending: { exit: [0, null] },
    message: 'Fixed the off-by-one in src/pager.ts.',
    tools: {
      item_2: 'mcp:docs/search:completed',
      item_3: 'mcp:docs/fetch:failed',
      item_4: 'web_search:completed',
      item_5: 'shell:denied',
      item_6: 'apply_patch:completed',
      item_7: 'collab:spawn_agent:completed',
    },
    outcome: 'completed',
    diagnostics: ['MINICODE_E_NATIVE_UNKNOWN_ITEM'],
  },
  {
    file: 'codex-turn-failed-quota.jsonl',
    format: 'codex',
    ending: { exit: [1, null] },
    message: undefined,
    tools: {},
    outcome: 'failed:provider',
    diagnostics: [],
  },
  {
    file: 'codex-resume-old-spelling.jsonl',
    format: 'codex',
    ending: { exit: [0, null] },
    message: 'second answer',
    tools: {},
    outcome: 'completed',
    diagnostics: [],
  },
  {
    file: 'codex-interrupted.jsonl',
    format: 'codex',
    ending: 'end-only',
    message: undefined,
    tools: { item_1: 'shell:started' },
    outcome: undefined,
    diagnostics: [],
  },
  {
    file: 'claude-api-error.jsonl',
    format: 'claude-code',
    ending: { exit: [1, null] },
    message: 'API Error: Rate limit reached',
    tools: {},
    outcome: 'failed:provider',
    diagnostics: [],
  },
  {
    file: 'claude-denied-subagent.jsonl',
    format: 'claude-code',
    ending: { exit: [0, null] },
    message: 'I could not delete build (permission denied); src has 12 files.',
    tools: { toolu_hand_rm: 'Bash:denied', toolu_hand_task: 'Task:completed', toolu_hand_ls: 'Bash:completed' },
    outcome: 'completed',
    diagnostics: ['MINICODE_W_NATIVE_LIMIT_NEAR', 'MINICODE_E_NATIVE_UNKNOWN_RECORD'],
  },
  {
    file: 'claude-max-turns.jsonl',
    format: 'claude-code',
    ending: { exit: [1, null] },
    message: undefined,
    tools: { toolu_hand_loop: 'Bash:cancelled' },
    outcome: 'failed:max_steps_exceeded',
    diagnostics: [],
  },
  {
    file: 'gemini-quota.jsonl',
    format: 'gemini-cli',
    ending: { exit: [1, null] },
    message: 'Running them now.',
    tools: { run_shell_command__a1: 'run_shell_command:failed', write_file__a2: 'write_file:denied' },
    outcome: 'failed:provider',
    diagnostics: ['MINICODE_W_NATIVE_AGENT_WARNING'],
  },
  {
    file: 'gemini-cut.jsonl',
    format: 'gemini-cli',
    ending: 'end-only',
    message: undefined,
    tools: {},
    outcome: undefined,
    diagnostics: [],
  },
  {
    file: 'opencode-errors.jsonl',
    format: 'opencode',
    ending: { exit: [1, null] },
    message: undefined,
    tools: { call_hand_edit: 'edit:denied', call_hand_read: 'read:failed' },
    outcome: 'failed:provider',
    diagnostics: [],
  },
  {
    file: 'opencode-done.jsonl',
    format: 'opencode',
    ending: 'end-only',
    message: 'pong',
    tools: {},
    outcome: 'completed',
    diagnostics: [],
  },
  {
    file: 'claude-quota-midrun.jsonl',
    format: 'claude-code',
    ending: { exit: [1, null] },
    message: "You've hit your limit · resets 2pm (UTC)",
    tools: { toolu_quota_write: 'Write:completed' },
    outcome: 'failed:provider',
    diagnostics: [],
  },
  {
    file: 'claude-transient-limit.jsonl',
    format: 'claude-code',
    ending: { exit: [0, null] },
    message: 'Done: the greeting is in place.',
    tools: {},
    outcome: 'completed',
    diagnostics: ['MINICODE_W_NATIVE_LIMIT_NEAR'],
  },
  {
    file: 'claude-auth-failure.jsonl',
    format: 'claude-code',
    ending: { exit: [1, null] },
    message: 'Invalid API key · Please run /login',
    tools: {},
    outcome: 'failed:provider',
    diagnostics: [],
  },
  {
    file: 'codex-takeover.jsonl',
    format: 'codex',
    ending: { exit: [0, null] },
    message: 'cli.js now prints greet(process.argv[2]).',
    tools: { item_1: 'apply_patch:completed' },
    outcome: 'completed',
    diagnostics: [],
  },
  {
    file: 'terminal-quota.txt',
    format: 'terminal',
    ending: { exit: [1, null] },
    message: undefined,
    tools: {},
    outcome: 'failed:provider',
    diagnostics: [],
  },
];

describe('hand-made native streams (test/streams/native)', () => {
  it('covers every file in the directory', () => {
    const files = fs.readdirSync(STREAMS).filter((f) => f !== 'README.md');
    expect(files.sort()).toEqual(CASES.map((c) => c.file).sort());
  });

  describe.each(CASES)('$file', ({ file, format, ending, message, tools, outcome, diagnostics }) => {
    const bytes = read(file);
    const events = decodeBytes(format, bytes, ending);

    it('decodes to the stated final message, tool terminals and outcome', () => {
      const summary = summarise(events);
      expect(summary.finalMessage).toBe(message);
      expect(summary.tools).toEqual(tools);
      expect(summary.outcome).toBe(outcome);
      expect(summary.diagnostics).toEqual(diagnostics);
    });

    it('obeys the task, tool and approval state machines', () => {
      expect(violations(events)).toEqual([]);
    });

    it('decodes the same byte by byte and at random splits', () => {
      expect(decodeChunks(format, byteByByte(bytes), ending)).toEqual(events);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 10 }), (cuts) => {
          expect(decodeChunks(format, splitAt(bytes, cuts), ending)).toEqual(events);
        }),
        { numRuns: 20, seed: 7 },
      );
    });
  });
});

describe('the Codex decoder', () => {
  it('turns todo_list items into a plan that is created then updated', () => {
    const events = decodeBytes('codex', read('codex-all-items.jsonl'));
    expect(ofType(events, 'plan.created')[0]?.payload.steps.map((s) => s.status)).toEqual(['pending', 'pending']);
    expect(ofType(events, 'plan.updated').map((e) => e.payload.steps.map((s) => s.status))).toEqual([
      ['completed', 'pending'],
      ['completed', 'completed'],
    ]);
  });

  it('keeps error items and reconnects from ending the run', () => {
    const events = decodeBytes('codex', read('codex-all-items.jsonl'));
    expect(ofType(events, 'recovery.started')[0]).toMatchObject({
      fidelity: 'inferred',
      payload: { strategy: 'retry', attempt: 1 },
    });
    expect(ofType(events, 'error.raised')[0]).toMatchObject({
      severity: 'warning',
      payload: { error: { code: 'codex:error-item' } },
    });
    expect(ofType(events, 'file.changed')[0]?.payload.changes).toEqual([
      { path: 'src/pager.ts', kind: 'modify' },
      { path: 'src/old.ts', kind: 'delete' },
    ]);
  });

  it('reports usage-limit wording as an inferred limit and fails the turn', () => {
    const events = decodeBytes('codex', read('codex-turn-failed-quota.jsonl'), { exit: [1, null] });
    const limits = ofType(events, 'limit.reached');
    expect(limits.length).toBeGreaterThan(0);
    expect(limits[0]).toMatchObject({
      fidelity: 'inferred',
      payload: { kind: 'usage-quota', retryAfterMs: 7_200_000 },
    });
    expect(ofType(events, 'task.failed')[0]).toMatchObject({
      fidelity: 'native',
      payload: { reason: 'provider', error: { recoverability: 'RETRYABLE' } },
    });
  });

  it('starts a second task for a resumed thread and replaces cumulative usage', () => {
    const events = decodeBytes('codex', read('codex-resume-old-spelling.jsonl'));
    expect(ofType(events, 'agent.session.identified').map((e) => e.payload.resumed)).toEqual([undefined, true]);
    expect(ofType(events, 'task.started').map((e) => e.payload.taskId)).toEqual(['task-1', 'task-1.2']);
    expect(ofType(events, 'task.completed').map((e) => e.payload.taskId)).toEqual(['task-1', 'task-1.2']);
    const usage = ofType(events, 'usage.reported');
    expect(usage.every((u) => u.payload.cumulative)).toBe(true);
    // Thread totals: the second report replaces the first (2500 input tokens, not 3500).
    expect(usage.map((u) => u.payload.usage.inputTokens)).toEqual([1000, 2500]);
    expect(ofType(events, 'assistant.reasoning.completed')[0]?.payload.text).toBe('**Picking up where we left off**');
  });

  it('leaves a killed turn unsettled on end(), and fails it on a signal', () => {
    const bytes = read('codex-interrupted.jsonl');
    expect(summarise(decodeBytes('codex', bytes, 'end-only')).outcome).toBeUndefined();
    const killed = decodeBytes('codex', bytes, { exit: [null, 'SIGKILL'] });
    expect(killed.at(-2)).toMatchObject({
      type: 'tool.cancelled',
      fidelity: 'synthetic',
      payload: { toolCallId: 'item_1', reason: 'parent-ended' },
    });
    expect(killed.at(-1)).toMatchObject({
      type: 'task.failed',
      fidelity: 'synthetic',
      payload: { error: { code: 'MINICODE_E_NATIVE_KILLED' } },
    });
  });

  it('leaves a clean exit without turn.completed unsettled, with a diagnostic', () => {
    const events = decodeBytes('codex', read('codex-interrupted.jsonl'), { exit: [0, null] });
    expect(summarise(events).outcome).toBeUndefined();
    expect(summarise(events).diagnostics).toEqual(['MINICODE_E_NATIVE_NO_TERMINAL']);
  });
});

describe('the Claude Code decoder', () => {
  it('fails a result that says success but carries is_error, with the HTTP status', () => {
    const events = decodeBytes('claude-code', read('claude-api-error.jsonl'));
    expect(ofType(events, 'task.failed')[0]?.payload.error).toMatchObject({
      httpStatus: 429,
      recoverability: 'RETRYABLE',
      message: 'API Error: Rate limit reached',
    });
    expect(ofType(events, 'recovery.started').map((e) => e.payload)).toEqual([
      { strategy: 'retry', reason: 'overloaded_error', attempt: 1, delayMs: 1200 },
      { strategy: 'retry', reason: 'rate_limit_error', attempt: 2, delayMs: 2400 },
    ]);
    expect(ofType(events, 'limit.reached').map((e) => [e.payload.kind, e.fidelity])).toEqual([
      ['rate-limit', 'native'],
      ['rate-limit', 'native'],
      ['rate-limit', 'inferred'],
    ]);
  });

  it('settles a denied permission prompt as deny and the tool as denied', () => {
    const events = decodeBytes('claude-code', read('claude-denied-subagent.jsonl'));
    expect(ofType(events, 'user.approval.settled')[0]?.payload).toMatchObject({
      approvalId: 'req-hand-1',
      outcome: 'deny',
    });
    expect(ofType(events, 'tool.denied')[0]).toMatchObject({
      fidelity: 'native',
      payload: { toolCallId: 'toolu_hand_rm' },
    });
  });

  it('links subagent tool calls to the spawning call', () => {
    const events = decodeBytes('claude-code', read('claude-denied-subagent.jsonl'));
    const child = ofType(events, 'tool.started').find((e) => e.payload.toolCallId === 'toolu_hand_ls');
    expect(child?.payload.parentToolCallId).toBe('toolu_hand_task');
  });

  it('passes partial-message deltas through live and reports a rejected rate limit as a usage quota', () => {
    const events = decodeBytes('claude-code', read('claude-denied-subagent.jsonl'));
    expect(
      ofType(events, 'assistant.message.delta')
        .map((e) => e.payload.delta)
        .join(''),
    ).toBe("I'll delete the build directory.");
    expect(ofType(events, 'limit.reached')[0]?.payload).toEqual({
      kind: 'usage-quota',
      message: 'seven_day limit reached',
      resetAt: '2026-07-25T17:20:00.000Z',
    });
  });

  it('maps error_max_turns to max_steps_exceeded and cancels the open tool', () => {
    const events = decodeBytes('claude-code', read('claude-max-turns.jsonl'));
    expect(ofType(events, 'limit.reached')[0]?.payload.kind).toBe('max-turns');
    expect(ofType(events, 'tool.cancelled')[0]?.payload.reason).toBe('parent-ended');
  });

  it('force-closes an approval still open when the run settles', () => {
    const lines = read('claude-denied-subagent.jsonl').toString().split('\n').slice(0, 8).join('\n');
    const result =
      '{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools","session_id":"x"}';
    const events = decodeBytes('claude-code', `${lines}\n${result}\n`);
    expect(ofType(events, 'user.approval.settled')[0]?.payload).toMatchObject({
      outcome: 'cancelled',
      reason: 'parent-ended',
    });
    expect(summarise(events).outcome).toBe('cancelled');
    expect(violations(events)).toEqual([]);
  });
});

describe('the Gemini CLI decoder', () => {
  it('reports a terminal quota error natively', () => {
    const events = decodeBytes('gemini-cli', read('gemini-quota.jsonl'));
    expect(ofType(events, 'limit.reached')[0]).toMatchObject({ fidelity: 'native', payload: { kind: 'usage-quota' } });
    expect(ofType(events, 'task.failed')[0]?.payload.error).toMatchObject({
      providerCode: 'TerminalQuotaError',
      recoverability: 'RETRYABLE',
    });
    expect(ofType(events, 'usage.reported')[0]?.payload).toMatchObject({
      model: 'gemini-2.5-pro',
      usage: { inputTokens: 1000, cacheReadTokens: 300 },
    });
  });

  it('never invents a final message from deltas that stop', () => {
    const events = decodeBytes('gemini-cli', read('gemini-cut.jsonl'), 'end-only');
    expect(ofType(events, 'assistant.message.completed')).toEqual([]);
    expect(ofType(events, 'assistant.message.truncated')[0]?.payload).toEqual({
      messageId: 'message-1',
      text: 'The pager keeps a window of',
      reason: 'stream-ended',
    });
  });

  it('fails a run that exits non-zero without a result (auth failure, exit 52)', () => {
    const events: EventDraft[] = [];
    const decoder = NATIVE_AGENT_DECODERS['gemini-cli']({ onEvent: (e) => events.push(e) });
    decoder.stderr('Error authenticating: please set GEMINI_API_KEY\n');
    decoder.end();
    decoder.exit(52, null);
    expect(ofType(events, 'task.failed')[0]?.payload.error).toMatchObject({ code: 'MINICODE_E_NATIVE_EXIT' });
    expect(ofType(events, 'task.failed')[0]?.payload.error.message).toContain('Error authenticating');
  });
});

describe('the terminal decoder', () => {
  it('infers a usage-quota limit with its retry delay from coloured text', () => {
    const events = decodeBytes('terminal', read('terminal-quota.txt'), { exit: [1, null] });
    expect(ofType(events, 'limit.reached')).toEqual([
      expect.objectContaining({
        fidelity: 'inferred',
        payload: {
          kind: 'usage-quota',
          message: "Error: You've hit your usage limit. Try again in 5 minutes.",
          retryAfterMs: 300_000,
        },
      }),
    ]);
    expect(ofType(events, 'task.failed')[0]).toMatchObject({
      fidelity: 'inferred',
      payload: { error: { code: 'terminal:usage-quota' } },
    });
  });

  it('completes on exit 0 with the transcript as an inferred message', () => {
    const events = decodeBytes('terminal', 'all done\n', { exit: [0, null] });
    expect(ofType(events, 'assistant.message.completed')[0]).toMatchObject({
      fidelity: 'inferred',
      payload: { text: 'all done' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'task.completed', fidelity: 'synthetic' });
  });

  it('matches limit wording on stderr too', () => {
    const events: EventDraft[] = [];
    const decoder = NATIVE_AGENT_DECODERS.terminal({ onEvent: (e) => events.push(e) });
    decoder.stderr('429 Too Many Requests\n');
    decoder.exit(2, null);
    expect(ofType(events, 'limit.reached')[0]?.payload.kind).toBe('rate-limit');
  });
});
