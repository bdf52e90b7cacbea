/**
 * OpenTelemetry spans of a real batch reach a loopback OTLP receiver, in both encodings: the
 * batch span, one `invoke_agent` per line under it, `chat` per model response and
 * `execute_tool` per tool call under each run, with the GenAI attributes; flushed before the
 * process exits; and a credential in the environment never reaches a span, even with content
 * capture on and the secret in the prompt.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { startReceiver, type ReceivedSpan } from './otlp-receiver.js';

const CASSETTE = path.join(ROOT, 'cassettes/demo');
const PROJECT = path.join(ROOT, 'demo/sample-project');
const SECRET = 'sk-proj-OTELSECRETabcdefghijklmnopqrstuvwxyz0123456789';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function scratch(lines: number): { dir: string; input: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-otel-test-'));
  const repo = path.join(dir, 'repo');
  fs.cpSync(PROJECT, repo, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const input = path.join(dir, 'in.jsonl');
  fs.writeFileSync(
    input,
    Array.from({ length: lines }, (_, i) =>
      JSON.stringify({ id: `line-${i}`, prompt: `Fix the failing test (token ${SECRET})`, cwd: 'repo' }),
    ).join('\n') + '\n',
  );
  return { dir, input };
}

async function tracedBatch(
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
): Promise<{ spans: ReceivedSpan[]; contentTypes: string[]; bodies: Buffer[] }> {
  const receiver = await startReceiver();
  closers.push(receiver.close);
  const w = scratch(3);
  const r = await runCli(
    [
      'batch',
      w.input,
      '--provider',
      'replay',
      '--cassette',
      CASSETTE,
      '--store',
      path.join(w.dir, 'store'),
      '--out',
      path.join(w.dir, 'out'),
      '--isolate',
      'worktree',
      '--concurrency',
      '3',
      ...extra,
    ],
    {
      cwd: w.dir,
      env: {
        MINICODE_HOME: path.join(w.dir, 'home'),
        OPENAI_API_KEY: SECRET,
        ...env,
        ...(extra.length ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      },
      timeoutMs: 120_000,
    },
  );
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toContain('OpenTelemetry export');
  // The process has exited: whatever it exported is here already (flushed before exit).
  return {
    spans: receiver.spans(),
    contentTypes: receiver.requests.map((q) => q.contentType),
    bodies: receiver.requests.map((q) => q.body),
  };
}

function checkTree(spans: ReceivedSpan[]): void {
  const batch = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_workflow');
  expect(batch).toHaveLength(1);
  const root = batch[0]!;
  expect(root).toMatchObject({ name: 'invoke_workflow minicode-batch', parentSpanId: '', service: 'minicode' });
  expect(root.attributes).toMatchObject({
    'minicode.batch.lines': 3,
    'minicode.batch.completed': 3,
    'minicode.batch.failed': 0,
  });
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));

  const runs = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
  expect(runs).toHaveLength(3);
  for (const run of runs) {
    expect(run.name).toBe('invoke_agent minicode');
    expect(run.parentSpanId).toBe(root.spanId);
    expect(run.kind).toBe(1);
    expect(run.attributes['gen_ai.conversation.id']).toMatch(/^ses_/);
    expect(run.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(run.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(run.status.code).toBe(0);
    const children = spans.filter((s) => s.parentSpanId === run.spanId);
    const chats = children.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    const tools = children.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    // The demo cassette: five model responses and four tool calls per run.
    expect(chats).toHaveLength(5);
    expect(tools.length).toBeGreaterThanOrEqual(3);
    for (const chat of chats) {
      expect(chat.kind).toBe(3);
      expect(chat.name).toMatch(/^chat /);
      expect(chat.attributes['gen_ai.provider.name']).toBeTypeOf('string');
      expect(chat.attributes['gen_ai.conversation.id']).toBe(run.attributes['gen_ai.conversation.id']);
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
      expect(BigInt(chat.start)).toBeGreaterThanOrEqual(BigInt(run.start));
      expect(BigInt(chat.end)).toBeLessThanOrEqual(BigInt(run.end));
    }
    for (const tool of tools) {
      expect(tool.name).toBe(`execute_tool ${tool.attributes['gen_ai.tool.name']}`);
      expect(tool.attributes['gen_ai.tool.call.id']).toBeTypeOf('string');
      expect(tool.attributes['gen_ai.tool.type']).toBe('function');
    }
  }
}

describe('OpenTelemetry spans of a batch', () => {
  it('reach an OTLP/HTTP protobuf receiver as a batch span, a run span per line, and chat and tool spans with GenAI attributes', async () => {
    const { spans, contentTypes, bodies } = await tracedBatch({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
    expect(new Set(contentTypes)).toEqual(new Set(['application/x-protobuf']));
    checkTree(spans);
    // Content is opt-in: no prompt or tool arguments by default.
    for (const s of spans)
      expect(s.attributes['gen_ai.input.messages'] ?? s.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    for (const body of bodies) expect(body.includes(SECRET)).toBe(false);
  }, 180_000);

  it('reach an OTLP/HTTP JSON receiver given by --otel-endpoint from runs on a pool thread, with opted-in content scrubbed of credentials', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const w = scratch(3);
    const r = await runCli(
      [
        'batch',
        w.input,
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(w.dir, 'store'),
        '--out',
        path.join(w.dir, 'out'),
        '--isolate',
        'worktree',
        '--threads',
        '1',
        '--otel-endpoint',
        receiver.url,
      ],
      {
        cwd: w.dir,
        env: {
          MINICODE_HOME: path.join(w.dir, 'home'),
          OPENAI_API_KEY: SECRET,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        },
        timeoutMs: 120_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(new Set(receiver.requests.map((q) => q.contentType))).toEqual(new Set(['application/json']));
    const spans = receiver.spans();
    checkTree(spans);
    const prompts = spans
      .map((s) => s.attributes['gen_ai.input.messages'])
      .filter((v): v is string => typeof v === 'string');
    expect(prompts).toHaveLength(3);
    for (const p of prompts) expect(p).toContain('Fix the failing test');
    expect(spans.some((s) => typeof s.attributes['gen_ai.tool.call.arguments'] === 'string')).toBe(true);
    for (const q of receiver.requests) expect(q.body.includes(SECRET)).toBe(false);
  }, 180_000);

  it('refuses an unsupported OTLP protocol with MINICODE_E_OTEL_CONFIG before running anything', async () => {
    const w = scratch(1);
    const out = path.join(w.dir, 'out');
    const r = await runCli(['batch', w.input, '--provider', 'replay', '--cassette', CASSETTE, '--out', out, '--json'], {
      cwd: w.dir,
      env: {
        MINICODE_HOME: path.join(w.dir, 'home'),
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      },
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toMatchObject({
      type: 'batch.summary',
      ok: false,
      error: { code: 'MINICODE_E_OTEL_CONFIG' },
    });
    expect(fs.existsSync(path.join(out, 'results.jsonl'))).toBe(false);
  });
});

describe('OpenTelemetry spans of exec', () => {
  it('reach the receiver as one invoke_agent root span with its chat and execute_tool children, flushed before exit', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const w = scratch(0);
    const r = await runCli(
      [
        'exec',
        'Fix the failing test',
        '--provider',
        'replay',
        '--cassette',
        CASSETTE,
        '--store',
        path.join(w.dir, 'store'),
        '--json',
      ],
      {
        cwd: path.join(w.dir, 'repo'),
        env: {
          MINICODE_HOME: path.join(w.dir, 'home'),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        },
        timeoutMs: 120_000,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const spans = receiver.spans();
    const roots = spans.filter((s) => s.parentSpanId === '');
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({
      name: 'invoke_agent minicode',
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'anthropic' },
    });
    const sessionId = (JSON.parse(r.stdout.trim().split('\n').pop()!) as { sessionId: string }).sessionId;
    expect(roots[0]!.attributes['gen_ai.conversation.id']).toBe(sessionId);
    const children = spans.filter((s) => s.parentSpanId === roots[0]!.spanId);
    expect(children.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat')).toHaveLength(5);
    expect(
      children.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool').length,
    ).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
