import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  RequestError,
  type ClientConnection,
  type RequestPermissionRequest,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import { ROOT } from '../helpers/cli.js';
import {
  chunkTexts,
  finalToolStatuses,
  initializeFullClient,
  promptText,
  requestIndex,
  responseIndex,
  spawnAcp,
  updatesFor,
  type AcpChild,
} from './acp-child.js';

const CASSETTES = path.join(ROOT, 'test/cassettes');

/** A client the way an IDE is one: editor buffers over the disk, real terminals, a person answering permissions. */
function ideClient(project: string) {
  const permissionAnswers: string[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const reads: string[] = [];
  const writes: WriteTextFileRequest[] = [];
  const buffers = new Map<string, string>();
  const terminals = new Map<
    string,
    { child: ChildProcess; output: string; exit: Promise<{ exitCode: number | null; signal: string | null }> }
  >();
  const app = client({ name: 'real-port-test' })
    .onRequest('session/request_permission', ({ params }) => {
      permissionRequests.push(params);
      return { outcome: { outcome: 'selected', optionId: permissionAnswers.shift() ?? 'deny' } };
    })
    .onRequest('fs/read_text_file', ({ params }) => {
      reads.push(params.path);
      const content =
        buffers.get(params.path) ?? (fs.existsSync(params.path) ? fs.readFileSync(params.path, 'utf8') : undefined);
      if (content === undefined) throw RequestError.resourceNotFound(params.path);
      return { content };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      // An editor keeps the write in its buffer; the disk changes when the user saves.
      writes.push(params);
      buffers.set(params.path, params.content);
      return {};
    })
    .onRequest('terminal/create', ({ params }) => {
      const terminalId = `term_${terminals.size + 1}`;
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? project,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const entry = {
        child,
        output: '',
        exit: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) =>
          child.on('close', (exitCode, signal) => resolve({ exitCode, signal })),
        ),
      };
      child.stdout?.on('data', (b: Buffer) => (entry.output += b.toString('utf8')));
      child.stderr?.on('data', (b: Buffer) => (entry.output += b.toString('utf8')));
      terminals.set(terminalId, entry);
      return { terminalId };
    })
    .onRequest('terminal/wait_for_exit', async ({ params }) => terminals.get(params.terminalId)!.exit)
    .onRequest('terminal/output', async ({ params }) => {
      const t = terminals.get(params.terminalId)!;
      return {
        output: t.output,
        truncated: false,
        ...(t.child.exitCode === null ? {} : { exitStatus: { exitCode: t.child.exitCode, signal: null } }),
      };
    })
    .onRequest('terminal/kill', ({ params }) => {
      terminals.get(params.terminalId)?.child.kill();
      return {};
    })
    .onRequest('terminal/release', () => ({}))
    .onNotification('session/update', () => {});
  return { app, permissionAnswers, permissionRequests, reads, writes, buffers, terminals };
}

/**
 * ACP conformance with the REAL agent: `minicode acp --provider replay --cassette DIR` (the
 * compiled CLI as a subprocess; the model is a loopback replay server serving hand-made
 * Anthropic streams) driven by the official SDK's client side. Every line both ways is checked
 * against the v1 JSON Schema. A second process loads the first session from the LMDB store.
 */
