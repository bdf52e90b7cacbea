import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  RequestError,
  type ClientConnection,
  type RequestPermissionRequest,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
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

/**
 * ACP conformance: the official SDK's client side drives `minicode acp` (the compiled CLI, a
 * real subprocess over stdio, with the scripted test agent) through a whole session. Every
 * line on the wire, both ways, is checked against the official v1 JSON Schema.
 */
describe('minicode acp (scripted agent) under the official ACP client', () => {
  let acp: AcpChild;
  let conn: ClientConnection;
  const permissionAnswers: string[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  /** When set, permission requests wait for the turn's cancellation instead of answering. */
  let holdPermissions = false;
  const writes: WriteTextFileRequest[] = [];
  const files = new Map<string, string>([['/work/project/greeting.txt', 'hello old world\n']]);
  const terminals = new Map<string, { command: string }>();

  beforeAll(async () => {
    acp = spawnAcp();
    const app = client({ name: 'conformance-test' })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        permissionRequests.push(params);
        if (holdPermissions) {
          // The spec: after session/cancel the client answers pending permissions `cancelled`.
          await new Promise<void>((resolve) => {
            const check = setInterval(() => {
              if (!holdPermissions || signal.aborted) {
                clearInterval(check);
                resolve();
              }
            }, 5);
          });
          return { outcome: { outcome: 'cancelled' } };
        }
        const optionId = permissionAnswers.shift() ?? 'deny';
        return { outcome: { outcome: 'selected', optionId } };
      })
      .onRequest('fs/read_text_file', ({ params }) => {
        const content = files.get(params.path);
        if (content === undefined) throw RequestError.resourceNotFound(params.path);
        return { content };
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        writes.push(params);
        files.set(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', ({ params }) => {
        const terminalId = `term_${terminals.size + 1}`;
        terminals.set(terminalId, { command: [params.command, ...(params.args ?? [])].join(' ') });
        return { terminalId };
      })
      .onRequest('terminal/wait_for_exit', () => ({ exitCode: 0, signal: null }))
      .onRequest('terminal/output', ({ params }) => ({
        output: `output of ${terminals.get(params.terminalId)?.command}\n`,
        truncated: false,
        exitStatus: { exitCode: 0 },
      }))
      .onRequest('terminal/kill', () => ({}))
      .onRequest('terminal/release', () => ({}))
      // Updates are read from the wire log; the handler only keeps the SDK from complaining.
      .onNotification('session/update', () => {});
    conn = app.connect(acp.stream);
  });

  afterAll(async () => {
    conn?.close();
    await acp?.close();
  });

  let main = '';
  const prompt = (sessionId: string, text: string) => promptText(conn, sessionId, text);

  it('answers initialize with protocol version 1, loadSession, prompt capabilities and auth methods', async () => {
    const init = await initializeFullClient(conn, 'conformance-test');
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ embeddedContext: true });
    expect(init.authMethods?.map((m) => m.id)).toEqual(['environment']);
    await conn.agent.request('authenticate', { methodId: 'environment' });
  });

  it('creates a session with modes and config options, and sends nothing for it before the response', async () => {
    const created = await conn.agent.request('session/new', { cwd: '/work/project', mcpServers: [] });
    main = created.sessionId;
    expect(created.modes?.currentModeId).toBe('ask');
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'auto', 'read-only']);
    expect(created.configOptions?.find((o) => o.id === 'mode')).toMatchObject({
      type: 'select',
      currentValue: 'ask',
      category: 'mode',
    });
    const commands = await acp.waitFor(
      (l) => updatesFor([l], main).some((u) => u.sessionUpdate === 'available_commands_update'),
      'available commands',
    );
    const firstUpdate = acp.wire.findIndex((l) => updatesFor([l], main).length > 0);
    expect(firstUpdate).toBe(acp.wire.indexOf(commands));
    expect(firstUpdate).toBeGreaterThan(responseIndex(acp.wire, requestIdOf(acp, 'session/new')));
  });

  it('streams thoughts and message chunks, all before the prompt response', async () => {
    const start = acp.wire.length;
    const result = await prompt(main, 'hello');
    expect(result.stopReason).toBe('end_turn');
    const end = responseIndex(
      acp.wire,
      requestIdOf(acp, 'session/prompt', (p) => textOf(p) === 'hello'),
    );
    const updates = updatesFor(acp.wire, main, start, end);
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      'agent_thought_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
    ]);
    expect(chunkTexts(updates, 'agent_message_chunk').join('')).toBe('Hello from minicode.');
    expect(updatesFor(acp.wire, main, end)).toEqual([]);
  });

  it('asks permission for a gated tool, runs it in a client terminal when allowed, and fails it when rejected', async () => {
    permissionAnswers.push('allow');
    let start = acp.wire.length;
    expect((await prompt(main, 'run echo hi')).stopReason).toBe('end_turn');
    let updates = updatesFor(acp.wire, main, start);
    const call = updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({
      kind: 'execute',
      status: 'pending',
      title: 'echo hi',
      rawInput: { command: 'echo hi' },
    });
    const toolCallId = call?.toolCallId;
    expect(permissionRequests.at(-1)).toMatchObject({ sessionId: main, toolCall: { toolCallId, kind: 'execute' } });
    expect(permissionRequests.at(-1)?.options.map((o) => o.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    // The tool call was announced before permission was asked.
    expect(
      acp.wire.findIndex((l) =>
        updatesFor([l], main).some((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === toolCallId),
      ),
    ).toBeLessThan(
      acp.wire.findIndex(
        (l) =>
          (l.message as { method?: string }).method === 'session/request_permission' &&
          JSON.stringify(l.message).includes(String(toolCallId)),
      ),
    );
    const statuses = updates.filter((u) => u.toolCallId === toolCallId).map((u) => u.status);
    expect(statuses).toEqual(['pending', 'in_progress', 'in_progress', 'completed']);
    const done = updates.filter((u) => u.toolCallId === toolCallId).at(-1);
    expect(done?.content).toEqual([
      { type: 'terminal', terminalId: 'term_1' },
      { type: 'content', content: { type: 'text', text: 'output of sh -c echo hi\n' } },
    ]);

    permissionAnswers.push('deny');
    start = acp.wire.length;
    expect((await prompt(main, 'run rm -rf build')).stopReason).toBe('end_turn');
    updates = updatesFor(acp.wire, main, start);
    const denied = updates.filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
    expect(denied).toMatchObject({
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'Denied: denied by the user' } }],
    });
    expect(terminals.size).toBe(1);
  });

  it('edits through fs/write_text_file with diff content once the mode is auto', async () => {
    await conn.agent.request('session/set_mode', { sessionId: main, modeId: 'auto' });
    await acp.waitFor(
      (l) => updatesFor([l], main).some((u) => u.sessionUpdate === 'config_option_update'),
      'config option update after set_mode',
    );
    const asked = permissionRequests.length;
    const start = acp.wire.length;
    expect((await prompt(main, 'edit greeting.txt old -> new')).stopReason).toBe('end_turn');
    expect(permissionRequests.length).toBe(asked);
    expect(writes).toEqual([{ sessionId: main, path: '/work/project/greeting.txt', content: 'hello new world\n' }]);
    const updates = updatesFor(acp.wire, main, start);
    const call = updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({
      kind: 'edit',
      locations: [{ path: '/work/project/greeting.txt' }],
      content: [{ type: 'diff', path: '/work/project/greeting.txt', oldText: 'old', newText: 'new' }],
    });
    expect(updates.filter((u) => u.toolCallId === call?.toolCallId).at(-1)).toMatchObject({ status: 'completed' });
  });

  it('switches mode through the config option and announces current_mode_update', async () => {
    const result = await conn.agent.request('session/set_config_option', {
      sessionId: main,
      configId: 'mode',
      value: 'ask',
    });
    expect(result.configOptions.find((o) => o.id === 'mode')).toMatchObject({ currentValue: 'ask' });
    await acp.waitFor(
      (l) => updatesFor([l], main).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'ask'),
      'current mode update',
    );
  });

  it('sends the plan and its step updates', async () => {
    const start = acp.wire.length;
    await prompt(main, 'plan');
    const plans = updatesFor(acp.wire, main, start).filter((u) => u.sessionUpdate === 'plan');
    expect(plans.map((p) => (p.entries as Array<{ status: string }>).map((e) => e.status))).toEqual([
      ['pending', 'pending'],
      ['completed', 'pending'],
      ['completed', 'completed'],
    ]);
  });

  it('answers a cancelled turn with stopReason cancelled, and refuses a second prompt while busy', async () => {
    const slow = prompt(main, 'slow');
    await acp.waitFor(
      (l) => updatesFor([l], main).some((u) => (u.content as { text?: string } | undefined)?.text === 'Working slowly'),
      'the slow turn streaming',
    );
    const busy = await prompt(main, 'hello').catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(RequestError);
    expect((busy as RequestError).code).toBe(-32600);
    expect((busy as RequestError).data).toMatchObject({ code: 'MINICODE_E_SESSION_BUSY' });
    await conn.agent.notify('session/cancel', { sessionId: main });
    expect((await slow).stopReason).toBe('cancelled');
  });

  it('cancels a turn that waits on a permission request: the client answers cancelled, the prompt too', async () => {
    holdPermissions = true;
    const asked = permissionRequests.length;
    const start = acp.wire.length;
    const waiting = prompt(main, 'run make deploy');
    await acp.waitFor(() => permissionRequests.length > asked, 'the permission request');
    await conn.agent.notify('session/cancel', { sessionId: main });
    holdPermissions = false;
    expect((await waiting).stopReason).toBe('cancelled');
    const last = updatesFor(acp.wire, main, start)
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .at(-1);
    expect(last).toMatchObject({ status: 'failed' });
  });

  it('runs two sessions at once, each update routed to its own session', async () => {
    const other = (await conn.agent.request('session/new', { cwd: '/work/other', mcpServers: [] })).sessionId;
    expect(other).not.toBe(main);
    const before = acp.wire.length;
    const slow = prompt(main, 'slow');
    await acp.waitFor(
      (l) =>
        acp.wire.indexOf(l) >= before &&
        updatesFor([l], main).some((u) => (u.content as { text?: string } | undefined)?.text === 'Working slowly'),
      'the second slow turn',
    );
    const start = acp.wire.length;
    expect((await prompt(other, 'hello')).stopReason).toBe('end_turn');
    expect(updatesFor(acp.wire, other, start).some((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    expect(updatesFor(acp.wire, main, start)).toEqual([]);
    await conn.agent.notify('session/cancel', { sessionId: main });
    expect((await slow).stopReason).toBe('cancelled');
  });

  it('loads the earlier session, replaying the conversation with final tool statuses before the response', async () => {
    const start = acp.wire.length;
    const loaded = await conn.agent.request('session/load', { sessionId: main, cwd: '/work/project', mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('ask');
    const end = responseIndex(acp.wire, requestIdOf(acp, 'session/load'));
    const replay = updatesFor(acp.wire, main, start, end);
    const users = chunkTexts(replay, 'user_message_chunk');
    expect(users).toEqual([
      'hello',
      'run echo hi',
      'run rm -rf build',
      'edit greeting.txt old -> new',
      'plan',
      'slow',
      'run make deploy',
      'slow',
    ]);
    const agentTexts = chunkTexts(replay, 'agent_message_chunk');
    expect(agentTexts).toContain('Hello from minicode.');
    expect(replay.filter((u) => u.sessionUpdate === 'agent_thought_chunk')).toHaveLength(1);
    // Each tool call appears, and its last update is its final status.
    expect([...finalToolStatuses(replay).values()]).toEqual(['completed', 'failed', 'completed', 'failed']);
    expect(replay.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit')?.content).toEqual([
      { type: 'diff', path: '/work/project/greeting.txt', oldText: 'old', newText: 'new' },
    ]);
    // The load response comes after the replay; the session's commands after the response
    // (sent right after it, so wait for them rather than race the child).
    await acp.waitFor(
      (l) =>
        acp.wire.indexOf(l) > end && updatesFor([l], main).some((u) => u.sessionUpdate === 'available_commands_update'),
      'commands after load',
    );
    expect(updatesFor(acp.wire, main, end).map((u) => u.sessionUpdate)).toEqual(['available_commands_update']);
  });

  it('put only valid v1 messages on the wire, both ways, and only ACP on stdout', () => {
    expect(acp.violations).toEqual([]);
    expect(acp.wire.filter((l) => l.from === 'agent').length).toBeGreaterThan(50);
  });
});

function textOf(params: Record<string, unknown>): string | undefined {
  return (params.prompt as Array<{ text?: string }> | undefined)?.[0]?.text;
}

/** The id of the last client request with `method` whose params match. */
function requestIdOf(
  acp: AcpChild,
  method: string,
  match: (params: Record<string, unknown>) => boolean = () => true,
): unknown {
  let found: unknown;
  for (let i = 0; i < acp.wire.length; i++) {
    if (requestIndex(acp.wire.slice(i, i + 1), method, match) === 0)
      found = (acp.wire[i]!.message as { id: unknown }).id;
  }
  return found;
}
