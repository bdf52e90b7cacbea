/**
 * OpenTelemetry spans of `run` (a native agent, stood in for by a script replaying a recorded
 * stream) and of `chat` (a chat session driven turn by turn against a replayed provider) reach a
 * loopback OTLP receiver: `run` as one `invoke_agent {agent}` root, or with `--fallback` an
 * `invoke_workflow minicode-run` root with one `invoke_agent` per agent that ran, each agent
 * given its own span as TRACEPARENT; `chat` as one `invoke_agent minicode` trace per turn
 * sharing the session id as `gen_ai.conversation.id`, both from the session API and from the
 * real `minicode chat` in a terminal (tmux), flushed before it exits. Credentials never reach a span.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { providerSettings } from '../../lib/agent/provider-settings.js';
import { runLimits } from '../../lib/agent/run-limits.js';
import { toolEnvironment } from '../../lib/agent/tool-environment.js';
import { createChatSession } from '../../lib/chat/session.js';
import { tracingConfig } from '../../lib/telemetry/config.js';
import { startChatTrace } from '../../lib/telemetry/chat-trace.js';
import { openReplayProvider } from '../../lib/replay/provider.js';
import { openStore } from '../../lib/store/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { committedRepo, NATIVE_STREAMS, standIn } from '../helpers/stand-in.js';
import { startReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { HAVE_TMUX, quitChat, startTerm, turnsDone, type TmuxTerm } from '../chat/tmux-driver.js';

if (!HAVE_TMUX)
  console.warn('skipping the chat-in-a-terminal tracing test: tmux is not installed (apt-get install -y tmux)');

const STREAMS = NATIVE_STREAMS;
const SECRET = 'sk-proj-OTELSECRETabcdefghijklmnopqrstuvwxyz0123456789';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A committed git repository for one run to work in. */
const gitRepo = (): string => committedRepo('minicode-otel-run-ws-');

