/**
 * SessionEnd under ACP: a session the client closes (`session/close`) runs its SessionEnd hooks
 * with reason `exit`, one still open when the connection ends runs them with reason `other`
 * (its turn, when one is in flight, cancelled and settled first), and a session the client loads
 * (`session/load`) runs SessionStart with source `resume` at its next prompt.
 * The real agent (`minicode acp` as a subprocess) driven by the official SDK's client, a loopback
 * provider, real hook subprocesses that write the JSON they were given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client } from '@agentclientprotocol/sdk';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { waitFor } from '../helpers/wait.js';
import { initializeFullClient, promptText, spawnAcp } from '../acp/acp-child.js';
import { runCli } from '../helpers/cli.js';
import { cleanEnv, contentTypeOf, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('SessionEnd hooks under ACP', () => {
  it('run with reason exit when the client closes a session and reason other for one still open when the connection ends', async () => {
    const dir = tempDir('minicode-acp-end-');
    const log = path.join(dir, 'ends.jsonl');
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] }] },
      }),
    );
    const server = await startReplayServer(
      [1, 2].map((n) => streamOk(turnBody('anthropic', { text: `answer ${n}` }, n), contentTypeOf('anthropic'))),
    );
    servers.push(server);
    const acp = spawnAcp(
      ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin, '--sandbox', 'off'],
      {
        scripted: false,
        env: { MINICODE_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-acp-end-fake-0123456789' },
      },
    );
    const conn = client({ name: 'session-end-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    const init = await initializeFullClient(conn, 'session-end-test');
    expect(init.agentCapabilities?.sessionCapabilities?.close).toEqual({});
    const project = fs.realpathSync(scratchProject());
    const closed = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, closed.sessionId, 'one')).stopReason).toBe('end_turn');
    const open = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(conn, open.sessionId, 'two')).stopReason).toBe('end_turn');
    await conn.agent.request('session/close', { sessionId: closed.sessionId });
    const ends = (): Record<string, unknown>[] =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l))
        : [];
    // session/close answers once the session ended: its hook has run.
    expect(ends()).toEqual([
      expect.objectContaining({
        hook_event_name: 'SessionEnd',
        reason: 'exit',
        session_id: closed.sessionId,
        cwd: project,
      }),
    ]);
    conn.close();
    expect(await acp.close()).toBe(0);
    await waitFor(() => ends().length === 2, { what: 'the open session to end with the connection' });
    expect(ends()[1]).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', session_id: open.sessionId });
  });

  it('a turn in flight when the client stops the agent (SIGTERM) is cancelled and settles, then its session ends with reason other', async () => {
    const dir = tempDir('minicode-acp-inflight-');
    const log = path.join(dir, 'ends.jsonl');
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] }] },
      }),
    );
    // The model answers the first bytes, then stalls: the turn is in flight until something stops it.
    const body = turnBody('anthropic', { text: 'a long answer that never ends' }, 1);
    const server = await startReplayServer([
      {
        ...streamOk(body, contentTypeOf('anthropic')),
        chunks: [{ bytes: 200 }, { bytes: Buffer.byteLength(body) - 200, delayMs: 600_000 }],
        scripted: true,
      },
    ]);
    servers.push(server);
    const acp = spawnAcp(
      ['--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-url', server.origin, '--sandbox', 'off'],
      { scripted: false, env: { MINICODE_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-acp-inflight-fake-0123456789' } },
    );
    const conn = client({ name: 'in-flight-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    await initializeFullClient(conn, 'in-flight-test');
    const project = fs.realpathSync(scratchProject());
    const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
    const pending = promptText(conn, sessionId, 'tell me everything').catch(() => undefined);
    await waitFor(() => server.requests.length === 1, { what: 'the turn to reach the model' });
    const exited = new Promise<number | null>((resolve) => acp.child.on('exit', (code) => resolve(code)));
    acp.child.kill('SIGTERM');
    expect(await exited).toBe(130);
    conn.close();
    await pending;
    const ends = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
    expect(ends).toEqual([
      expect.objectContaining({ hook_event_name: 'SessionEnd', reason: 'other', session_id: sessionId }),
    ]);
    // The store tells the same story: the turn cancelled, the session ended, nothing interrupted.
    const replay = await runCli(['replay', sessionId, '--json'], { env: cleanEnv(home) });
    expect(replay.code, replay.stderr).toBe(0);
    const types = replay.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; status?: string });
    expect(types.find((e) => e.type === 'task.cancelled')).toBeDefined();
    expect(types.filter((e) => e.type !== 'summary').at(-1)?.type).toBe('session.ended');
  });

  it('a session the client loads runs SessionStart with source resume before its next prompt', async () => {
    const dir = tempDir('minicode-acp-resume-');
    const log = path.join(dir, 'starts.jsonl');
    const home = tempDir('minicode-home-');
    fs.writeFileSync(
      path.join(home, 'config.json'),
      JSON.stringify({
        hooks: {
          SessionStart: [
            { hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}; echo context-of-start` }] },
          ],
        },
      }),
    );
    const server = await startReplayServer(
      [1, 2].map((n) => streamOk(turnBody('anthropic', { text: `answer ${n}` }, n), contentTypeOf('anthropic'))),
    );
    servers.push(server);
    const args = [
      '--provider',
      'anthropic',
      '--model',
      'claude-sonnet-4-5',
      '--base-url',
      server.origin,
      '--sandbox',
      'off',
    ];
    const env = { MINICODE_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-acp-resume-fake-0123456789' };
    const project = fs.realpathSync(scratchProject());
    const first = spawnAcp(args, { scripted: false, env });
    const firstConn = client({ name: 'resume-test' })
      .onNotification('session/update', () => {})
      .connect(first.stream);
    await initializeFullClient(firstConn, 'resume-test');
    const { sessionId } = await firstConn.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect((await promptText(firstConn, sessionId, 'one')).stopReason).toBe('end_turn');
    firstConn.close();
    expect(await first.close()).toBe(0);

    const second = spawnAcp(args, { scripted: false, env });
    const secondConn = client({ name: 'resume-test' })
      .onNotification('session/update', () => {})
      .connect(second.stream);
    await initializeFullClient(secondConn, 'resume-test');
    await secondConn.agent.request('session/load', { sessionId, cwd: project, mcpServers: [] });
    expect((await promptText(secondConn, sessionId, 'two')).stopReason).toBe('end_turn');
    secondConn.close();
    expect(await second.close()).toBe(0);
    const starts = fs
      .readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(starts.map((s) => [s.source, s.session_id])).toEqual([
      ['startup', sessionId],
      ['resume', sessionId],
    ]);
    const lastUser = (n: number): string => {
      const messages = JSON.parse(server.requests[n]!.body.toString('utf8')).messages as {
        role: string;
        content: unknown;
      }[];
      return JSON.stringify(messages.filter((m) => m.role === 'user').at(-1));
    };
    expect(lastUser(1)).toContain('context-of-start');
    expect(lastUser(1)).toContain('two');
  });
});
