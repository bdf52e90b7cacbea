/**
 * Every surface runs the same pipeline, so the same provider bytes must give the same events
 * and the same final state whoever reads them: `exec --json`, `batch` and `acp` (driven by the
 * official `@agentclientprotocol/sdk` client) calling a loopback server that answers with those
 * bytes, and `ingest` of the same bytes as a recording. What batch and ACP stored is read back
 * with `replay --json`; ACP's own wire (its message chunks, its stop reason) is compared too.
 *
 * Normalised on purpose before comparing:
 * - only the events the provider stream decodes to (fidelity `native`) are compared: each
 *   surface adds its own synthetic framing (exec: the prompt, task and session lifecycle;
 *   ingest: `session.started` with the format), and the HTTP status events exist only live;
 * - `usage.reported` is left out: the agent loop replaces the stream's request usage with the
 *   collector's priced report (compared separately by token counts);
 * - eventId, seq, sessionId, timestamp, turnId, stepId name where and when, not what.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '@agentclientprotocol/sdk';
import { chunkTexts, initializeFullClient, promptText, spawnAcp, updatesFor } from '../acp/acp-child.js';
import { runCli } from '../helpers/cli.js';

const SECRET = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6l';

/** An OpenAI chat-completions stream (the real wire format, hand-made) of `parts` as text deltas. */
function chatStream(parts: string[], usage: { prompt: number; completion: number }): string {
  const frame = (body: object): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-agree', object: 'chat.completion.chunk', created: 1, model: 'local-model', ...body })}\n\n`;
  return [
    frame({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...parts.map((content) => frame({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    frame({
      choices: [],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    }),
    'data: [DONE]\n\n',
  ].join('');
}

const dirs: string[] = [];
const tmp = (prefix: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

let body = '';
let server: http.Server;
let baseUrl = '';
beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    for await (const _ of req) void _;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Small writes: the client sees the stream in many network chunks.
    for (let i = 0; i < body.length; i += 97) res.write(body.slice(i, i + 97));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, any>;
const lines = (stdout: string): Json[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);

/** The comparable part of a surface's envelopes (see the header). */
function normalised(records: Json[]): Json[] {
  return records
    .filter((r) => r.schema === 'minicode.output.v1' && r.fidelity === 'native' && r.type !== 'usage.reported')
    .map(({ eventId: _e, seq: _s, sessionId: _i, timestamp: _t, turnId: _u, stepId: _p, ...rest }) => rest);
}

const providerFlags = (): string[] => ['--provider', 'openai-chat', '--base-url', baseUrl, '--model', 'local-model'];
const env = (home: string): NodeJS.ProcessEnv => ({
  MINICODE_HOME: home,
  OPENAI_API_KEY: 'sk-test-not-a-real-key',
  MINICODE_PROVIDER: undefined,
  MINICODE_CASSETTE: undefined,
});

async function viaExec(): Promise<{ events: Json[]; summary: Json }> {
  const home = tmp('minicode-agree-home-');
  const run = await runCli(['exec', 'say it', '--json', '--cwd', tmp('minicode-agree-cwd-'), ...providerFlags()], {
    env: env(home),
  });
  expect(run.code, run.stderr).toBe(0);
  const records = lines(run.stdout);
  return { events: records, summary: records.at(-1) as Json };
}

async function viaIngest(): Promise<{ events: Json[]; summary: Json }> {
  const file = path.join(tmp('minicode-agree-rec-'), 'stream.sse');
  fs.writeFileSync(file, body);
  const run = await runCli(['ingest', '--from', 'openai-chat', file, '--json']);
  expect(run.code, run.stderr).toBe(0);
  const records = lines(run.stdout);
  return { events: records, summary: records.at(-1) as Json };
}

async function viaBatch(): Promise<{ events: Json[]; outcome: string }> {
  const home = tmp('minicode-agree-home-');
  const dir = tmp('minicode-agree-batch-');
  fs.writeFileSync(path.join(dir, 'in.jsonl'), `${JSON.stringify({ id: 'one', prompt: 'say it' })}\n`);
  const run = await runCli(
    [
      'batch',
      path.join(dir, 'in.jsonl'),
      '--json',
      '--out',
      path.join(dir, 'out'),
      '--cwd',
      tmp('minicode-agree-cwd-'),
      ...providerFlags(),
    ],
    { env: env(home) },
  );
  expect(run.code, run.stderr).toBe(0);
  const [result] = lines(fs.readFileSync(path.join(dir, 'out', 'results.jsonl'), 'utf8'));
  const replay = await runCli(['replay', String(result?.sessionId), '--json'], { env: env(home) });
  expect(replay.code, replay.stderr).toBe(0);
  return { events: lines(replay.stdout), outcome: String(result?.outcome) };
}

/** One prompt through `minicode acp` (the real agent port) under the official ACP client; then its stored session, replayed. */
async function viaAcp(): Promise<{ events: Json[]; summary: Json; text: string; stopReason: string; wire: string }> {
  const home = tmp('minicode-agree-home-');
  const store = tmp('minicode-agree-acp-store-');
  const acp = spawnAcp(
    ['--provider', 'openai-chat', '--base-url', baseUrl, '--model', 'local-model', '--store', store],
    { scripted: false, env: env(home) },
  );
  const conn = client({ name: 'surfaces-agree' })
    .onNotification('session/update', () => {})
    .connect(acp.stream);
  try {
    await initializeFullClient(conn, 'surfaces-agree');
    const { sessionId } = await conn.agent.request('session/new', { cwd: tmp('minicode-agree-cwd-'), mcpServers: [] });
    const { stopReason } = await promptText(conn, sessionId, 'say it');
    const text = chunkTexts(updatesFor(acp.wire, sessionId), 'agent_message_chunk').join('');
    expect(acp.violations).toEqual([]);
    const wire = acp.wire.map((l) => l.text).join('\n');
    conn.close();
    // The port closes the store (its sync) when stdin ends; replay then reads it from another process.
    expect(await acp.close(), acp.stderr()).toBe(0);
    const replay = await runCli(['replay', sessionId, '--json', '--store', store], { env: env(home) });
    expect(replay.code, replay.stderr).toBe(0);
    const records = lines(replay.stdout);
    return { events: records, summary: records.at(-1) as Json, text, stopReason, wire };
  } finally {
    conn.close();
    if (acp.child.exitCode === null) acp.child.kill();
  }
}

/** Only durable events reach the store: the live ones are what replay cannot show. */
const durable = (events: Json[]): Json[] => events.filter((e) => !/\.delta$/.test(e.type));

describe('every surface on the same provider bytes', () => {
  it('gives the same decoded events and the same outcome through exec, ingest, batch and ACP (property over streams)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 5 }),
        fc.integer({ min: 1, max: 5000 }),
        async (words, at, prompt) => {
          // The secret and an escape sequence split across deltas, wherever the words put them.
          const parts = [...words];
          parts.splice(
            Math.min(at, parts.length),
            0,
            `key ${SECRET.slice(0, 20)}`,
            `${SECRET.slice(20)} \u001b[31mred\u001b[0m`,
          );
          body = chatStream(parts, { prompt, completion: parts.length });
          const exec = await viaExec();
          const ingest = await viaIngest();
          const batch = await viaBatch();
          const acp = await viaAcp();
          const decoded = normalised(ingest.events).map((e) => e.type);
          expect(decoded).toEqual(
            expect.arrayContaining([
              'model.response.started',
              'assistant.message.completed',
              'model.response.completed',
            ]),
          );
          expect(normalised(exec.events)).toEqual(normalised(ingest.events));
          // Model text goes out as `text` records, the same scrubbed deltas on both surfaces.
          const text = (records: Json[]): string =>
            records
              .filter((r) => r.type === 'text')
              .map((r) => r.delta)
              .join('');
          expect(text(exec.events)).toBe(text(ingest.events));
          expect(normalised(durable(batch.events))).toEqual(normalised(durable(ingest.events)));
          // ACP: what it stored is what ingest decoded, and its message chunks are exec's text.
          expect(normalised(durable(acp.events))).toEqual(normalised(durable(ingest.events)));
          expect(acp.text).toBe(text(exec.events));
          expect(acp.stopReason).toBe('end_turn');
          for (const out of [exec.events, ingest.events, batch.events, acp.events])
            expect(JSON.stringify(out)).not.toContain(SECRET);
          expect(acp.wire).not.toContain(SECRET);
          expect(exec.summary.outcome).toBe(ingest.summary.outcome);
          expect(batch.outcome).toBe('completed');
          expect(exec.summary.ok).toBe(true);
          // The priced usage the loop reports counts the stream's own tokens.
          const usage = exec.events.find((e) => e.type === 'usage.reported')?.payload?.usage;
          expect(usage).toMatchObject({ inputTokens: prompt, outputTokens: parts.length });
        },
      ),
      // Each run is six CLI subprocesses: a few generated streams, not hundreds.
      { numRuns: 3 },
    );
  }, 300_000);
});