describe('minicode acp with the real agent under the official ACP client', () => {
  let project: string;
  let store: string;
  let acp: AcpChild;
  let conn: ClientConnection;
  let ide: ReturnType<typeof ideClient>;
  let first = '';
  const greeting = () => path.join(project, 'greeting.txt');

  beforeAll(async () => {
    project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-project-')));
    store = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-store-'));
    fs.writeFileSync(path.join(project, 'greeting.txt'), 'hello old world\n');
    // Sandbox off: the client's terminal runs commands only then (test/sandbox/acp.test.ts covers the sandboxed session).
    acp = spawnAcp(
      [
        '--provider',
        'replay',
        '--cassette',
        path.join(CASSETTES, 'acp-conformance'),
        '--store',
        store,
        '--sandbox',
        'off',
      ],
      { scripted: false },
    );
    ide = ideClient(project);
    conn = ide.app.connect(acp.stream);
  });

  afterAll(async () => {
    conn?.close();
    await acp?.close();
    for (const t of ide?.terminals.values() ?? []) t.child.kill();
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(store, { recursive: true, force: true });
  });

  const prompt = (sessionId: string, text: string) => promptText(conn, sessionId, text);

  it('initializes and opens a session in ask mode', async () => {
    const init = await initializeFullClient(conn, 'real-port-test');
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const created = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    first = created.sessionId;
    expect(created.modes?.currentModeId).toBe('ask');
  });

  it('asks permission for a command in ask mode and, once allowed, runs it in a client terminal', async () => {
    ide.permissionAnswers.push('allow');
    const start = acp.wire.length;
    expect((await prompt(first, 'run the greeting command')).stopReason).toBe('end_turn');
    const updates = updatesFor(acp.wire, first, start);
    const call = updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({
      toolCallId: 'toolu_acp_1',
      kind: 'execute',
      status: 'pending',
      title: 'echo hello-from-acp',
      rawInput: { command: 'echo hello-from-acp' },
    });
    expect(ide.permissionRequests.at(-1)).toMatchObject({
      sessionId: first,
      toolCall: { toolCallId: 'toolu_acp_1', kind: 'execute', rawInput: { command: 'echo hello-from-acp' } },
    });
    const final = updates.filter((u) => u.toolCallId === 'toolu_acp_1').at(-1);
    expect(final?.status).toBe('completed');
    expect(final?.content).toEqual([
      { type: 'terminal', terminalId: 'term_1' },
      { type: 'content', content: { type: 'text', text: 'hello-from-acp\n' } },
    ]);
    expect(chunkTexts(updates, 'agent_message_chunk').join('')).toBe('Running it.The command printed hello-from-acp.');
    expect(ide.terminals.size).toBe(1);
  });

  it('fails the tool call when the permission is rejected, and the turn still ends normally', async () => {
    ide.permissionAnswers.push('deny');
    const start = acp.wire.length;
    expect((await prompt(first, 'clean the build')).stopReason).toBe('end_turn');
    const updates = updatesFor(acp.wire, first, start);
    expect(ide.permissionRequests.at(-1)?.toolCall.toolCallId).toBe('toolu_acp_2');
    const final = updates.filter((u) => u.toolCallId === 'toolu_acp_2').at(-1);
    expect(final).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(final?.content)).toContain('Denied:');
    expect(ide.terminals.size).toBe(1);
    expect(chunkTexts(updates, 'agent_message_chunk').join('')).toContain('Understood, I did not run it.');
  });

  it('in auto mode edits without asking, through fs/read_text_file and fs/write_text_file, with diff content', async () => {
    await conn.agent.request('session/set_mode', { sessionId: first, modeId: 'auto' });
    const asked = ide.permissionRequests.length;
    const start = acp.wire.length;
    expect((await prompt(first, 'fix the greeting')).stopReason).toBe('end_turn');
    expect(ide.permissionRequests.length).toBe(asked);
    expect(ide.reads).toContain(greeting());
    expect(ide.writes).toEqual([{ sessionId: first, path: greeting(), content: 'hello new world\n' }]);
    // The edit landed in the editor's buffer, not on disk behind its back.
    expect(fs.readFileSync(greeting(), 'utf8')).toBe('hello old world\n');
    const updates = updatesFor(acp.wire, first, start);
    expect(updates.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({
      toolCallId: 'toolu_acp_3',
      kind: 'edit',
      content: [{ type: 'diff', path: greeting(), oldText: 'hello old world', newText: 'hello new world' }],
    });
    expect(updates.filter((u) => u.toolCallId === 'toolu_acp_3').at(-1)).toMatchObject({ status: 'completed' });
  });

  it('runs a second session while the first streams slowly, then cancels the first mid-turn', async () => {
    const slowStart = acp.wire.length;
    const slow = prompt(first, 'take your time');
    await acp.waitFor(
      (l) =>
        acp.wire.indexOf(l) >= slowStart &&
        chunkTexts(updatesFor([l], first), 'agent_message_chunk').includes('Thinking about it '),
      'the slow stream',
    );
    const second = (await conn.agent.request('session/new', { cwd: project, mcpServers: [] })).sessionId;
    expect(second).not.toBe(first);
    const start = acp.wire.length;
    expect((await prompt(second, 'hello')).stopReason).toBe('end_turn');
    expect(chunkTexts(updatesFor(acp.wire, second, start), 'agent_message_chunk').join('')).toBe(
      'Hello from the second session.',
    );
    // Nothing of the second session's turn was routed to the first.
    expect(chunkTexts(updatesFor(acp.wire, first, start), 'agent_message_chunk')).not.toContain(
      'Hello from the second session.',
    );
    await conn.agent.notify('session/cancel', { sessionId: first });
    expect((await slow).stopReason).toBe('cancelled');
    // The stream was cut: the rest of the slow answer never arrived.
    expect(chunkTexts(updatesFor(acp.wire, first, slowStart), 'agent_message_chunk').join('')).not.toContain('length.');
  });

  it('takes another prompt on the cancelled session', async () => {
    const start = acp.wire.length;
    expect((await prompt(first, 'are you still there?')).stopReason).toBe('end_turn');
    expect(chunkTexts(updatesFor(acp.wire, first, start), 'agent_message_chunk').join('')).toBe(
      'Still here after the cancel.',
    );
  });

  it('put only valid v1 messages on the wire, both ways', async () => {
    expect(acp.violations).toEqual([]);
    conn.close();
    expect(await acp.close()).toBe(0);
  });

  it('loads the session in a fresh process from the store, replaying it before the response, and continues it', async () => {
    const fresh = spawnAcp(['--provider', 'replay', '--cassette', path.join(CASSETTES, 'acp-load'), '--store', store], {
      scripted: false,
    });
    const freshConn = ideClient(project).app.connect(fresh.stream);
    try {
      await freshConn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      const loaded = await freshConn.agent.request('session/load', { sessionId: first, cwd: project, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('ask');
      const loadId = (fresh.wire[requestIndex(fresh.wire, 'session/load')]!.message as { id: unknown }).id;
      const end = responseIndex(fresh.wire, loadId);
      const replay = updatesFor(fresh.wire, first, 0, end);
      expect(chunkTexts(replay, 'user_message_chunk')).toEqual([
        'run the greeting command',
        'clean the build',
        'fix the greeting',
        'take your time',
        'are you still there?',
      ]);
      const agent = chunkTexts(replay, 'agent_message_chunk').join('|');
      expect(agent).toContain('The command printed hello-from-acp.');
      expect(agent).toContain('Still here after the cancel.');
      expect(Object.fromEntries(finalToolStatuses(replay))).toEqual({
        toolu_acp_1: 'completed',
        toolu_acp_2: 'failed',
        toolu_acp_3: 'completed',
      });
      expect(replay.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit')?.content).toEqual([
        { type: 'diff', path: greeting(), oldText: 'hello old world', newText: 'hello new world' },
      ]);
      // Nothing of the session before its load response but the replay; the commands after it
      // (sent right after the response: wait for them rather than race the child).
      await fresh.waitFor(
        (l) =>
          fresh.wire.indexOf(l) > end &&
          updatesFor([l], first).some((u) => u.sessionUpdate === 'available_commands_update'),
        'commands after load',
      );
      expect(updatesFor(fresh.wire, first, end).map((u) => u.sessionUpdate)).toEqual(['available_commands_update']);

      const start = fresh.wire.length;
      const result = await promptText(freshConn, first, 'do you remember?');
      expect(result.stopReason).toBe('end_turn');
      expect(chunkTexts(updatesFor(fresh.wire, first, start), 'agent_message_chunk').join('')).toBe(
        'Welcome back; I remember the greeting fix.',
      );
      expect(fresh.violations).toEqual([]);
    } finally {
      freshConn.close();
      await fresh.close();
    }
  });
});
