import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventDraft } from '../../lib/events/index.js';
import { hasCode } from '../../lib/errors.js';
import { resolveAgentBinary, superviseAgent, type SuperviseOptions } from '../../lib/native/supervisor.js';
import { ROOT } from '../helpers/cli.js';
import { summarise } from './decode-helpers.js';
import { violations } from './invariants.js';

const STAND_IN = path.join(ROOT, 'test/helpers/stand-in-agent.mjs');
const STREAMS = path.join(ROOT, 'test/streams/native');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-supervisor-'));

async function run(options: Omit<SuperviseOptions, 'env'> & { env: NodeJS.ProcessEnv }) {
  const agent = superviseAgent(options);
  const events: EventDraft[] = [];
  for await (const event of agent.events) events.push(event);
  const exit = await agent.done;
  return { events, exit, argv: agent.argv };
}

function standInEnv(bin: string, replay: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, [bin]: STAND_IN, STAND_IN_REPLAY: path.join(STREAMS, replay), ...extra };
}

describe('the native agent supervisor (with a stand-in executable)', () => {
  it('runs codex with exec --json and decodes the replayed stream live', async () => {
    const argsFile = path.join(tmp, 'codex-args.json');
    const { events, exit } = await run({
      agent: 'codex',
      prompt: 'fix the pager',
      env: standInEnv('MINICODE_CODEX_BIN', 'codex-all-items.jsonl', { STAND_IN_ARGS_FILE: argsFile }),
    });
    expect(JSON.parse(fs.readFileSync(argsFile, 'utf8'))).toEqual(['exec', '--json', 'fix the pager']);
    expect(exit).toEqual({ code: 0, signal: null, aborted: false });
    const summary = summarise(events);
    expect(summary.outcome).toBe('completed');
    expect(summary.finalMessage).toBe('Fixed the off-by-one in src/pager.ts.');
    expect(violations(events)).toEqual([]);
  });

  it.each([
    ['claude-code', 'MINICODE_CLAUDE_BIN', ['-p', 'hi', '--output-format', 'stream-json', '--verbose']],
    ['gemini-cli', 'MINICODE_GEMINI_BIN', ['-p', 'hi', '--output-format', 'stream-json']],
    ['opencode', 'MINICODE_OPENCODE_BIN', ['run', '--format', 'json', 'hi']],
  ] as const)('starts %s with its non-interactive flags', async (agent, bin, expected) => {
    const argsFile = path.join(tmp, `${agent}-args.json`);
    const replay =
      agent === 'opencode'
        ? 'opencode-done.jsonl'
        : agent === 'gemini-cli'
          ? 'gemini-cut.jsonl'
          : 'claude-max-turns.jsonl';
    await run({ agent, prompt: 'hi', env: standInEnv(bin, replay, { STAND_IN_ARGS_FILE: argsFile }) });
    expect(JSON.parse(fs.readFileSync(argsFile, 'utf8'))).toEqual(expected);
  });

  it('fails the run when the agent exits non-zero, keeping its stderr', async () => {
    const { events, exit } = await run({
      agent: 'codex',
      prompt: 'x',
      env: standInEnv('MINICODE_CODEX_BIN', 'codex-all-items.jsonl', {
        STAND_IN_EXIT_AFTER: '6',
        STAND_IN_EXIT_CODE: '3',
        STAND_IN_STDERR: 'fatal: config broken\n',
      }),
    });
    expect(exit.code).toBe(3);
    const failed = events.find((e) => e.type === 'task.failed');
    expect(failed?.payload).toMatchObject({ reason: 'provider', error: { code: 'MINICODE_E_NATIVE_EXIT' } });
    expect(failed?.type === 'task.failed' && failed.payload.error.message).toContain('fatal: config broken');
    // The MCP call started on line 6 was still open: it is cancelled, not left dangling.
    expect(summarise(events).tools.item_2).toBe('mcp:docs/search:cancelled');
    expect(violations(events)).toEqual([]);
  });

  it('fails a run whose agent crashes mid-stream (SIGKILL) and closes its open tool', async () => {
    const { events, exit } = await run({
      agent: 'claude-code',
      prompt: 'x',
      env: standInEnv('MINICODE_CLAUDE_BIN', 'claude-denied-subagent.jsonl', { STAND_IN_CRASH_AFTER: '11' }),
    });
    expect(exit).toEqual({ code: null, signal: 'SIGKILL', aborted: false });
    const summary = summarise(events);
    expect(summary.outcome).toBe('failed:provider');
    expect(summary.tools.toolu_hand_task).toBe('Task:cancelled');
    expect(violations(events)).toEqual([]);
  });

  it('cancels the run when minicode aborts it (SIGTERM)', async () => {
    const controller = new AbortController();
    const agent = superviseAgent({
      agent: 'codex',
      prompt: 'x',
      signal: controller.signal,
      env: standInEnv('MINICODE_CODEX_BIN', 'codex-interrupted.jsonl', { STAND_IN_HANG: '1' }),
    });
    const events: EventDraft[] = [];
    for await (const event of agent.events) {
      events.push(event);
      if (event.type === 'tool.started') controller.abort();
    }
    expect(await agent.done).toMatchObject({ aborted: true, signal: 'SIGTERM' });
    expect(events.at(-1)).toMatchObject({ type: 'task.cancelled', payload: { reason: 'aborted' } });
    expect(violations(events)).toEqual([]);
  });

  it('reports a missing binary as a setup failure with an action', () => {
    let error: unknown;
    try {
      resolveAgentBinary('gemini-cli', { PATH: tmp });
    } catch (e) {
      error = e;
    }
    expect(hasCode(error, 'MINICODE_E_AGENT_NOT_INSTALLED')).toBe(true);
    expect((error as { action?: string }).action).toContain('MINICODE_GEMINI_BIN');
    expect(() =>
      superviseAgent({ agent: 'codex', prompt: 'x', env: { PATH: tmp, MINICODE_CODEX_BIN: path.join(tmp, 'nope') } }),
    ).toThrow(expect.objectContaining({ code: 'MINICODE_E_AGENT_NOT_INSTALLED' }));
  });

  it('passes the agent its own credentials and no foreign ones', async () => {
    const envFile = path.join(tmp, 'env.json');
    await run({
      agent: 'codex',
      prompt: 'x',
      env: {
        ...standInEnv('MINICODE_CODEX_BIN', 'codex-interrupted.jsonl', { STAND_IN_ENV_FILE: envFile }),
        OPENAI_API_KEY: 'sk-test',
        CODEX_HOME: '/tmp/codex',
        ANTHROPIC_API_KEY: 'sk-ant-api03-AbCdEf0123456789GhIjKl0123456789',
        GEMINI_API_KEY: 'AIzaSyD9e8F7g6H5i4J3k2L1m0NoPqRsTuVwXyZ',
        GITHUB_TOKEN: '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',
        AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        DB_PASSWORD: 'db-pass-value-4242',
        HARMLESS: '1',
      },
    });
    const names: string[] = JSON.parse(fs.readFileSync(envFile, 'utf8'));
    expect(names).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'CODEX_HOME', 'HARMLESS', 'PATH']));
    for (const foreign of [
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
    ])
      expect(names).not.toContain(foreign);
  });

  it('delivers drafts to onEvent when given one', async () => {
    const events: EventDraft[] = [];
    const agent = superviseAgent({
      agent: 'opencode',
      prompt: 'x',
      onEvent: (e) => events.push(e),
      env: standInEnv('MINICODE_OPENCODE_BIN', 'opencode-done.jsonl'),
    });
    await agent.done;
    expect(summarise(events)).toMatchObject({ finalMessage: 'pong', outcome: 'completed' });
  });
});

describe('supervisor back-pressure', () => {
  it('pauses a fast agent while the reader is slow and still delivers every draft in order', async () => {
    const agent = superviseAgent({
      agent: 'codex',
      prompt: 'x',
      highWaterMark: 2,
      env: {
        PATH: process.env.PATH,
        MINICODE_CODEX_BIN: STAND_IN,
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-all-items.jsonl'),
        STAND_IN_DELAY_MS: '0',
      },
    });
    const events: EventDraft[] = [];
    for await (const event of agent.events) {
      events.push(event);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await agent.done;
    expect(summarise(events).outcome).toBe('completed');
    expect(violations(events)).toEqual([]);
  });
});
