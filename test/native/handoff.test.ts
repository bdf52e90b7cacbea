import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASSETTE } from '../batch/helpers.js';
import { CLI, runCli } from '../helpers/cli.js';
import { committedRepo, NATIVE_STREAMS, standIn } from '../helpers/stand-in.js';

const STREAMS = NATIVE_STREAMS;

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

const gitRepo = (): string => committedRepo('minicode-handoff-ws-');

type Line = Record<string, any>;
const jsonLines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

async function replay(home: string, sessionId: string): Promise<Line[]> {
  const result = await runCli(['replay', sessionId, '--json'], { env: { MINICODE_HOME: home } });
  expect(result.code).toBe(0);
  return jsonLines(result.stdout);
}

const QUOTA_CLAUDE = {
  STAND_IN_REPLAY: path.join(STREAMS, 'claude-quota-midrun.jsonl'),
  STAND_IN_WRITE: 'greet.js=export const greet = (name) => `hello ${name}`;\n',
  STAND_IN_DELAY_MS: '1',
};

describe('run --agent A --fallback B: handing the work over when a usage quota runs out', () => {
  it('hands a quota-exhausted Claude Code run to Codex, which finishes it in the same workspace', async () => {
    const bin = tmp('minicode-handoff-bin-');
    const home = tmp('minicode-handoff-home-');
    const ws = gitRepo();
    const codexArgs = path.join(bin, 'codex-args.json');
    const env = {
      MINICODE_HOME: home,
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', QUOTA_CLAUDE),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_WRITE: 'cli.js=console.log(1)\n',
        STAND_IN_ARGS_FILE: codexArgs,
        STAND_IN_DELAY_MS: '1',
      }),
    };
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'add a greeting CLI', '--json', '--cwd', ws],
      { env },
    );
    expect(result.code).toBe(0);
    const live = jsonLines(result.stdout);
    const summary = live.at(-1)!;
    expect(summary).toMatchObject({ ok: true, outcome: 'completed', agent: 'codex', agents: ['claude-code', 'codex'] });

    // The handoff prompt the second stand-in received.
    const prompt = (JSON.parse(fs.readFileSync(codexArgs, 'utf8')) as string[])[2]!;
    expect(prompt).toContain('## Original task\nadd a greeting CLI');
    expect(prompt).toContain('[user · synthetic] user: add a greeting CLI');
    expect(prompt).toContain("[claude-code · native] assistant: I'll start with the greeting module");
    expect(prompt).toMatch(
      /\[claude-code · native\] tool Write: input \{"file_path":"greet.js".*-> completed: File created successfully/,
    );
    expect(prompt).toContain('?? greet.js');
    expect(prompt).toContain('five_hour limit reached');

    // The stored session: both agents, their tasks, the durable handoff, fidelity kept.
    const stored = await replay(home, summary.sessionId as string);
    const events = stored.filter((e) => e.type !== 'summary' && e.schema === 'minicode.output.v1' && e.eventId);
    const identified = events.filter((e) => e.type === 'agent.session.identified');
    expect(identified.map((e) => [e.payload.agent, e.fidelity])).toEqual([
      ['claude-code', 'native'],
      ['codex', 'native'],
    ]);
    const tasks = events
      .filter((e) => e.type.startsWith('task.') && e.type !== 'task.progress')
      .map((e) => `${e.type}:${e.payload.taskId}`);
    expect(tasks).toEqual([
      'task.started:task-1',
      'task.failed:task-1',
      'task.started:task-2',
      'task.completed:task-2',
    ]);
    const handoff = events.find((e) => e.type === 'agent.handoff')!;
    expect(handoff.fidelity).toBe('synthetic');
    expect(handoff.payload).toMatchObject({
      from: 'claude-code',
      to: 'codex',
      reason: 'usage-quota',
      cause: { fidelity: 'native', message: 'five_hour limit reached' },
      fromTaskId: 'task-1',
      toTaskId: 'task-2',
    });
    expect(handoff.payload.carried).toMatchObject({ workspace: 'git', droppedEntries: 0, promptChars: prompt.length });
    const messages = events.filter((e) => e.type === 'assistant.message.completed');
    expect(messages.find((e) => e.payload.text.startsWith("I'll start"))!.fidelity).toBe('native');
    expect(messages.find((e) => e.payload.text.startsWith('cli.js now'))!.fidelity).toBe('native');
    expect(stored.at(-1)).toMatchObject({ outcome: 'completed', agent: 'codex', agents: ['claude-code', 'codex'] });

    // Both agents' work is in the workspace.
    expect(fs.readFileSync(path.join(ws, 'greet.js'), 'utf8')).toContain('greet');
    expect(fs.readFileSync(path.join(ws, 'cli.js'), 'utf8')).toBe('console.log(1)\n');

    // The human renderer shows the switch.
    const human = await runCli(['replay', summary.sessionId as string], { env: { MINICODE_HOME: home } });
    expect(human.stdout + human.stderr).toMatch(/handoff.*claude-code -> codex: usage-quota/);
  });

  it('stops an agent that stays silent after its quota ran out instead of exiting, and hands over', async () => {
    const bin = tmp('minicode-handoff-bin-');
    const home = tmp('minicode-handoff-home-');
    // The quota stream without its final result record, from an agent that then waits for a reset.
    const lines = fs.readFileSync(path.join(STREAMS, 'claude-quota-midrun.jsonl'), 'utf8').trimEnd().split('\n');
    const stream = path.join(bin, 'quota-then-wait.jsonl');
    fs.writeFileSync(stream, lines.filter((l) => !l.startsWith('{"type":"result"')).join('\n') + '\n');
    const env = {
      MINICODE_HOME: home,
      MINICODE_QUOTA_GRACE_MS: '200',
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', { ...QUOTA_CLAUDE, STAND_IN_REPLAY: stream, STAND_IN_HANG: '1' }),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_DELAY_MS: '1',
      }),
    };
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'add a greeting CLI', '--json', '--cwd', gitRepo()],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const live = jsonLines(result.stdout);
    expect(live.at(-1)).toMatchObject({
      ok: true,
      outcome: 'completed',
      agent: 'codex',
      agents: ['claude-code', 'codex'],
    });
    const failed = live.filter((e) => e.type === 'task.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      fidelity: 'synthetic',
      payload: { taskId: 'task-1', error: { code: 'MINICODE_E_USAGE_QUOTA' } },
    });
    expect(failed[0]!.payload.error.message).toContain('stopped after 200 ms without output');
    expect(live.filter((e) => e.type === 'agent.handoff')).toHaveLength(1);
  });

  // Each CLI's own quota signal starts a handoff, whichever agent runs first.
  const chains: {
    first: string;
    bin: string;
    env: string;
    quota: string;
    exit: string;
    next: string;
    nextBin: string;
    nextEnv: string;
    success: string;
    signal: RegExp;
    carried: string;
  }[] = [
    {
      first: 'gemini-cli',
      bin: 'gemini',
      env: 'MINICODE_GEMINI_BIN',
      quota: 'gemini-quota.jsonl',
      exit: '1',
      next: 'codex',
      nextBin: 'codex',
      nextEnv: 'MINICODE_CODEX_BIN',
      success: 'codex-takeover.jsonl',
      signal: /daily quota/,
      carried: '[gemini-cli · native]',
    },
    {
      first: 'codex',
      bin: 'codex',
      env: 'MINICODE_CODEX_BIN',
      quota: 'codex-turn-failed-quota.jsonl',
      exit: '1',
      next: 'claude-code',
      nextBin: 'claude',
      nextEnv: 'MINICODE_CLAUDE_BIN',
      success: 'claude-transient-limit.jsonl',
      signal: /usage limit/,
      // Codex failed before saying anything: the user's prompt is all the transcript there is.
      carried: '[user · synthetic] user: add a greeting CLI',
    },
  ];
  for (const chain of chains) {
    it(`hands a quota-exhausted ${chain.first} run to ${chain.next}, which finishes it`, async () => {
      const bin = tmp('minicode-handoff-bin-');
      const nextArgs = path.join(bin, 'next-args.json');
      const env = {
        MINICODE_HOME: tmp('minicode-handoff-home-'),
        [chain.env]: standIn(bin, chain.bin, {
          STAND_IN_REPLAY: path.join(STREAMS, chain.quota),
          STAND_IN_EXIT_CODE: chain.exit,
          STAND_IN_DELAY_MS: '1',
        }),
        [chain.nextEnv]: standIn(bin, chain.nextBin, {
          STAND_IN_REPLAY: path.join(STREAMS, chain.success),
          STAND_IN_ARGS_FILE: nextArgs,
          STAND_IN_DELAY_MS: '1',
        }),
      };
      const result = await runCli(
        ['run', '--agent', chain.first, '--fallback', chain.next, 'add a greeting CLI', '--json', '--cwd', gitRepo()],
        { env },
      );
      expect(result.code, result.stderr).toBe(0);
      const live = jsonLines(result.stdout);
      expect(live.at(-1)).toMatchObject({
        ok: true,
        outcome: 'completed',
        agent: chain.next,
        agents: [chain.first, chain.next],
      });
      const handoff = live.find((e) => e.type === 'agent.handoff')!;
      expect(handoff.payload).toMatchObject({
        from: chain.first,
        to: chain.next,
        reason: 'usage-quota',
        fromTaskId: 'task-1',
        toTaskId: 'task-2',
      });
      expect(handoff.payload.cause.message).toMatch(chain.signal);
      const prompt = (JSON.parse(fs.readFileSync(nextArgs, 'utf8')) as string[]).find((a) =>
        a.includes('## Original task'),
      )!;
      expect(prompt).toContain('## Original task\nadd a greeting CLI');
      expect(prompt).toContain(chain.carried);
    });
  }

  it('refuses a bad MINICODE_QUOTA_GRACE_MS as a usage error (exit 2)', async () => {
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'x', '--cwd', tmp('minicode-handoff-ws-')],
      {
        env: { MINICODE_HOME: tmp('minicode-handoff-home-'), MINICODE_QUOTA_GRACE_MS: 'soon' },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MINICODE_QUOTA_GRACE_MS');
  });

  it('does not hand over on a transient rate limit (429 with a retry delay, allowed_warning)', async () => {
    const bin = tmp('minicode-handoff-bin-');
    const home = tmp('minicode-handoff-home-');
    const codexArgs = path.join(bin, 'codex-args.json');
    const env = {
      MINICODE_HOME: home,
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', {
        STAND_IN_REPLAY: path.join(STREAMS, 'claude-transient-limit.jsonl'),
        STAND_IN_DELAY_MS: '1',
      }),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_ARGS_FILE: codexArgs,
      }),
    };
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'x', '--json', '--cwd', tmp('minicode-handoff-ws-')],
      { env },
    );
    expect(result.code).toBe(0);
    const live = jsonLines(result.stdout);
    expect(live.some((e) => e.type === 'limit.reached' && e.payload.kind === 'rate-limit')).toBe(true);
    expect(live.some((e) => e.type === 'agent.handoff')).toBe(false);
    expect(live.at(-1)).toMatchObject({ ok: true, agent: 'claude-code', agents: ['claude-code'] });
    expect(fs.existsSync(codexArgs)).toBe(false);
  });

  it('does not hand over on an authentication failure: the run fails as without --fallback', async () => {
    const bin = tmp('minicode-handoff-bin-');
    const codexArgs = path.join(bin, 'codex-args.json');
    const env = {
      MINICODE_HOME: tmp('minicode-handoff-home-'),
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', {
        STAND_IN_REPLAY: path.join(STREAMS, 'claude-auth-failure.jsonl'),
        STAND_IN_EXIT_CODE: '1',
        STAND_IN_DELAY_MS: '1',
      }),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_ARGS_FILE: codexArgs,
      }),
    };
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'x', '--json', '--cwd', tmp('minicode-handoff-ws-')],
      { env },
    );
    expect(result.code).toBe(1);
    const live = jsonLines(result.stdout);
    expect(live.some((e) => e.type === 'agent.handoff')).toBe(false);
    expect(live.at(-1)).toMatchObject({ ok: false, outcome: 'failed', agents: ['claude-code'] });
    expect(live.at(-1)!.error.message).toContain('Invalid API key');
    expect(fs.existsSync(codexArgs)).toBe(false);
  });

  it("fails with each agent's cause when every fallback runs out of quota too", async () => {
    const bin = tmp('minicode-handoff-bin-');
    const home = tmp('minicode-handoff-home-');
    const env = {
      MINICODE_HOME: home,
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', QUOTA_CLAUDE),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-turn-failed-quota.jsonl'),
        STAND_IN_EXIT_CODE: '1',
        STAND_IN_DELAY_MS: '1',
      }),
    };
    const result = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'x', '--json', '--cwd', tmp('minicode-handoff-ws-')],
      { env },
    );
    expect(result.code).toBe(1);
    const live = jsonLines(result.stdout);
    expect(live.at(-1)).toMatchObject({
      ok: false,
      outcome: 'failed',
      agent: 'codex',
      agents: ['claude-code', 'codex'],
    });
    const failures = live
      .filter((e) => e.type === 'task.failed')
      .map((e) => [e.payload.taskId, e.payload.error.message]);
    expect(failures).toEqual([
      ['task-1', expect.stringContaining("You've hit your limit")],
      ['task-2', expect.stringContaining("You've hit your usage limit")],
    ]);
    expect(live.filter((e) => e.type === 'agent.handoff')).toHaveLength(1);
  });

  it('rejects an unknown fallback agent as a usage error (exit 2)', async () => {
    const result = await runCli(['run', '--agent', 'claude-code', '--fallback', 'codex,nope', 'x'], {
      env: { MINICODE_HOME: tmp('minicode-handoff-home-') },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown agent "nope"');
  });

  it("rebuilds as interrupted, keeping the first agent's work, when minicode is killed between the agents", async () => {
    const bin = tmp('minicode-handoff-bin-');
    const home = tmp('minicode-handoff-home-');
    const codexArgs = path.join(bin, 'codex-args.json');
    const env = {
      ...process.env,
      MINICODE_HOME: home,
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', QUOTA_CLAUDE),
      // The second agent is slow: minicode is killed before it writes anything.
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_DELAY_MS: '400',
        STAND_IN_ARGS_FILE: codexArgs,
      }),
    };
    const child = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--agent',
        'claude-code',
        '--fallback',
        'codex',
        'x',
        '--json',
        '--cwd',
        tmp('minicode-handoff-ws-'),
      ],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString();
        if (stdout.includes('"sessionId"')) resolve();
      });
    });
    // The second agent starts only once the first agent's work and the handoff are stored.
    while (!fs.existsSync(codexArgs)) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    const sessionId = /"sessionId":"([^"]+)"/.exec(stdout)![1]!;
    const stored = await replay(home, sessionId);
    expect(stored.at(-1)).toMatchObject({ outcome: 'interrupted', agent: 'codex', agents: ['claude-code', 'codex'] });
    expect(stored.some((e) => e.type === 'tool.completed' && e.payload.toolCallId === 'toolu_quota_write')).toBe(true);
    expect(stored.some((e) => e.type === 'task.failed' && e.payload.taskId === 'task-1')).toBe(true);
    expect(stored.some((e) => e.type === 'agent.handoff')).toBe(true);
  });
});