const traceparentOf = (span: ReceivedSpan): string => `00-${span.traceId}-${span.spanId}-01`;
const op = (spans: ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((s) => s.attributes['gen_ai.operation.name'] === name);

/** A loopback OTLP receiver (closed after the test) and a folder for agent stand-ins that record their TRACEPARENT. */
async function runSetup() {
  const receiver = await startReceiver();
  closers.push(receiver.close);
  const bin = tmp('minicode-otel-run-bin-');
  return { receiver, bin, traces: path.join(bin, 'traceparents') };
}

describe('OpenTelemetry spans of run --agent', () => {
  it('reach the receiver as one invoke_agent root for the agent, whose context the agent gets as TRACEPARENT', async () => {
    const { receiver, bin, traces } = await runSetup();
    const env = {
      MINICODE_HOME: tmp('minicode-otel-run-home-'),
      OPENAI_API_KEY: SECRET,
      MINICODE_CODEX_BIN: standIn(
        bin,
        'codex',
        { STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'), STAND_IN_DELAY_MS: '1' },
        { traceFile: traces },
      ),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    };
    const r = await runCli(
      ['run', '--agent', 'codex', `wire greet.js into cli.js (token ${SECRET})`, '--json', '--cwd', gitRepo()],
      { env, timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { sessionId: string };
    // The process has exited: whatever it exported is here already (flushed before exit).
    const spans = receiver.spans();
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root).toMatchObject({ name: 'invoke_agent codex', kind: 1, service: 'minicode', status: { code: 0 } });
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'codex',
      'gen_ai.provider.name': 'codex',
      'gen_ai.conversation.id': summary.sessionId,
    });
    expect(String(root.attributes['gen_ai.input.messages'])).toContain('wire greet.js into cli.js');
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    const children = spans.filter((s) => s !== root);
    expect(children.map((s) => s.name)).toEqual(['execute_tool apply_patch']);
    for (const child of children) expect(child.parentSpanId).toBe(root.spanId);
    expect(fs.readFileSync(traces, 'utf8').trim().split('\n')).toEqual([traceparentOf(root)]);
    for (const q of receiver.requests) expect(q.body.includes(SECRET)).toBe(false);
  }, 90_000);

  it('trace a --fallback handoff as an invoke_workflow root with one invoke_agent per agent, each agent given its own span as TRACEPARENT', async () => {
    const { receiver, bin, traces } = await runSetup();
    const env = {
      MINICODE_HOME: tmp('minicode-otel-run-home-'),
      MINICODE_CLAUDE_BIN: standIn(
        bin,
        'claude',
        { STAND_IN_REPLAY: path.join(STREAMS, 'claude-quota-midrun.jsonl'), STAND_IN_DELAY_MS: '1' },
        { traceFile: traces },
      ),
      MINICODE_CODEX_BIN: standIn(
        bin,
        'codex',
        { STAND_IN_REPLAY: path.join(STREAMS, 'codex-takeover.jsonl'), STAND_IN_DELAY_MS: '1' },
        { traceFile: traces },
      ),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    };
    const r = await runCli(
      ['run', '--agent', 'claude-code', '--fallback', 'codex', 'add a greeting CLI', '--json', '--cwd', gitRepo()],
      { env, timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { sessionId: string };
    expect(new Set(receiver.requests.map((q) => q.contentType))).toEqual(new Set(['application/x-protobuf']));
    const spans = receiver.spans();
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots).toHaveLength(1);
    const workflow = roots[0]!;
    expect(workflow).toMatchObject({ name: 'invoke_workflow minicode-run', status: { code: 0 } });
    expect(workflow.attributes).toMatchObject({
      'gen_ai.workflow.name': 'minicode-run',
      'minicode.run.agents': ['claude-code', 'codex'],
      'gen_ai.conversation.id': summary.sessionId,
    });
    const agents = op(spans, 'invoke_agent');
    expect(agents.map((s) => s.name)).toEqual(
      expect.arrayContaining(['invoke_agent claude-code', 'invoke_agent codex']),
    );
    expect(agents).toHaveLength(2);
    const claude = agents.find((s) => s.name === 'invoke_agent claude-code')!;
    const codex = agents.find((s) => s.name === 'invoke_agent codex')!;
    for (const agent of agents) {
      expect(agent.parentSpanId).toBe(workflow.spanId);
      expect(agent.attributes['gen_ai.conversation.id']).toBe(summary.sessionId);
    }
    expect(claude).toMatchObject({ status: { code: 2 }, attributes: { 'error.type': 'MINICODE_E_USAGE_QUOTA' } });
    expect(codex.status.code).toBe(0);
    // Each agent's tool calls hang under its own span (native streams carry no per-response boundaries, so no chat spans).
    const toolsOf = (agent: ReceivedSpan): unknown[] =>
      op(spans, 'execute_tool')
        .filter((s) => s.parentSpanId === agent.spanId)
        .map((s) => s.attributes['gen_ai.tool.name']);
    expect(toolsOf(claude)).toEqual(['Write']);
    expect(toolsOf(codex)).toEqual(['apply_patch']);
    expect(BigInt(codex.start)).toBeGreaterThanOrEqual(BigInt(claude.end));
    expect(fs.readFileSync(traces, 'utf8').trim().split('\n')).toEqual([traceparentOf(claude), traceparentOf(codex)]);
  }, 90_000);
});

describe('OpenTelemetry spans of chat', () => {
  it('reach the receiver as one invoke_agent trace per turn, the turns joined by the session id, with chat children and opted-in content scrubbed', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const dir = tmp('minicode-otel-chat-');
    fs.writeFileSync(path.join(dir, 'README.md'), '# chat test project\n');
    const store = openStore({ dir: path.join(dir, 'store') });
    const replay = await openReplayProvider(path.join(ROOT, 'test/cassettes/chat-two-turn'));
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OPENAI_API_KEY: SECRET,
    };
    const config = tracingConfig(env)!;
    const trace = startChatTrace(config, { env, provider: replay.format, model: replay.model });
    let sessionId: string | undefined;
    try {
      const provider = providerSettings({
        format: replay.format,
        model: replay.model,
        baseUrl: replay.baseUrl,
        apiKey: replay.apiKey,
      });
      const session = createChatSession({
        provider,
        limits: runLimits(),
        environment: toolEnvironment(dir, { policy: { mode: 'ask' }, env: {} }),
        store,
        traceTurn: (prompt, turn) => trace.turn(prompt, turn),
      });
      await session.turn(`hi there ${SECRET}`, {});
      await session.turn('what is in the readme', {});
      sessionId = session.sessionId;
      await session.close();
    } finally {
      await trace.shutdown();
      await replay.close();
      await store.close();
    }
    const spans = receiver.spans();
    const turns = spans.filter((s) => s.parentSpanId === '');
    expect(turns).toHaveLength(2);
    expect(turns.map((t) => t.attributes['minicode.chat.turn']).sort()).toEqual([1, 2]);
    expect(new Set(turns.map((t) => t.traceId)).size).toBe(2);
    for (const turn of turns) {
      expect(turn).toMatchObject({ name: 'invoke_agent minicode', status: { code: 0 } });
      expect(turn.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': sessionId,
      });
      expect(turn.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      const chats = op(spans, 'chat').filter((s) => s.parentSpanId === turn.spanId);
      expect(chats.length).toBeGreaterThanOrEqual(1);
      for (const chat of chats) {
        expect(chat.traceId).toBe(turn.traceId);
        expect(chat.attributes['gen_ai.conversation.id']).toBe(sessionId);
        expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      }
    }
    for (const s of spans.filter((x) => x.parentSpanId !== ''))
      expect(turns.map((t) => t.spanId)).toContain(s.parentSpanId);
    const first = turns.find((t) => t.attributes['minicode.chat.turn'] === 1)!;
    expect(String(first.attributes['gen_ai.input.messages'])).toContain('hi there');
    for (const q of receiver.requests) expect(q.body.includes(SECRET)).toBe(false);
  });
});

