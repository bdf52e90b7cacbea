/**
 * Prompt caching and reasoning on the wire: real `minicode exec` runs against a loopback server
 * that logs every request body, checked step by step; cost and cache hit ratio from usage
 * objects in the providers' real shapes (recorded streams when present, our own examples always).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/cli.js';
import { buildRequest } from '../../lib/agent/requests/index.js';
import type { Conversation } from '../../lib/agent/conversation.js';
import { costFor, findPrice } from '../../lib/control/prices.js';
import { cacheHitRatio, createUsageCollector } from '../../lib/control/usage.js';
import { anthropicUsage } from '../../lib/providers/anthropic.js';
import { geminiUsage } from '../../lib/providers/gemini.js';
import { PROVIDER_DECODERS } from '../../lib/providers/index.js';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import type { Usage } from '../../lib/events/index.js';
import { cleanEnv, contentTypeOf, execJson, scratchProject, tempDir, turnBody } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(format: string, turns: object[]): Promise<ReplayServer> {
  const server = await startReplayServer(
    turns.map((t, i): Exchange => streamOk(turnBody(format, t, i + 1), contentTypeOf(format))),
  );
  servers.push(server);
  return server;
}

const read = (k: number) => ({
  text: `Reading ${k}.`,
  calls: [{ id: `call_${k}`, name: 'read_file', args: { path: 'README.md' } }],
});
type Body = Record<string, any>;
const bodies = (server: ReplayServer): Body[] => server.requests.map((r) => JSON.parse(r.body) as Body);

/** Every block of a request carrying a cache breakpoint, as `where:type`. */
function breakpoints(body: Body): string[] {
  const out: string[] = [];
  for (const [i, t] of ((body.tools ?? []) as Body[]).entries()) if (t.cache_control) out.push(`tools[${i}]`);
  if (Array.isArray(body.system)) for (const b of body.system as Body[]) if (b.cache_control) out.push('system');
  for (const [i, m] of (body.messages as Body[]).entries())
    for (const [j, b] of (m.content as Body[]).entries())
      if (b.cache_control) out.push(`messages[${i}].${j}:${b.type}`);
  return out;
}

