import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { HAVE_FIXTURES, fixtureSkipNote } from '../helpers/cli.js';
import { byteByByte, splitAt } from '../helpers/splits.js';
import {
  decodeBytes,
  decodeChunks,
  fixtureBytes,
  FORMAT_OF_DIR,
  NATIVE_FIXTURES,
  summarise,
} from './decode-helpers.js';
import { violations } from './invariants.js';

fixtureSkipNote();

/** What each third-party recording must decode to: final message, tool terminals, usage, outcome. */
const EXPECTED: Record<
  string,
  {
    message: string | undefined;
    tools: Record<string, string>;
    usage: Record<string, unknown>;
    outcome: string;
    diagnostics?: string[];
  }
> = {
  'codex/atomize-streaming-0.61.0.jsonl': {
    message:
      '- Unable to check hygiene (read-only mode, no commands run); repository state unknown.\n- Recommend running `git status` and your lint/test suite to surface any hygiene issues when write access is available.',
    tools: {},
    usage: { cumulative: true, usage: { inputTokens: 7499, cacheReadTokens: 0, outputTokens: 111 } },
    outcome: 'completed',
  },
  'codex/docs-exec-md-example.jsonl': {
    message: 'Yep — there’s a `README.md` in the repository root.',
    tools: { item_1: 'shell:completed' },
    usage: { cumulative: true, usage: { inputTokens: 24763, cacheReadTokens: 24448, outputTokens: 122 } },
    outcome: 'completed',
  },
  'codex/fullsend-basic_run-0.152.1.jsonl': {
    message: 'done',
    tools: { item_2: 'shell:completed', item_3: 'apply_patch:completed' },
    usage: {
      cumulative: true,
      usage: {
        inputTokens: 41320,
        cacheReadTokens: 27386,
        cacheWriteTokens: 13925,
        outputTokens: 295,
        reasoningTokens: 74,
      },
    },
    outcome: 'completed',
  },
  'codex/meawoppl-failed_command.jsonl': {
    message: 'The command exited with code `42`.',
    tools: { item_2: 'shell:failed' },
    usage: { cumulative: true, usage: { inputTokens: 15086, cacheReadTokens: 14080, outputTokens: 114 } },
    outcome: 'completed',
  },
  'codex/meawoppl-hello_world.jsonl': {
    message: 'hello world',
    tools: {},
    usage: { cumulative: true, usage: { inputTokens: 7464, cacheReadTokens: 6528, outputTokens: 25 } },
    outcome: 'completed',
  },
  'codex/meawoppl-multi_command.jsonl': {
    message: '`echo step1` → `step1`  \n`echo step2` → `step2`  \n`echo step3` → `step3`',
    tools: { item_2: 'shell:completed', item_3: 'shell:completed', item_4: 'shell:completed' },
    usage: { cumulative: true, usage: { inputTokens: 30669, cacheReadTokens: 28288, outputTokens: 205 } },
    outcome: 'completed',
  },
  'codex/vincent-success.jsonl': {
    message: 'hello',
    tools: {},
    usage: {
      cumulative: true,
      usage: { inputTokens: 14312, cacheReadTokens: 2432, outputTokens: 32, reasoningTokens: 25 },
    },
    outcome: 'completed',
  },
  'codex/vincent-tooluse-pwsh.jsonl': {
    message: 'The output is:\n\n```text\nvincent-fixture\n```',
    tools: { item_0: 'shell:completed' },
    usage: {
      cumulative: true,
      usage: { inputTokens: 28858, cacheReadTokens: 16128, outputTokens: 196, reasoningTokens: 87 },
    },
    outcome: 'completed',
  },
  'claude/gleam-basic_query-2.1.7.jsonl': {
    message: '4',
    tools: {},
    usage: {
      cumulative: true,
      costUsd: 0.1354875,
      usage: { inputTokens: 10, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 21570 },
    },
    outcome: 'completed',
  },
  'claude/meawoppl-subagent-general-2.1.178.jsonl': {
    message: 'The answer is **42**.',
    tools: {
      toolu_01EdzeCvRoPTM58UnL4YVZcu: 'ToolSearch:completed',
      toolu_01DzyptEZpzvhuCw1fWwhZYf: 'Agent:completed',
    },
    usage: {
      cumulative: true,
      costUsd: 0.11752375000000001,
      usage: { inputTokens: 9, outputTokens: 619, cacheReadTokens: 65110, cacheWriteTokens: 8288 },
    },
    outcome: 'completed',
  },
  'claude/vincent-stream_permission_allow_2.1.226.jsonl': {
    message: 'Done. Created `hello.txt` with content `hi`.',
    tools: { toolu_01PSqBeA6sKydYaELf8NTXHH: 'Write:completed' },
    usage: {
      cumulative: true,
      costUsd: 0.009825,
      model: 'claude-haiku-4-5-20251001',
      usage: { inputTokens: 18, outputTokens: 491, cacheReadTokens: 66670, cacheWriteTokens: 548 },
    },
    outcome: 'completed',
  },
  'claude/vincent-stream_question_2.1.226.jsonl': {
    message: 'Red',
    tools: { toolu_01MTWzGkgqRLrwCSDbDjWYXV: 'AskUserQuestion:completed' },
    usage: {
      cumulative: true,
      costUsd: 0.0081955,
      usage: { inputTokens: 18, outputTokens: 238, cacheReadTokens: 66750, cacheWriteTokens: 250 },
    },
    outcome: 'completed',
  },
  'gemini/docs-headless-example-v0.11.jsonl': {
    message: 'Here are the files...',
    tools: { 'bash-123': 'Bash:completed' },
    usage: { cumulative: true, usage: { inputTokens: 50, outputTokens: 200, totalTokens: 250 } },
    outcome: 'completed',
  },
  'gemini/snapshot-max-session-turns-error.jsonl': {
    message: undefined,
    tools: {},
    usage: { cumulative: true, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, totalTokens: 0 } },
    // The error line says max turns, yet the CLI reports status "success": we follow the result.
    outcome: 'completed',
    diagnostics: ['MINICODE_E_NATIVE_REPAIRED_RECORD'],
  },
  'gemini/snapshot-tool-use.jsonl': {
    message: 'Final answer',
    tools: { 'tool-1': 'testTool:completed' },
    usage: { cumulative: true, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, totalTokens: 0 } },
    outcome: 'completed',
    diagnostics: ['MINICODE_E_NATIVE_REPAIRED_RECORD'],
  },
  'opencode/takopi-opencode-run-json-bash.jsonl': {
    message: '```\nhello\n```',
    tools: { r9bQWsNLvOrJGIOz: 'bash:completed' },
    // Per step, not cumulative: this is the last step's increment.
    usage: {
      cumulative: false,
      scope: 'request',
      costUsd: 0,
      usage: { inputTokens: 671, outputTokens: 8, reasoningTokens: 0, cacheReadTokens: 21415, cacheWriteTokens: 0 },
    },
    outcome: 'completed',
  },
  'opencode/meawoppl-server-event-sse-1.18.5.jsonl': {
    message: 'ping',
    tools: {},
    usage: {
      cumulative: false,
      usage: {
        totalTokens: 8755,
        inputTokens: 523,
        outputTokens: 4,
        reasoningTokens: 36,
        cacheReadTokens: 8192,
        cacheWriteTokens: 0,
      },
    },
    outcome: 'completed',
  },
};

