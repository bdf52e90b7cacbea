import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../lib/agent/conversation.js';
import type { HttpReply, HttpRequest } from '../../lib/agent/http-client.js';
import { PROVIDER_FORMATS } from '../../lib/decode/formats.js';
import { baseUrlForOrigin } from '../../lib/decode/formats.js';
import { buildRequest } from '../../lib/agent/requests/index.js';
import { hasCode } from '../../lib/errors.js';
import {
  REDACTED,
  createRecordingClient,
  loadCassette,
  startReplayServer,
  type ReplayServer,
} from '../../lib/replay/index.js';
import {
  cutMidEvent,
  overloaded,
  perEventChunks,
  rateLimitStorm,
  rateLimited,
  serverError,
  slowStream,
  streamOk,
} from '../corpus/scripted-exchanges.js';
import { ROOT } from '../helpers/cli.js';
import { readTurn } from './wire.js';

const CASSETTES = path.join(ROOT, 'cassettes');
const conversation: Conversation = { messages: [{ role: 'user', text: 'What does README.md say?' }], tools: [] };
const SSE = 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: [DONE]\n\n';

let servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function start(...args: Parameters<typeof startReplayServer>): Promise<ReplayServer> {
  const server = await startReplayServer(...args);
  servers.push(server);
  return server;
}

describe('the shipped two-turn cassettes', () => {
  for (const format of PROVIDER_FORMATS) {
    it(`serve ${format} over loopback HTTP: a read_file tool call, then a final answer`, async () => {
      const dir = path.join(CASSETTES, `${format}-two-turn`);
      const cassette = loadCassette(dir);
      expect(cassette.manifest).toMatchObject({ format, origin: 'hand-made' });
      const server = await start(dir, { chunkSize: 97 });
      const turns = [];
      for (let i = 0; i < 2; i++) {
        const request = buildRequest(format, conversation, {
          model: cassette.manifest.model!,
          baseUrl: baseUrlForOrigin(format, server.origin),
          apiKey: 'test-key',
        });
        const response = await fetch(request.url, request);
        expect(response.status).toBe(200);
        const body = await response.text();
        expect(Buffer.from(body)).toEqual(cassette.exchanges[i]!.body);
        turns.push(readTurn(format, body));
      }
      expect(server.requests.map((r) => r.path)).toEqual(cassette.exchanges.map((e) => e.request!.path));
      expect(turns[0]).toMatchObject({ terminated: true, calls: [{ name: 'read_file', args: { path: 'README.md' } }] });
      expect(turns[1]).toMatchObject({ terminated: true, calls: [] });
      expect(turns[1]!.text).toContain('README');
    });
  }
});

