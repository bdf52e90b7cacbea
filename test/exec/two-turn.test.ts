/**
 * End to end: `minicode exec --json` as a real subprocess, a two-turn run (read_file, then a
 * final answer) per provider format over loopback HTTP — once through `--provider replay`,
 * once through the real provider path (the conventional base-URL variables pointed at a
 * replay server started here, with a fake key) — checking the JSONL contract and the stored
 * session.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROVIDER_FORMATS } from '../../lib/decode/formats.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { runCli } from '../helpers/cli.js';
import { CASSETTES, cleanEnv, execJson, ofType, replayJson, scratchProject, type ExecRun } from './helpers.js';

const FAKE_KEY = 'sk-fake-e2e-0123456789abcdefghijklmnopqrstuv';

/** Point a format's conventional variables at `origin`, with a fake key. */
function providerEnv(format: string, origin: string): NodeJS.ProcessEnv {
  switch (format) {
    case 'anthropic':
      return { ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: FAKE_KEY };
    case 'openai-chat':
    case 'openai-responses':
      return { OPENAI_BASE_URL: `${origin}/v1`, OPENAI_API_KEY: FAKE_KEY };
    case 'gemini':
      return { GOOGLE_GEMINI_BASE_URL: origin, GEMINI_API_KEY: FAKE_KEY };
    default:
      return { OLLAMA_HOST: origin.replace('http://', '') };
  }
}

const MODEL: Record<string, string> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4.1-mini',
  'openai-responses': 'gpt-4.1-mini',
  gemini: 'gemini-2.5-flash',
  ollama: 'llama3.2',
};

/** What every completed two-turn run shows. */
async function expectTwoTurn(run: ExecRun, format: string): Promise<void> {
  expect(run.code, run.stderr).toBe(0);
  expect(run.summary).toMatchObject({
    type: 'summary',
    ok: true,
    outcome: 'completed',
    reason: 'completed',
    tools: { completed: 1, failed: 0, denied: 0, cancelled: 0 },
  });
  const usage = run.summary.usage as Record<string, number>;
  expect(usage.inputTokens).toBeGreaterThan(0);
  expect(usage.outputTokens).toBeGreaterThan(0);
  expect(run.summary.error).toBeUndefined();
  expect(run.summary.verify).toBeUndefined();

  const started = ofType(run.records, 'session.started');
  expect(started).toHaveLength(1);
  expect(started[0]!.payload).toMatchObject({ origin: 'exec', provider: format });
  const tool = ofType(run.records, 'tool.started');
  expect(tool).toHaveLength(1);
  expect(tool[0]!.payload).toMatchObject({ name: 'read_file', input: { path: 'README.md' } });
  const done = ofType(run.records, 'tool.completed');
  expect(done).toHaveLength(1);
  expect(done[0]!.correlationId).toBe(tool[0]!.correlationId);
  expect(ofType(run.records, 'model.response.completed')).toHaveLength(2);
  expect(ofType(run.records, 'task.completed')[0]!.payload).toMatchObject({ reason: 'completed', steps: 2 });
  const text = ofType(run.records, 'text')
    .map((r) => r.delta)
    .join('');
  expect(text).toContain("I'll read the README first.");
  expect(text).toContain('src/greet.js has a bug');
  const sessionId = run.summary.sessionId as string;
  expect(sessionId).toBe(started[0]!.sessionId);
  expect(run.stdout).not.toContain(FAKE_KEY);
  expect(run.stderr).not.toContain(FAKE_KEY);

  // The stored session: listed, and replayed to the same durable story.
  const sessions = await runCli(['sessions', '--json'], { env: cleanEnv(run.home) });
  const listed = sessions.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(listed).toEqual([
    expect.objectContaining({ sessionId, outcome: 'completed', reason: 'completed', origin: 'exec', provider: format }),
  ]);
  const replayed = await replayJson(run.home, sessionId);
  const summary = replayed[replayed.length - 1]!;
  expect(summary).toMatchObject({
    type: 'summary',
    sessionId,
    ok: true,
    outcome: 'completed',
    tools: run.summary.tools,
    usage,
  });
  const storedTypes = replayed.slice(0, -1).map((e) => e.type);
  expect(storedTypes[0]).toBe('session.started');
  expect(storedTypes[storedTypes.length - 1]).toBe('session.ended');
  expect(storedTypes).toContain('tool.completed');
  expect(storedTypes).not.toContain('assistant.message.delta');
  // Every stored envelope is one that stdout carried, byte for byte equal in meaning.
  const streamed = new Map(run.records.filter((r) => typeof r.eventId === 'string').map((r) => [r.eventId, r]));
  for (const e of replayed.slice(0, -1)) expect(streamed.get(e.eventId), e.type).toEqual(e);
  expect(JSON.stringify(replayed)).not.toContain(FAKE_KEY);
}

describe('minicode exec --json, two turns over loopback HTTP', () => {
  for (const format of PROVIDER_FORMATS) {
    it(`completes a ${format} run from the shipped cassette through --provider replay`, async () => {
      const run = await execJson(['--provider', 'replay', '--cassette', path.join(CASSETTES, `${format}-two-turn`)], {
        cwd: scratchProject(),
      });
      await expectTwoTurn(run, format);
    });
  }

  const servers: ReplayServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  for (const format of PROVIDER_FORMATS) {
    it(`completes a ${format} run through the real provider path, its endpoint taken from the conventional variable`, async () => {
      const server = await startReplayServer(path.join(CASSETTES, `${format}-two-turn`), { chunkSize: 61 });
      servers.push(server);
      const run = await execJson(['--provider', format, '--model', MODEL[format]!], {
        cwd: scratchProject(),
        env: providerEnv(format, server.origin),
      });
      await expectTwoTurn(run, format);
      expect(server.requests).toHaveLength(2);
      expect(server.remaining()).toBe(0);
      // The fake key went to the server, the way the real provider wants it.
      const first = server.requests[0]!;
      if (format === 'anthropic') expect(first.headers['x-api-key']).toBe(FAKE_KEY);
      else if (format === 'gemini') expect(first.headers['x-goog-api-key'] ?? first.path).toContain(FAKE_KEY);
      else if (format !== 'ollama') expect(first.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
      // The second request carries the tool result back.
      expect(server.requests[1]!.body).toContain('# sample-project');
    });
  }

  it('takes --base-url over the environment for an OpenAI-compatible server', async () => {
    const server = await startReplayServer(path.join(CASSETTES, 'openai-chat-two-turn'));
    servers.push(server);
    const run = await execJson(
      ['--provider', 'openai-chat', '--model', 'gpt-4.1-mini', '--base-url', `${server.origin}/v1`],
      {
        cwd: scratchProject(),
        env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: FAKE_KEY },
      },
    );
    await expectTwoTurn(run, 'openai-chat');
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });
});