describe.skipIf(!HAVE_TMUX)('OpenTelemetry spans of minicode chat in a terminal', () => {
  let term: TmuxTerm | undefined;
  afterEach(() => term?.kill());

  it('sends the turn spans of the real chat command before it exits', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const dir = tmp('minicode-otel-chat-tmux-');
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'README.md'), '# chat test project\n');
    term = startTerm(
      ['chat', '--provider', 'replay', '--cassette', path.join(ROOT, 'test/cassettes/chat-two-turn'), '--cwd', project],
      {
        cols: 80,
        rows: 40,
        cwd: project,
        env: {
          MINICODE_HOME: path.join(dir, 'home'),
          TERM: 'xterm-256color',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        },
      },
    );
    // Each wait is an upper bound for a condition; a CI machine at load 20 has needed over 30 s for one.
    await term.waitFor('New session', { timeoutMs: 60_000 });
    term.type('hi there');
    term.send('Enter');
    await term.waitFor(turnsDone(1), { timeoutMs: 60_000 });
    await quitChat(term);
    const end = await term.waitFor('EXIT=0', { join: true, timeoutMs: 60_000 });
    const sessionId = /session (ses_[a-z0-9_]+) \(minicode replay/.exec(end)?.[1];
    expect(sessionId, end).toBeDefined();
    // The command has exited: its spans are here already (flushed before exit, well within the 2 s interval).
    const spans = receiver.spans();
    const turns = spans.filter((s) => s.parentSpanId === '');
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({
      name: 'invoke_agent minicode',
      attributes: { 'gen_ai.conversation.id': sessionId, 'minicode.chat.turn': 1 },
    });
    expect(op(spans, 'chat').filter((s) => s.parentSpanId === turns[0]!.spanId)).toHaveLength(1);
  }, 200_000);
});