describe('the replay server', () => {
  it('answers past the last exchange with a marked 500', async () => {
    const server = await start([streamOk(SSE)]);
    await (await fetch(server.origin + '/v1/chat/completions', { method: 'POST', body: '{}' })).text();
    const extra = await fetch(server.origin + '/v1/chat/completions', { method: 'POST', body: '{}' });
    expect(extra.status).toBe(500);
    expect(extra.headers.get('x-minicode-replay')).toBe('exhausted');
    expect(server.requests.map((r) => r.served)).toEqual([0, -1]);
  });

  it('matches exchanges by method and path in match order', async () => {
    const a = { ...streamOk('A'), request: { method: 'POST', path: '/a' } };
    const b = { ...streamOk('B'), request: { method: 'POST', path: '/b' } };
    const server = await start([a, b], { order: 'match' });
    expect(await (await fetch(server.origin + '/b', { method: 'POST' })).text()).toBe('B');
    expect(await (await fetch(server.origin + '/a', { method: 'POST' })).text()).toBe('A');
  });

  it('serves 429 with Retry-After', async () => {
    const server = await start([rateLimited(2)]);
    const response = await fetch(server.origin + '/v1/chat/completions', { method: 'POST' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('serves 529 overloaded in the Anthropic error shape', async () => {
    const server = await start([overloaded()]);
    const response = await fetch(server.origin + '/v1/messages', { method: 'POST' });
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('serves a 500 then a success, in order', async () => {
    const server = await start([serverError(), streamOk(SSE)]);
    expect((await fetch(server.origin, { method: 'POST' })).status).toBe(500);
    const ok = await fetch(server.origin, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(SSE);
  });

  it('cuts a stream mid-event: the client gets the first bytes, then a network error', async () => {
    const cut = SSE.indexOf('{"n":2}') + 3;
    const server = await start([cutMidEvent(SSE, cut)]);
    const response = await fetch(server.origin, { method: 'POST' });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const received: Buffer[] = [];
    const error = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return undefined;
          received.push(Buffer.from(value));
        }
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(Error);
    expect(Buffer.concat(received).toString()).toBe(SSE.slice(0, cut));
  });

  it('streams slowly enough for a client deadline to fire mid-stream', async () => {
    const server = await start([slowStream(SSE, 150, 8)]);
    const controller = new AbortController();
    const response = await fetch(server.origin, { method: 'POST', signal: controller.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value!.byteLength).toBeGreaterThan(0);
    controller.abort(new Error('deadline'));
    await expect(reader.read()).rejects.toThrow();
  });

  it('splits SSE bodies into one chunk per event', () => {
    expect(perEventChunks(SSE).map((c) => c.bytes)).toEqual([15, 15, 15, 14]);
  });

  it('rejects a missing cassette with a coded error', async () => {
    let caught: unknown;
    try {
      await startReplayServer(path.join(os.tmpdir(), 'no-such-cassette'));
    } catch (e) {
      caught = e;
    }
    expect(hasCode(caught, 'MINICODE_E_INPUT_UNREADABLE')).toBe(true);
  });
});

/** A POST for the recording client. */
function post(url: string, body: string, headers: Record<string, string> = {}): HttpRequest {
  return { url, method: 'POST', headers, body, signal: new AbortController().signal };
}

async function textOf(reply: HttpReply): Promise<string> {
  return Buffer.from(await reply.bytes()).toString('utf8');
}

describe('recording', () => {
  it('records a real exchange with secrets redacted, and the recording replays byte for byte', async () => {
    const upstream = await start([
      {
        ...streamOk(SSE),
        headers: { 'content-type': 'text/event-stream', 'set-cookie': 'session=abc', 'x-request-id': 'req_1' },
        chunks: perEventChunks(SSE),
      },
    ]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-record-'));
    let now = 1000;
    const record = createRecordingClient({ dir, format: 'gemini', model: 'gemini-2.5-flash', clock: () => (now += 5) });
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const reply = await record(
      post(`${upstream.origin}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaFAKE`, body, {
        'x-goog-api-key': 'AIzaFAKE',
        authorization: 'Bearer sk-FAKE',
      }),
    );
    expect(await textOf(reply)).toBe(SSE);

    const files = fs.readdirSync(dir).sort();
    expect(files).toEqual(['001.json', '001.response.sse', 'cassette.json']);
    const raw = fs.readFileSync(path.join(dir, '001.json'), 'utf8');
    expect(raw).not.toContain('AIzaFAKE');
    expect(raw).not.toContain('session=abc');
    const cassette = loadCassette(dir);
    expect(cassette.manifest).toMatchObject({ format: 'gemini', origin: 'recorded' });
    const exchange = cassette.exchanges[0]!;
    expect(exchange.headers['set-cookie']).toBe(REDACTED);
    expect(exchange.headers['x-request-id']).toBe('req_1');
    expect(exchange.request).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=${encodeURIComponent(REDACTED)}`,
      body: JSON.parse(body),
    });
    expect(exchange.request!.bodyDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(exchange.chunks!.reduce((n, c) => n + c.bytes, 0)).toBe(Buffer.byteLength(SSE));

    const replay = await start(dir);
    expect(await (await fetch(replay.origin + '/anything', { method: 'POST' })).text()).toBe(SSE);
  });

  it('masks secrets in the request body and in whole response events, keeping every event valid JSON', async () => {
    const key = 'AKIAQYLPMN5HHHFPZAM2';
    const pass = 'db-pass-unit-value-9090';
    const events = [
      { choices: [{ index: 0, delta: { content: `key ${key} "quoted \\" pass=${pass}` } }] },
      { choices: [{ index: 0, delta: { content: 'no secret here' } }] },
    ];
    const sse = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
    const upstream = await start([{ ...streamOk(sse), chunks: perEventChunks(sse) }]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-record-'));
    const record = createRecordingClient({ dir, format: 'openai-chat', env: { DB_PASS: pass } });
    const body = JSON.stringify({
      messages: [{ role: 'tool', content: `aws_access_key_id = ${key}\nrestored with ${pass}` }],
    });
    const reply = await record(post(`${upstream.origin}/v1/chat/completions`, body));
    // The caller still gets the bytes as they came: only the recording is masked.
    expect(await textOf(reply)).toBe(sse);

    const bytes = Buffer.concat(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f))));
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes(pass)).toBe(false);
    const exchange = loadCassette(dir).exchanges[0]!;
    expect(exchange.request!.body).toEqual({
      messages: [
        {
          role: 'tool',
          content: 'aws_access_key_id = [REDACTED:aws-access-key-id]\nrestored with [REDACTED:env:DB_PASS]',
        },
      ],
    });
    const replayedEvents = exchange.body
      .toString('utf8')
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as (typeof events)[number]);
    expect(replayedEvents.map((e) => e.choices[0]!.delta.content)).toEqual([
      'key [REDACTED:aws-access-key-id] "quoted \\" pass=[REDACTED:password]',
      'no secret here',
    ]);
    // The chunk plan covers the masked body exactly, so a replay sends all of it.
    expect(exchange.chunks!.reduce((n, c) => n + c.bytes, 0)).toBe(exchange.body.length);
    const replay = await start(dir);
    expect(await (await fetch(replay.origin + '/v1/chat/completions', { method: 'POST' })).text()).toBe(
      exchange.body.toString('utf8'),
    );
  });

  it('marks an exchange whose stream was cut as truncated', async () => {
    const upstream = await start([cutMidEvent(SSE, 20)]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-record-'));
    const reply = await createRecordingClient({ dir, format: 'openai-chat' })(post(upstream.origin, '{}'));
    await expect(textOf(reply)).rejects.toThrow();
    const recorded = JSON.parse(fs.readFileSync(path.join(dir, '001.json'), 'utf8'));
    expect(recorded.response.truncated).toBe(true);
    expect(fs.readFileSync(path.join(dir, '001.response.sse'), 'utf8')).toBe(SSE.slice(0, 20));
  });
});

describe('openReplayProvider', () => {
  it('starts a server for a cassette and gives the format, model and base URL to build against', async () => {
    const { openReplayProvider } = await import('../../lib/replay/provider.js');
    const provider = await openReplayProvider(path.join(CASSETTES, 'openai-responses-two-turn'));
    try {
      expect(provider).toMatchObject({ format: 'openai-responses', model: 'gpt-4.1-mini' });
      expect(provider.baseUrl).toBe(`${provider.server.origin}/v1`);
      const request = buildRequest(provider.format, conversation, {
        model: provider.model,
        baseUrl: provider.baseUrl,
        apiKey: provider.apiKey,
      });
      const turn = readTurn(provider.format, await (await fetch(request.url, request)).text());
      expect(turn.calls[0]).toMatchObject({ name: 'read_file' });
    } finally {
      await provider.close();
    }
  });
});

describe('the replay server in by-turn order', () => {
  it('serves each conversation the exchange for its turn, however many conversations interleave', async () => {
    const dir = path.join(CASSETTES, 'openai-chat-two-turn');
    const cassette = loadCassette(dir);
    const server = await start(dir, { order: 'by-turn' });
    const base = baseUrlForOrigin('openai-chat', server.origin);
    const first: Conversation = { messages: [{ role: 'user', text: 'hi' }], tools: [] };
    const second: Conversation = {
      messages: [
        { role: 'user', text: 'hi' },
        { role: 'assistant', toolCalls: [{ id: 'c1', name: 'read_file', argumentsText: '{"path":"README.md"}' }] },
        { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'readme' },
      ],
      tools: [],
    };
    const bodies = await Promise.all(
      [first, second, first, second, first].map(async (c) => {
        const request = buildRequest('openai-chat', c, { model: 'm', baseUrl: base, apiKey: 'k' });
        return (await fetch(request.url, request)).text();
      }),
    );
    const expected = [0, 1, 0, 1, 0].map((i) => cassette.exchanges[i]!.body.toString('utf8'));
    expect(bodies).toEqual(expected);
    expect(server.requests.map((r) => r.served).sort()).toEqual([0, 0, 0, 1, 1]);
  });

  it('counts model turns the same way in every wire format', async () => {
    const { modelTurnsOf } = await import('../../lib/replay/turns.js');
    const twoTurns: Conversation = {
      messages: [
        { role: 'user', text: 'hi' },
        { role: 'assistant', text: 'reading', toolCalls: [{ id: 'c1', name: 'read_file', argumentsText: '{}' }] },
        { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'x' },
        { role: 'assistant', text: 'again', toolCalls: [{ id: 'c2', name: 'read_file', argumentsText: '{}' }] },
        { role: 'tool', toolCallId: 'c2', name: 'read_file', content: 'y' },
      ],
      tools: [],
    };
    for (const format of PROVIDER_FORMATS) {
      const request = buildRequest(format, twoTurns, {
        model: 'm',
        baseUrl: baseUrlForOrigin(format, 'http://127.0.0.1:1'),
        apiKey: 'k',
      });
      expect([format, modelTurnsOf(String(request.body))]).toEqual([format, 2]);
      const fresh = buildRequest(format, conversation, {
        model: 'm',
        baseUrl: baseUrlForOrigin(format, 'http://127.0.0.1:1'),
        apiKey: 'k',
      });
      expect([format, modelTurnsOf(String(fresh.body))]).toEqual([format, 0]);
    }
    expect(modelTurnsOf('not json')).toBeUndefined();
  });

  it('lets an intercept answer a share of requests with 429 and Retry-After, once per body', async () => {
    const storm = rateLimitStorm({ rate: 1, retryAfterMs: 50 });
    const server = await start([streamOk(SSE)], { order: 'by-turn', intercept: storm.intercept });
    const send = () =>
      fetch(server.origin + '/v1/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
      });
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after-ms')).toBe('50');
    await refused.text();
    const retried = await send();
    expect(retried.status).toBe(200);
    await retried.text();
    expect(storm.count()).toBe(1);
  });
});
