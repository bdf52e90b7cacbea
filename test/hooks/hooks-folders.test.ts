/**
 * Which folder's extensions a run gets: a batch line with its own `cwd` runs the hooks, custom
 * commands and skills of that folder (with `--allow-local-config`), not those of the folder the
 * batch was started in, on the main thread and on a pool thread alike; an ACP session advertises
 * and runs the commands and hooks of its own `cwd`; and `hooks.readClaudeSettings` also reads the
 * user's `~/.claude/settings.json`. Real hook subprocesses, the real CLI, a loopback provider that
 * keeps every request body.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, type ClientConnection } from '@agentclientprotocol/sdk';
import { startReplayServer, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { runCli } from '../helpers/cli.js';
import { initializeFullClient, promptText, spawnAcp, updatesFor, type AcpChild } from '../acp/acp-child.js';
import { cleanEnv, contentTypeOf, execJson, ofType, scratchProject, tempDir, turnBody } from '../exec/helpers.js';

const servers: ReplayServer[] = [];
const children: { acp: AcpChild; conn: ClientConnection }[] = [];
afterAll(async () => {
  for (const { acp, conn } of children) {
    conn.close();
    await acp.close();
  }
  await Promise.all(servers.map((s) => s.close()));
});

/** A loopback provider in `format` answering `n` one-text turns. */
async function serve(n: number, format = 'openai-chat'): Promise<ReplayServer> {
  const server = await startReplayServer(
    Array.from({ length: n }, (_, i) =>
      streamOk(turnBody(format, { text: `answer ${i + 1}` }, i + 1), contentTypeOf(format)),
    ),
  );
  servers.push(server);
  return server;
}