describe('batch lines with fallback', () => {
  it('hands a line over like run --fallback and records every agent that ran', async () => {
    const bin = tmp('minicode-handoff-bin-');
    const dir = tmp('minicode-handoff-batch-');
    const input = path.join(dir, 'input.jsonl');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ id: 'fb-1', prompt: 'add a greeting CLI', agent: 'claude-code', fallback: ['codex'] })}\n`,
    );
    const env = {
      MINICODE_CLAUDE_BIN: standIn(bin, 'claude', QUOTA_CLAUDE),
      MINICODE_CODEX_BIN: standIn(bin, 'codex', {
        STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'),
        STAND_IN_DELAY_MS: '1',
      }),
    };
    const result = await runCli(
      [
        'batch',
        input,
        '--threads',
        '0',
        '--fail-fast',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(dir, 'store'),
        '--out',
        path.join(dir, 'out'),
      ],
      {
        cwd: dir,
        env,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'results.jsonl'), 'utf8').trim()) as Line;
    expect(record).toMatchObject({
      id: 'fb-1',
      outcome: 'completed',
      agent: 'claude-code',
      agents: ['claude-code', 'codex'],
      finalText: 'cli.js now prints greet(process.argv[2]).',
    });
  });

  it('refuses a fallback without an agent as a bad line', async () => {
    const dir = tmp('minicode-handoff-batch-');
    const input = path.join(dir, 'input.jsonl');
    fs.writeFileSync(input, `${JSON.stringify({ id: 'fb-2', prompt: 'x', fallback: 'codex' })}\n`);
    const result = await runCli(
      [
        'batch',
        input,
        '--threads',
        '0',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(dir, 'store'),
        '--out',
        path.join(dir, 'out'),
      ],
      { cwd: dir },
    );
    const errors = path.join(dir, 'out', 'errors.jsonl');
    expect(result.stderr + (fs.existsSync(errors) ? fs.readFileSync(errors, 'utf8') : '')).toContain(
      'fallback needs agent',
    );
  });
});