function fixtureFiles(): string[] {
  if (!HAVE_FIXTURES) return [];
  return Object.keys(FORMAT_OF_DIR).flatMap((dir) => {
    const full = path.join(NATIVE_FIXTURES, dir);
    return fs.existsSync(full)
      ? fs
          .readdirSync(full)
          .filter((f) => f.endsWith('.jsonl'))
          .map((f) => `${dir}/${f}`)
      : [];
  });
}

const formatOf = (file: string) => FORMAT_OF_DIR[file.split('/')[0] ?? ''] ?? 'terminal';

describe.skipIf(!HAVE_FIXTURES)('native agent recordings (../shared/fixtures/native)', () => {
  it('has an expectation for every recording in the directory', () => {
    expect(fixtureFiles().sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(Object.entries(EXPECTED))('%s', (file, expected) => {
    const format = formatOf(file);
    // Read lazily: on a bare clone this suite is skipped and the file does not exist.
    let cached: { bytes: Uint8Array; events: ReturnType<typeof decodeBytes> } | undefined;
    const load = () => {
      if (!cached) {
        const bytes = fixtureBytes(file);
        cached = { bytes, events: decodeBytes(format, bytes) };
      }
      return cached;
    };

    it('decodes to the stated final message, tool terminals, usage and outcome', () => {
      const summary = summarise(load().events);
      expect(summary.finalMessage).toBe(expected.message);
      expect(summary.tools).toEqual(expected.tools);
      expect(summary.usage).toMatchObject(expected.usage);
      expect(summary.outcome).toBe(expected.outcome);
      expect(summary.diagnostics).toEqual(expected.diagnostics ?? []);
    });

    it('obeys the task, tool and approval state machines', () => {
      expect(violations(load().events)).toEqual([]);
    });

    it('identifies the native session', () => {
      expect(load().events.some((e) => e.type === 'agent.session.identified' && e.fidelity === 'native')).toBe(true);
    });

    it('decodes the same byte by byte and at random splits', () => {
      const { bytes, events } = load();
      expect(decodeChunks(format, byteByByte(bytes))).toEqual(events);
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
          expect(decodeChunks(format, splitAt(bytes, cuts))).toEqual(events);
        }),
        { numRuns: 25, seed: 42 },
      );
    });
  });

  it('turns a permission prompt into an approval that settles before the run ends', () => {
    const events = decodeBytes('claude-code', fixtureBytes('claude/vincent-stream_permission_allow_2.1.226.jsonl'));
    const requested = events.find((e) => e.type === 'user.approval.requested');
    const settled = events.find((e) => e.type === 'user.approval.settled');
    expect(requested?.payload).toMatchObject({
      approvalId: '0a796fa8-74c6-4c82-82a7-fb161e77a51b',
      toolName: 'Write',
      toolCallId: 'toolu_01PSqBeA6sKydYaELf8NTXHH',
    });
    expect(requested?.fidelity).toBe('native');
    expect(settled?.payload).toMatchObject({ outcome: 'allow' });
    expect(settled?.fidelity).toBe('inferred');
  });

  it('reports the file a Codex patch changed', () => {
    const events = decodeBytes('codex', fixtureBytes('codex/fullsend-basic_run-0.152.1.jsonl'));
    const changed = events.find((e) => e.type === 'file.changed');
    expect(changed?.payload).toEqual({
      changes: [{ path: '/sandbox/workspace/repo/hello.txt', kind: 'create' }],
      toolCallId: 'item_3',
    });
    expect(changed?.correlationId).toBe('item_3');
  });

  it('keeps the receipt of a failed Codex command', () => {
    const events = decodeBytes('codex', fixtureBytes('codex/meawoppl-failed_command.jsonl'));
    const failed = events.find((e) => e.type === 'tool.failed');
    expect(failed?.payload).toMatchObject({ cause: 'TOOL_ERROR', message: 'exit 42', receipt: { exitCode: 42 } });
  });

  it('streams the opencode server deltas live and completes on session.idle', () => {
    const events = decodeBytes('opencode', fixtureBytes('opencode/meawoppl-server-event-sse-1.18.5.jsonl'), 'end-only');
    expect(events.filter((e) => e.type === 'assistant.reasoning.delta').length).toBe(12);
    expect(events.filter((e) => e.type === 'assistant.message.delta').map((e) => e.payload)).toEqual([
      { messageId: 'prt_f9d0913d9001iP38BZa9MkspB8', delta: 'ping' },
    ]);
    expect(events.find((e) => e.type === 'user.message.received')?.payload).toMatchObject({
      text: 'Reply with the single word: ping',
    });
    expect(events.find((e) => e.type === 'task.completed')?.fidelity).toBe('native');
  });

  it('completes an opencode run only when the process exits cleanly', () => {
    const bytes = fixtureBytes('opencode/takopi-opencode-run-json-bash.jsonl');
    expect(summarise(decodeBytes('opencode', bytes, 'end-only')).outcome).toBeUndefined();
    expect(summarise(decodeBytes('opencode', bytes, { exit: [1, null] })).outcome).toBe('failed:provider');
    const clean = decodeBytes('opencode', bytes, { exit: [0, null] });
    expect(clean.at(-1)).toMatchObject({ type: 'task.completed', fidelity: 'synthetic' });
  });
});