/** A project whose `.minicode` holds a `/hello` command, a UserPromptSubmit hook and a skill, each naming `label`. */
function projectNamed(label: string): string {
  const project = fs.realpathSync(scratchProject());
  const dot = path.join(project, '.minicode');
  fs.mkdirSync(path.join(dot, 'commands'), { recursive: true });
  fs.writeFileSync(
    path.join(dot, 'commands', 'hello.md'),
    `---\ndescription: Greet from ${label}\n---\nSay hello the ${label} way: $ARGUMENTS\n`,
  );
  fs.mkdirSync(path.join(dot, 'skills', `${label}-skill`), { recursive: true });
  fs.writeFileSync(
    path.join(dot, 'skills', `${label}-skill`, 'SKILL.md'),
    `---\nname: ${label}-skill\ndescription: The ${label} project's release steps\n---\nRelease ${label}.\n`,
  );
  fs.writeFileSync(
    path.join(dot, 'settings.json'),
    JSON.stringify({
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo "hook context of ${label}"` }] }] },
    }),
  );
  return project;
}

const OPENAI = { OPENAI_API_KEY: 'sk-proj-foldersFakeKey0123456789abcdefghij' };

describe('the folder a run takes its extensions from', () => {
  for (const threads of ['0', '1']) {
    it(`a batch line with its own cwd runs that folder's hooks, command and skills (--threads ${threads})`, async () => {
      const started = projectNamed('started');
      const other = projectNamed('other');
      const server = await serve(2);
      const dir = tempDir('minicode-batch-folders-');
      const input = path.join(dir, 'lines.jsonl');
      fs.writeFileSync(
        input,
        `${JSON.stringify({ id: 'here', prompt: '/hello one' })}\n${JSON.stringify({ id: 'there', prompt: '/hello two', cwd: other })}\n`,
      );
      const r = await runCli(
        [
          'batch',
          input,
          '--out',
          path.join(dir, 'out'),
          '--cwd',
          started,
          '--allow-local-config',
          '--concurrency',
          '1',
          '--threads',
          threads,
          '--provider',
          'openai-chat',
          '--model',
          'gpt-4.1-mini',
        ],
        { env: cleanEnv(tempDir('minicode-home-'), { ...OPENAI, OPENAI_BASE_URL: `${server.origin}/v1` }) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      const [here, there] = server.requests.map((q) => q.body);
      expect(here).toContain('Say hello the started way: one');
      expect(here).toContain('hook context of started');
      expect(here).toContain('started-skill');
      for (const theirs of ['the other way', 'hook context of other', 'other-skill'])
        expect(here).not.toContain(theirs);
      expect(there).toContain('Say hello the other way: two');
      expect(there).toContain('hook context of other');
      expect(there).toContain('other-skill');
      for (const theirs of ['the started way', 'hook context of started', 'started-skill'])
        expect(there).not.toContain(theirs);
    });
  }

  it("an ACP session advertises and runs the commands and hooks of its own cwd, not the server's folder", async () => {
    const first = projectNamed('first');
    const second = projectNamed('second');
    const server = await serve(2, 'anthropic');
    const acp = spawnAcp(
      [
        '--provider',
        'anthropic',
        '--model',
        'claude-sonnet-4-5',
        '--base-url',
        server.origin,
        '--sandbox',
        'off',
        '--allow-local-config',
      ],
      {
        scripted: false,
        cwd: projectNamed('server'),
        env: { ANTHROPIC_API_KEY: 'sk-ant-acp-folders-fake-0123456789' },
      },
    );
    const conn = client({ name: 'folders-test' })
      .onNotification('session/update', () => {})
      .connect(acp.stream);
    children.push({ acp, conn });
    await initializeFullClient(conn, 'folders-test');
    const commandsOf = async (sessionId: string): Promise<unknown> => {
      const line = await acp.waitFor(
        (l) => updatesFor([l], sessionId).some((u) => u.sessionUpdate === 'available_commands_update'),
        `the commands of ${sessionId}`,
      );
      return (updatesFor([line], sessionId)[0] as { availableCommands: unknown }).availableCommands;
    };
    const a = await conn.agent.request('session/new', { cwd: first, mcpServers: [] });
    expect(await commandsOf(a.sessionId)).toEqual([{ name: 'hello', description: 'Greet from first' }]);
    const b = await conn.agent.request('session/new', { cwd: second, mcpServers: [] });
    expect(await commandsOf(b.sessionId)).toEqual([{ name: 'hello', description: 'Greet from second' }]);
    expect((await promptText(conn, a.sessionId, '/hello there')).stopReason).toBe('end_turn');
    expect((await promptText(conn, b.sessionId, 'plain')).stopReason).toBe('end_turn');
    const [one, two] = server.requests.map((q) => q.body);
    expect(one).toContain('Say hello the first way: there');
    expect(one).toContain('hook context of first');
    for (const theirs of ['hook context of server', 'server-skill', 'second-skill']) expect(one).not.toContain(theirs);
    expect(two).toContain('hook context of second');
    expect(two).toContain('second-skill');
    for (const theirs of ['hook context of first', 'first-skill', 'hook context of server', 'server-skill'])
      expect(two).not.toContain(theirs);
  });

  it("hooks.readClaudeSettings runs the hooks of the user's ~/.claude/settings.json, without --allow-local-config", async () => {
    const userHome = tempDir('minicode-user-home-');
    fs.mkdirSync(path.join(userHome, '.claude'));
    fs.writeFileSync(
      path.join(userHome, '.claude', 'settings.json'),
      JSON.stringify({
        model: 'opus',
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "from the Claude user settings"' }] }],
        },
      }),
    );
    const runWith = async (readClaudeSettings: boolean): Promise<{ body: string; hooks: number }> => {
      const server = await serve(1);
      const home = tempDir('minicode-home-');
      fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ hooks: { readClaudeSettings } }));
      const run = await execJson(['--provider', 'openai-chat', '--model', 'gpt-4.1-mini'], {
        cwd: scratchProject(),
        home,
        env: { ...OPENAI, OPENAI_BASE_URL: `${server.origin}/v1`, HOME: userHome },
      });
      expect(run.code, run.stderr).toBe(0);
      return { body: server.requests[0]!.body, hooks: ofType(run.records, 'hook.completed').length };
    };
    const on = await runWith(true);
    expect(on.body).toContain('from the Claude user settings');
    expect(on.hooks).toBe(1);
    const off = await runWith(false);
    expect(off.body).not.toContain('from the Claude user settings');
    expect(off.hooks).toBe(0);
  });
});
