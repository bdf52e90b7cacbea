import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { ROOT, runCli } from '../helpers/cli.js';
import { chunkTexts, promptText, spawnAcp, updatesFor, type AcpChild } from './acp-child.js';

/** Both agents behind the same server: the real port (replaying a hand-made cassette) and the scripted one. */
const PORTS = [
  {
    name: 'the real agent',
    spawn: (store: string) =>
      spawnAcp(
        ['--provider', 'replay', '--cassette', path.join(ROOT, 'test/cassettes/acp-malformed'), '--store', store],
        { scripted: false },
      ),
    answer: 'Still serving after the bad input.',
  },
  { name: 'the scripted agent', spawn: () => spawnAcp(), answer: 'Hello from minicode.' },
];

type ErrorLine = { id: unknown; error: { code: number; message: string; data?: Record<string, unknown> } };

/**
 * Bad input written straight to the child's stdin, beside an SDK client on the same pipe:
 * each bad line gets its JSON-RPC error and the server keeps serving. (The SDK client notes on
 * stderr the answers to the raw requests it did not send; that is expected.)
 */
describe.each(PORTS)('minicode acp with $name on malformed input', (port) => {
  let acp: AcpChild;
  let conn: ClientConnection;
  let store: string;

  beforeAll(async () => {
    store = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-malformed-'));
    acp = port.spawn(store);
    conn = client({ name: 'malformed-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  });

  afterAll(async () => {
    conn?.close();
    await acp?.close();
    fs.rmSync(store, { recursive: true, force: true });
  });

  const errorFor = (id: unknown) =>
    acp
      .waitFor(
        (l) =>
          l.from === 'agent' &&
          (l.message as { id?: unknown } | undefined)?.id === id &&
          'error' in (l.message as object),
        `the error for ${String(id)}`,
      )
      .then((l) => l.message as ErrorLine);

  it('answers garbage lines with -32700 parse errors (id null)', async () => {
    const before = acp.wire.length;
    acp.writeRaw('this is not json\n{"jsonrpc":"2.0","id":\n\u0000\u0001binary\n');
    // Lines are answered in order: once a later request is answered, every parse error is in.
    acp.writeRaw('{"jsonrpc":"2.0","id":"after-garbage","method":"session/teleport","params":{}}\n');
    await errorFor('after-garbage');
    const parseErrors = acp.wire
      .slice(before)
      .filter((l) => (l.message as ErrorLine | undefined)?.error?.code === -32700);
    expect(parseErrors.length).toBe(3);
    expect(parseErrors.every((l) => (l.message as ErrorLine).id === null)).toBe(true);
  });

  it('answers a JSON value that is not a request object with -32600', async () => {
    const before = acp.wire.length;
    acp.writeRaw('[1,2,3]\n42\n');
    await acp.waitFor(
      (l) => acp.wire.indexOf(l) >= before && (l.message as ErrorLine | undefined)?.error?.code === -32600,
      'an invalid request error',
    );
  });

  it('answers an unknown method with -32601', async () => {
    acp.writeRaw('{"jsonrpc":"2.0","id":"raw-1","method":"session/teleport","params":{}}\n');
    expect((await errorFor('raw-1')).error.code).toBe(-32601);
  });

  it('answers invalid params with -32602', async () => {
    acp.writeRaw('{"jsonrpc":"2.0","id":"raw-2","method":"session/new","params":{"cwd":42}}\n');
    expect((await errorFor('raw-2')).error.code).toBe(-32602);
    acp.writeRaw(
      '{"jsonrpc":"2.0","id":"raw-3","method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}\n',
    );
    const relative = await errorFor('raw-3');
    expect(relative.error.code).toBe(-32602);
    expect(relative.error.data).toMatchObject({ code: 'MINICODE_E_USAGE' });
  });

  it('answers a prompt for an unknown session with -32002 naming the session', async () => {
    acp.writeRaw(
      '{"jsonrpc":"2.0","id":"raw-4","method":"session/prompt","params":{"sessionId":"ses_nope","prompt":[{"type":"text","text":"hi"}]}}\n',
    );
    const unknown = await errorFor('raw-4');
    expect(unknown.error.code).toBe(-32002);
    expect(unknown.error.data).toMatchObject({ sessionId: 'ses_nope', code: 'MINICODE_E_SESSION_NOT_FOUND' });
    expect(unknown.error.message).toContain('ses_nope');
    // A cancel for an unknown session is a notification: no answer, a note on stderr.
    acp.writeRaw('{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"ses_nope"}}\n');
    acp.writeRaw(
      '{"jsonrpc":"2.0","id":"raw-5","method":"session/set_mode","params":{"sessionId":"ses_nope","modeId":"auto"}}\n',
    );
    expect((await errorFor('raw-5')).error.code).toBe(-32002);
    expect(acp.stderr()).toContain('session/cancel for unknown session "ses_nope" ignored');
  });

  it('still serves a normal prompt afterwards', async () => {
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const start = acp.wire.length;
    const result = await promptText(conn, sessionId, 'hello');
    expect(result.stopReason).toBe('end_turn');
    expect(chunkTexts(updatesFor(acp.wire, sessionId, start), 'agent_message_chunk').join('')).toBe(port.answer);
  });

  it('wrote only JSON-RPC lines on stdout, every one valid against the v1 schema', () => {
    expect(acp.violations).toEqual([]);
  });
});

describe('minicode acp setup', () => {
  it('starts without provider credentials and answers a prompt with -32000 (auth required)', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-nokey-'));
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: home, mcpServers: [] } },
    ];
    // The prompt needs the session id, so it is written once session/new has answered.
    const acp = spawnAcp(['--provider', 'anthropic', '--store', path.join(home, 'store')], {
      scripted: false,
      env: { ANTHROPIC_API_KEY: '', MINICODE_PROVIDER: '', XDG_CONFIG_HOME: home, MINICODE_HOME: home },
    });
    try {
      acp.writeRaw(input.map((m) => JSON.stringify(m)).join('\n') + '\n');
      const created = await acp.waitFor(
        (l) => l.from === 'agent' && (l.message as { id?: unknown } | undefined)?.id === 2,
        'the session/new answer',
      );
      const sessionId = (created.message as { result: { sessionId: string } }).result.sessionId;
      acp.writeRaw(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'session/prompt',
          params: { sessionId, prompt: [{ type: 'text', text: 'hi' }] },
        }) + '\n',
      );
      const answer = await acp.waitFor(
        (l) => l.from === 'agent' && (l.message as { id?: unknown } | undefined)?.id === 3,
        'the prompt answer',
      );
      expect((answer.message as ErrorLine).error.code).toBe(-32000);
      expect(acp.wire.filter((l) => l.from === 'agent').every((l) => l.message !== undefined)).toBe(true);
    } finally {
      await acp.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('takes the provider flags of exec and answers every piped request before exiting at end of input', async () => {
    const input = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n');
    const flags = [
      '--provider',
      'openai',
      '--model',
      'gpt-test',
      '--base-url',
      'http://127.0.0.1:9',
      '--cassette',
      '/nonexistent',
      '--store',
      '/nonexistent',
      '--allow-local-config',
    ];
    const result = await runCli(['acp', ...flags], { input: input + '\n', env: { MINICODE_ACP_SCRIPTED: '1' } });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as { id?: number; result?: { configOptions?: Array<{ id: string; currentValue: unknown }> } },
      );
    expect(lines.filter((l) => l.id !== undefined).map((l) => l.id)).toEqual([1, 2]);
    expect(lines.find((l) => l.id === 2)?.result?.configOptions?.find((o) => o.id === 'model')?.currentValue).toBe(
      'gpt-test',
    );
  });
});