describe('Anthropic requests carry cache breakpoints', () => {
  it('mark tools, system and the last block at every step, moving forward, four at most', async () => {
    const server = await serve('anthropic', [read(1), read(2), { text: 'Done.' }]);
    const env = { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-caching-0123456789' };
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    const sent = bodies(server);
    expect(sent).toHaveLength(3);
    const lastTool = `tools[${sent[0]!.tools.length - 1}]`;
    expect(breakpoints(sent[0]!)).toEqual([lastTool, 'system', 'messages[0].0:text']);
    // Step 2 keeps the task's breakpoint and marks the new tool result; step 3 moves on.
    expect(breakpoints(sent[1]!)).toEqual([lastTool, 'system', 'messages[0].0:text', 'messages[2].0:tool_result']);
    expect(breakpoints(sent[2]!)).toEqual([lastTool, 'system', 'messages[0].0:text', 'messages[4].0:tool_result']);
    for (const body of sent) {
      expect(breakpoints(body).length).toBeLessThanOrEqual(4);
      expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
    }
    // Apart from the moving marker, each request's messages begin with the previous request's.
    expect(
      JSON.stringify(stripMarks(sent[2]!).messages).startsWith(
        JSON.stringify(stripMarks(sent[1]!).messages).slice(0, -1),
      ),
    ).toBe(true);
  });

  it('report the cache hit ratio in the exec summary, and leave it out when the provider gave no cache fields', async () => {
    const turn = (n: number, read: number) =>
      streamOk(
        turnBody('anthropic', n === 1 ? read1 : { text: 'Done.' }, n).replace(
          '"cache_read_input_tokens":0',
          `"cache_read_input_tokens":${read}`,
        ),
        contentTypeOf('anthropic'),
      );
    const read1 = read(1);
    const server = await startReplayServer([turn(1, 0), turn(2, 600)]);
    servers.push(server);
    const env = { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-caching-0123456789' };
    const run = await execJson(['--provider', 'anthropic'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    const usage = run.summary.usage as Usage;
    expect(usage.cacheReadTokens).toBe(600);
    expect(run.summary.cacheHitRatio).toBeCloseTo(600 / (usage.inputTokens! + 600), 3);
    const gemini = await serve('gemini', [{ text: 'Done.' }]);
    const plain = await execJson(['--provider', 'gemini'], {
      cwd: scratchProject(),
      env: { GOOGLE_GEMINI_BASE_URL: gemini.origin, GEMINI_API_KEY: 'g-fake-caching-0123456789' },
    });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.summary).not.toHaveProperty('cacheHitRatio');
  });

  it('ask for the 1-hour lifetime with --cache-ttl 1h', async () => {
    const server = await serve('anthropic', [{ text: 'Done.' }]);
    const env = { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-caching-0123456789' };
    const run = await execJson(['--provider', 'anthropic', '--cache-ttl', '1h'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    const [body] = bodies(server);
    expect(body!.system[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(body!.tools.at(-1).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(server.requests[0]!.headers['anthropic-beta']).toBe('extended-cache-ttl-2025-04-11');
    // The moving tail stays at 5 minutes: it is superseded at the next step.
    const tail = buildRequest(
      'anthropic',
      {
        system: 's',
        tools: [],
        messages: [
          { role: 'user', text: 'task' },
          { role: 'assistant', text: 'a', toolCalls: [{ id: 'c', name: 'read_file', argumentsText: '{}' }] },
          { role: 'tool', toolCallId: 'c', name: 'read_file', content: 'x' },
        ],
      },
      { model: 'm', baseUrl: 'http://127.0.0.1:9', tuning: { cacheTtl: '1h' } },
    );
    const parsed = JSON.parse(tail.body) as Body;
    expect(parsed.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(parsed.messages[2].content[0].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('keep breakpoints on tools, system, the pinned task and the last block in the requests after a real compaction', async () => {
    const dir = tempDir('minicode-big-');
    const lines = Array.from(
      { length: 160 },
      (_, i) => `Paragraph ${i + 1}: the greeting module formats names and the tests check both cases.`,
    );
    fs.writeFileSync(path.join(dir, 'big.txt'), `${lines.join('\n')}\n`);
    const big = (k: number) => ({
      text: `Reading part ${k}.`,
      calls: [{ id: `toolu_big_${k}`, name: 'read_file', args: { path: 'big.txt' } }],
    });
    const exchanges: Exchange[] = [];
    for (let k = 1; k <= 7; k++)
      exchanges.push(
        streamOk(
          turnBody('anthropic', big(k), k).replace(/"input_tokens":\d+/, `"input_tokens":${1500 + (k - 1) * 2300}`),
          contentTypeOf('anthropic'),
        ),
      );
    exchanges.push(streamOk(turnBody('anthropic', { text: 'Read it all.' }, 8), contentTypeOf('anthropic')));
    const server = await startReplayServer(exchanges);
    servers.push(server);
    const env = {
      ANTHROPIC_BASE_URL: server.origin,
      ANTHROPIC_API_KEY: 'sk-ant-fake-caching-0123456789',
      MINICODE_CONTEXT_WINDOW: '20000',
    };
    const run = await execJson(['--provider', 'anthropic'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.records.filter((r) => r.type === 'context.compacted')).toHaveLength(1);
    const sent = bodies(server);
    expect(JSON.stringify(sent[6]!.messages)).toMatch(/(folded|removed) by compaction/);
    for (const [i, body] of sent.entries()) {
      const last = body.messages.length - 1;
      // After the compaction the task's turn also holds the compaction's note: the breakpoint covers both.
      const anchor = i >= 6 ? body.messages[0].content.length - 1 : 0;
      if (i >= 6) expect(JSON.stringify(body.messages[0].content.slice(1))).toMatch(/minicode/);
      const expected = ['tools[' + (body.tools.length - 1) + ']', 'system', `messages[0].${anchor}:text`];
      if (last > 0) expected.push(`messages[${last}].0:tool_result`);
      expect(breakpoints(body), `request ${i + 1}`).toEqual(expected);
    }
  });

  it('keep the pinned task and the compaction summary under a breakpoint after a compaction', () => {
    const compacted: Conversation = {
      system: 'sys',
      tools: [{ name: 'read_file', description: 'read', jsonSchema: { type: 'object' } }],
      messages: [
        { role: 'user', text: 'the task' },
        { role: 'user', text: '[minicode: summary of 6 earlier messages]\nread big.txt twice' },
        { role: 'assistant', text: 'Next.', toolCalls: [{ id: 'c9', name: 'read_file', argumentsText: '{}' }] },
        { role: 'tool', toolCallId: 'c9', name: 'read_file', content: 'text' },
      ],
    };
    const body = JSON.parse(
      buildRequest('anthropic', compacted, { model: 'claude-sonnet-4', baseUrl: 'http://127.0.0.1:9' }).body,
    ) as Body;
    expect(breakpoints(body)).toEqual(['tools[0]', 'system', 'messages[0].1:text', 'messages[2].0:tool_result']);
    expect(body.messages[0].content[1].text).toContain('summary of 6');
  });
});

function stripMarks(body: Body): Body {
  return JSON.parse(JSON.stringify(body, (k, v) => (k === 'cache_control' ? undefined : v))) as Body;
}

describe('OpenAI requests keep one prompt_cache_key', () => {
  it('send the same key at every step and in every run with the same prefix, and the configured key when given', async () => {
    const server = await serve('openai-responses', [read(1), { text: 'Done.' }, { text: 'Again.' }, { text: 'Mine.' }]);
    const env = { OPENAI_BASE_URL: server.origin, OPENAI_API_KEY: 'sk-fake-caching-0123456789abcdef' };
    const cwd = scratchProject();
    const first = await execJson(['--provider', 'openai-responses'], { cwd, env });
    const second = await execJson(['--provider', 'openai-responses'], {
      cwd,
      env,
      prompt: 'another prompt of the batch',
    });
    const third = await execJson(['--provider', 'openai-responses', '--cache-key', 'my-batch'], { cwd, env });
    for (const r of [first, second, third]) expect(r.code, r.stderr).toBe(0);
    const keys = bodies(server).map((b) => b.prompt_cache_key);
    expect(keys[0]).toMatch(/^minicode-[0-9a-f]{16}$/);
    expect(keys).toEqual([keys[0], keys[0], keys[0], 'my-batch']);
    const sent = bodies(server);
    // The prefix is byte-stable: instructions and tools identical, step 2's input begins with step 1's.
    expect(sent[1]!.instructions).toBe(sent[0]!.instructions);
    expect(JSON.stringify(sent[1]!.tools)).toBe(JSON.stringify(sent[0]!.tools));
    expect(JSON.stringify(sent[1]!.input).startsWith(JSON.stringify(sent[0]!.input).slice(0, -1))).toBe(true);
    expect(sent[0]!.store).toBe(false);
  });
});

describe('OpenAI Responses with store: false', () => {
  it('carries the encrypted reasoning item of one step into the next request, before the call it led to', async () => {
    const reasoning = { type: 'reasoning', id: 'rs_mc1', summary: [], encrypted_content: 'gAAAA-encrypted-reasoning' };
    const events = [
      `event: response.output_item.added\ndata: ${JSON.stringify({ type: 'response.output_item.added', output_index: 9, item: { ...reasoning, encrypted_content: undefined } })}\n\n`,
      `event: response.output_item.done\ndata: ${JSON.stringify({ type: 'response.output_item.done', output_index: 9, item: reasoning })}\n\n`,
    ].join('');
    const first = turnBody('openai-responses', read(1), 1).replace(
      /(event: response\.in_progress\n[^\n]*\n\n)/,
      `$1${events}`,
    );
    const server = await startReplayServer([
      streamOk(first, contentTypeOf('openai-responses')),
      streamOk(turnBody('openai-responses', { text: 'Done.' }, 2), contentTypeOf('openai-responses')),
    ]);
    servers.push(server);
    const env = { OPENAI_BASE_URL: server.origin, OPENAI_API_KEY: 'sk-fake-caching-0123456789abcdef' };
    const run = await execJson(['--provider', 'openai-responses', '--model', 'gpt-5', '--reasoning', 'low'], {
      cwd: scratchProject(),
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const [a, b] = bodies(server);
    expect(a).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' } });
    expect(b!.input.map((i: Body) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'function_call',
      'function_call_output',
    ]);
    expect(b!.input[1]).toEqual({ type: 'reasoning', summary: [], encrypted_content: 'gAAAA-encrypted-reasoning' });
  });
});

describe('a batch shares one prompt_cache_key', () => {
  it("sends the same key from every run of the batch, and a line's reasoning only on its own run", async () => {
    const server = await serve('openai-responses', [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }]);
    const dir = tempDir('minicode-batch-cache-');
    const input = path.join(dir, 'prompts.jsonl');
    const lines = [
      { id: 'a', prompt: 'first' },
      { id: 'b', prompt: 'second', reasoning: 'high' },
      { id: 'c', prompt: 'third' },
    ];
    fs.writeFileSync(input, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const env = cleanEnv(tempDir('minicode-home-'), {
      OPENAI_BASE_URL: server.origin,
      OPENAI_API_KEY: 'sk-fake-caching-0123456789abcdef',
    });
    const r = await runCli(
      [
        'batch',
        input,
        '--provider',
        'openai-responses',
        '--model',
        'gpt-5',
        '--concurrency',
        '2',
        '--out',
        path.join(dir, 'out'),
        '--store',
        path.join(dir, 'store'),
      ],
      {
        cwd: dir,
        env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = bodies(server);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((b) => b.prompt_cache_key)).size).toBe(1);
    const byPrompt = new Map(sent.map((b) => [b.input[0].content[0].text as string, b]));
    expect(byPrompt.get('second')!.reasoning).toEqual({ effort: 'high' });
    expect(byPrompt.get('first')!.reasoning).toBeUndefined();
    const summary = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'summary.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    // The recorded shape reports cached_tokens 0: a known zero, not an unknown.
    expect(summary).toMatchObject({ completed: 3, cacheHitRatio: 0, cacheUnknownRuns: 0 });
  });
});

describe('--reasoning is mapped for each provider', () => {
  const conversation: Conversation = { system: 's', tools: [], messages: [{ role: 'user', text: 'hi' }] };
  const build = (
    format: Parameters<typeof buildRequest>[0],
    model: string,
    reasoning: 'off' | 'low' | 'medium' | 'high',
    maxTokens?: number,
  ) =>
    JSON.parse(
      buildRequest(format, conversation, {
        model,
        baseUrl: 'http://127.0.0.1:9',
        tuning: { reasoning },
        ...(maxTokens ? { maxTokens } : {}),
      }).body,
    ) as Body;

  it('as Anthropic thinking with max_tokens raised to fit the budget', () => {
    expect(build('anthropic', 'claude-sonnet-4', 'medium')).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 8192 },
      max_tokens: 8192 + 8192,
    });
    expect(build('anthropic', 'claude-sonnet-4', 'high', 4000)).toMatchObject({
      thinking: { budget_tokens: 24_576 },
      max_tokens: 28_576,
    });
    expect(build('anthropic', 'claude-sonnet-4', 'off').thinking).toBeUndefined();
  });

  it('as OpenAI Responses reasoning.effort with encrypted reasoning included, and Chat reasoning_effort where the model takes it', () => {
    expect(build('openai-responses', 'gpt-5', 'high')).toMatchObject({
      reasoning: { effort: 'high' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(build('openai-responses', 'gpt-5-mini', 'off').reasoning).toEqual({ effort: 'minimal' });
    expect(build('openai-responses', 'gpt-4.1', 'high').reasoning).toBeUndefined();
    expect(build('openai-chat', 'o4-mini', 'low').reasoning_effort).toBe('low');
    expect(build('openai-chat', 'gpt-4o', 'low').reasoning_effort).toBeUndefined();
  });

  it('as Gemini thinkingConfig and Ollama think', () => {
    expect(build('gemini', 'gemini-2.5-flash', 'low').generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(build('gemini', 'gemini-2.5-flash', 'off').generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 0 },
    });
    expect(build('gemini', 'gemini-2.5-pro', 'off').generationConfig).toBeUndefined();
    expect(build('ollama', 'qwen3', 'medium').think).toBe(true);
    expect(build('ollama', 'qwen3', 'off').think).toBe(false);
  });

  it('reach the wire from the flag, and a bad level is a usage error', async () => {
    const server = await serve('anthropic', [{ text: 'Done.' }]);
    const env = { ANTHROPIC_BASE_URL: server.origin, ANTHROPIC_API_KEY: 'sk-ant-fake-caching-0123456789' };
    const run = await execJson(['--provider', 'anthropic', '--reasoning', 'low'], { cwd: scratchProject(), env });
    expect(run.code, run.stderr).toBe(0);
    expect(bodies(server)[0]).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    const bad = await runCli(['exec', 'hi', '--provider', 'anthropic', '--reasoning', 'extreme'], {
      env: cleanEnv(tempDir('minicode-home-'), env),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('extreme');
    expect(server.requests).toHaveLength(1);
  });
});

/** Usage objects in the providers' own shapes (written for this test, not recorded). */
const OWN = {
  anthropic: {
    input_tokens: 120,
    cache_read_input_tokens: 30_000,
    cache_creation_input_tokens: 1_500,
    output_tokens: 400,
  },
  gemini: {
    promptTokenCount: 31_000,
    cachedContentTokenCount: 24_000,
    candidatesTokenCount: 400,
    totalTokenCount: 31_400,
  },
};

describe('cost separates cache reads and cache writes', () => {
  it('prices an Anthropic usage with reads at 10% and writes at 125% of input', () => {
    const usage = anthropicUsage(OWN.anthropic);
    const cost = costFor(usage, findPrice('anthropic', 'claude-sonnet-4'))!;
    expect(cost).toBeCloseTo((120 * 3 + 400 * 15 + 30_000 * 0.3 + 1_500 * 3.75) / 1e6, 10);
    expect(cacheHitRatio(usage, false)).toBeCloseTo(30_000 / 31_620, 6);
  });

  it('prices the 1-hour share of Anthropic cache writes at twice the input price', () => {
    const usage = anthropicUsage({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 3_000_000,
      cache_creation: { ephemeral_5m_input_tokens: 1_000_000, ephemeral_1h_input_tokens: 2_000_000 },
    });
    expect(usage).toMatchObject({ cacheWriteTokens: 3_000_000, cacheWrite1hTokens: 2_000_000 });
    // Sonnet 4 at $3/M input: 1M five-minute writes at 1.25x, 2M one-hour writes at 2x.
    expect(costFor(usage, findPrice('anthropic', 'claude-sonnet-4'))).toBeCloseTo(1 * 3.75 + 2 * 6, 9);
    // Without the 1-hour share every write is a five-minute one.
    expect(
      costFor(
        { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 3_000_000 },
        findPrice('anthropic', 'claude-sonnet-4'),
      ),
    ).toBeCloseTo(3 * 3.75, 9);
  });

  it('prices a Gemini usage with cached tokens inside the prompt count', () => {
    const usage = geminiUsage(OWN.gemini);
    expect(costFor(usage, findPrice('google', 'gemini-2.5-flash'))).toBeCloseTo(
      (7_000 * 0.3 + 24_000 * 0.075 + 400 * 2.5) / 1e6,
      10,
    );
    expect(cacheHitRatio(usage, true)).toBeCloseTo(24_000 / 31_000, 6);
  });

  it('keeps the hit ratio unknown when a report has no cache fields', () => {
    const collector = createUsageCollector();
    collector.record({
      requestId: 'r1',
      usage: { inputTokens: 10, outputTokens: 2 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-5',
    });
    expect(collector.session().cacheHitRatio).toBeUndefined();
    const cached = createUsageCollector();
    cached.record({
      requestId: 'r1',
      usage: { inputTokens: 1000, cacheReadTokens: 0, outputTokens: 2 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-5',
    });
    cached.record({
      requestId: 'r2',
      usage: { inputTokens: 1000, cacheReadTokens: 900, outputTokens: 2 },
      cumulative: false,
      scope: 'request',
      provider: 'openai',
      model: 'gpt-5',
    });
    expect(cached.session().cacheHitRatio).toBeCloseTo(0.45, 6);
  });

  const PROVIDER_FIXTURES = path.join(FIXTURES, 'providers');
  const recorded: [string, string, string, string][] = [
    ['anthropic', 'anthropic/an04-client-tool-use.sse', 'anthropic', 'claude-sonnet-4'],
    ['openai-responses', 'openai-responses/or01-function-call.sse', 'openai', 'gpt-5'],
    ['gemini', 'gemini/ge02-function-call.sse', 'google', 'gemini-2.5-flash'],
  ];
  for (const [format, file, provider, model] of recorded) {
    const full = path.join(PROVIDER_FIXTURES, file);
    it.skipIf(!fs.existsSync(full))(
      `prices the usage of a recorded ${format} stream (skipped when ${PROVIDER_FIXTURES} is absent)`,
      () => {
        let usage: Usage | undefined;
        const decoder = PROVIDER_DECODERS[format]!({
          onEvent(d) {
            if (d.type === 'model.response.completed' && d.payload.usage) usage = d.payload.usage;
          },
        });
        decoder.feed(fs.readFileSync(full));
        decoder.end();
        expect(usage?.inputTokens).toBeGreaterThan(0);
        const price = findPrice(provider, model)!;
        const cost = costFor(usage!, price)!;
        const read = usage!.cacheReadTokens ?? 0;
        const plain = price.inputIncludesCache ? usage!.inputTokens! - read : usage!.inputTokens!;
        const expected =
          (plain * price.input +
            usage!.outputTokens! * price.output +
            read * price.cacheRead! +
            (usage!.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input)) /
          1e6;
        expect(cost).toBeCloseTo(expected, 12);
      },
    );
  }
});
