import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AgentPort,
  PermissionDecision,
  PermissionRequest,
  PromptInput,
  TextFileAccess,
} from '../../lib/acp/agent-port.js';
import { createAgentPort } from '../../lib/agent/acp-port.js';
import type { OutputEvent } from '../../lib/events/index.js';
import { startReplayServer, type ReplayServer } from '../../lib/replay/server.js';
import { openStore } from '../../lib/store/index.js';
import { ROOT } from '../helpers/cli.js';

const CASSETTES = path.join(ROOT, 'test/cassettes');

/**
 * The real port driven in-process against a loopback replay server (hand-made Anthropic
 * streams), so the test can read what the model was sent: the conversation carried from turn
 * to turn, and rebuilt from the store by a fresh port.
 */
describe('the real ACP agent port', () => {
  let dir: string;
  let store: string;
  let env: NodeJS.ProcessEnv;
  const servers: ReplayServer[] = [];
  const ports: AgentPort[] = [];

  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-port-')));
    store = path.join(dir, 'store');
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      MINICODE_HOME: dir,
      ANTHROPIC_API_KEY: 'test-key-not-sent-anywhere',
    };
  });

  afterAll(async () => {
    for (const p of ports) await p.close?.();
    for (const s of servers) await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function portOn(cassette: string): Promise<{ port: AgentPort; server: ReplayServer }> {
    const server = await startReplayServer(path.join(CASSETTES, cassette));
    servers.push(server);
    const port = createAgentPort({ provider: 'anthropic', baseUrl: server.origin, store, env });
    ports.push(port);
    return { port, server };
  }

  const localFs: TextFileAccess = {
    via: 'local',
    readTextFile: (file) => fs.promises.readFile(file, 'utf8'),
    writeTextFile: (file, content) => fs.promises.writeFile(file, content),
  };

  function input(sessionId: string, text: string, answers: PermissionDecision[], extra: Partial<PromptInput> = {}) {
    const events: OutputEvent[] = [];
    const asked: PermissionRequest[] = [];
    const value: PromptInput = {
      sessionId,
      text,
      parts: [{ type: 'text', text }],
      cwd: dir,
      mode: 'ask',
      signal: new AbortController().signal,
      onEvent: (e) => events.push(e),
      requestPermission: async (request) => {
        asked.push(request);
        return answers.shift() ?? 'deny';
      },
      fs: localFs,
      ...extra,
    };
    return { value, events, asked };
  }

  it('runs each prompt as one turn of one stored session, carrying the conversation', async () => {
    const { port, server } = await portOn('acp-conformance');
    await port.openSession?.({ sessionId: 'ses_port_1', cwd: dir, mode: 'ask', loaded: false });
    const one = input('ses_port_1', 'run the greeting command', ['allow']);
    expect(await port.prompt(one.value)).toEqual({ stopReason: 'end_turn' });
    expect(one.asked).toEqual([
      {
        toolCallId: 'toolu_acp_1',
        toolName: 'bash',
        title: 'echo hello-from-acp',
        kind: 'execute',
        input: { command: 'echo hello-from-acp' },
      },
    ]);
    expect(one.events.find((e) => e.type === 'tool.completed')).toMatchObject({
      payload: { output: 'hello-from-acp\n' },
    });
    // The turn does not end the session: the client may prompt it again.
    expect(one.events.some((e) => e.type === 'session.ended')).toBe(false);

    const two = input('ses_port_1', 'clean the build', ['deny']);
    expect(await port.prompt(two.value)).toEqual({ stopReason: 'end_turn' });
    expect(two.events.find((e) => e.type === 'tool.denied')).toBeDefined();
    // One session: the second turn continues the sequence numbers of the first.
    expect(two.events[0]!.seq).toBe(one.events.at(-1)!.seq + 1);
    // The third request (turn two's first) carried turn one: prompt, tool call, tool result, answer.
    const sent = server.requests[2]!.body;
    for (const part of [
      'run the greeting command',
      'toolu_acp_1',
      'hello-from-acp',
      'The command printed hello-from-acp.',
      'clean the build',
    ])
      expect(sent).toContain(part);
  });

  it('loads the stored session in a fresh port and sends its rebuilt conversation with the next prompt', async () => {
    const { port, server } = await portOn('acp-load');
    const events = await port.loadSession!('ses_port_1');
    expect(
      events?.filter((e) => e.type === 'user.message.received').map((e) => (e.payload as { text: string }).text),
    ).toEqual(['run the greeting command', 'clean the build']);
    expect(await port.loadSession!('ses_missing')).toBeNull();
    await port.openSession?.({ sessionId: 'ses_port_1', cwd: dir, mode: 'ask', loaded: true });
    const three = input('ses_port_1', 'do you remember?', []);
    expect(await port.prompt(three.value)).toEqual({ stopReason: 'end_turn' });
    const sent = JSON.parse(server.requests[0]!.body) as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    const text = JSON.stringify(sent.messages);
    for (const part of [
      'toolu_acp_1',
      'hello-from-acp',
      'toolu_acp_2',
      'Denied:',
      'Understood, I did not run it.',
      'do you remember?',
    ])
      expect(text).toContain(part);
    expect(three.events[0]!.turnId).toBe(3);
    await port.close?.();
    ports.splice(ports.indexOf(port), 1);
    // Every turn is in the store as one session, which the closing port ended once, last.
    const reader = openStore({ dir: store, readOnly: true });
    try {
      const stored = reader.readSession('ses_port_1');
      expect(stored.filter((e) => e.type === 'session.started')).toHaveLength(1);
      expect(stored.filter((e) => e.type === 'task.completed').map((e) => e.turnId)).toEqual([1, 2, 3]);
      expect(stored.filter((e) => e.type === 'session.ended')).toHaveLength(1);
      expect(stored.at(-1)?.type).toBe('session.ended');
      expect(reader.getSession('ses_port_1')).toMatchObject({ origin: 'acp', outcome: 'completed' });
    } finally {
      await reader.close();
    }
  });

  it('denies commands without asking in read-only mode', async () => {
    const { port } = await portOn('acp-conformance');
    const turn = input('ses_port_ro', 'run the greeting command', ['allow'], { mode: 'read-only' });
    expect(await port.prompt(turn.value)).toEqual({ stopReason: 'end_turn' });
    expect(turn.asked).toEqual([]);
    expect(turn.events.find((e) => e.type === 'tool.denied')).toMatchObject({ payload: { toolCallId: 'toolu_acp_1' } });
  });
});
