/**
 * The sandbox through ACP, driven by the official `@agentclientprotocol/sdk` client against the
 * real agent (`minicode acp --provider replay`, a hand-made openai-chat cassette written here):
 * a session offers `sandbox` as a config option; in `ask` mode a command the sandbox refused
 * may be rerun unsandboxed once the user approves it (Codex's escalation), a denied escalation
 * leaves it refused, and the rerun's `tool.started` in the store says `sandbox: "off"` and
 * `escalated: true`; with the option set to `off` the command runs in the client's terminal,
 * and while the sandbox is on it never does (the terminal runs outside minicode's sandbox).
 * Real bubblewrap; skipped, saying so, where it does not work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, type RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { initializeFullClient, promptText, spawnAcp, updatesFor } from '../acp/acp-child.js';
import { writeChatCassette } from '../exec/helpers.js';
import { runCli } from '../helpers/cli.js';
import { bwrapSkipNote, HAVE_BWRAP } from './helpers.js';

bwrapSkipNote('test/sandbox/acp.test.ts');

/** A folder outside /tmp (private inside the sandbox), so a write there is refused with EROFS and would show on the host. */
const base = fs.realpathSync(
  fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'minicode-acp-sandbox-')),
);
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** A cassette whose model runs `commands` with bash, one per prompt turn, each answered by "done". */
function cassette(commands: string[]): string {
  const turns = commands.flatMap((command, i) => [
    { calls: [{ id: `call_sb_${i + 1}`, name: 'bash', args: { command } }] },
    { text: 'done' },
  ]);
  return writeChatCassette(path.join(base, 'cassette'), 'one bash call per prompt, then done', turns);
}

describe.skipIf(!HAVE_BWRAP)('the sandbox of an ACP session', () => {
  it('offers sandbox as a config option, reruns a refused command unsandboxed only when the user approves, and uses the client terminal only with the sandbox off', async () => {
    const project = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    const store = path.join(base, 'store');
    fs.mkdirSync(project);
    fs.mkdirSync(outside);
    const target = (name: string) => path.join(outside, name);
    const dir = cassette([
      `echo x > ${target('escalated.txt')}`,
      `echo x > ${target('denied.txt')}`,
      `echo x > ${target('off.txt')}`,
    ]);
    const acp = spawnAcp(['--provider', 'replay', '--cassette', dir, '--store', store], {
      scripted: false,
      cwd: project,
    });
    const answers: string[] = [];
    const asked: RequestPermissionRequest[] = [];
    const terminals: ChildProcess[] = [];
    const app = client({ name: 'sandbox-test' })
      .onRequest('session/request_permission', ({ params }) => {
        asked.push(params);
        return { outcome: { outcome: 'selected', optionId: answers.shift() ?? 'deny' } };
      })
      .onRequest('fs/read_text_file', ({ params }) => ({ content: fs.readFileSync(params.path, 'utf8') }))
      .onRequest('fs/write_text_file', ({ params }) => {
        fs.writeFileSync(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', ({ params }) => {
        const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? project, stdio: 'ignore' });
        terminals.push(child);
        return { terminalId: `term_${terminals.length}` };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => {
        const child = terminals[Number(params.terminalId.slice(5)) - 1]!;
        if (child.exitCode !== null) return { exitCode: child.exitCode, signal: null };
        return new Promise((resolve) => child.on('close', (exitCode) => resolve({ exitCode, signal: null })));
      })
      .onRequest('terminal/output', () => ({ output: '', truncated: false }))
      .onRequest('terminal/kill', () => ({}))
      .onRequest('terminal/release', () => ({}))
      .onNotification('session/update', () => {});
    const conn = app.connect(acp.stream);
    try {
      await initializeFullClient(conn, 'sandbox-test');
      const created = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
      const sessionId = created.sessionId;
      expect(created.configOptions?.find((o) => o.id === 'sandbox')).toMatchObject({
        type: 'select',
        currentValue: 'workspace-write',
      });

      // Escalation approved: bash itself, then the rerun outside the sandbox.
      answers.push('allow', 'allow');
      let start = acp.wire.length;
      expect((await promptText(conn, sessionId, 'write it')).stopReason).toBe('end_turn');
      expect(asked.map((a) => a.toolCall.title)).toEqual([
        `echo x > ${target('escalated.txt')}`,
        `rerun outside the sandbox: echo x > ${target('escalated.txt')}`,
      ]);
      // The rerun's question shows what the sandbox refused, as the tool call's content; bash's own has none.
      expect(asked[0]!.toolCall.content).toBeUndefined();
      expect(asked[1]!.toolCall.content).toEqual([
        {
          type: 'content',
          content: {
            type: 'text',
            text: expect.stringMatching(/^\[the sandbox \(workspace-write\) refused a write outside the workspace: /),
          },
        },
      ]);
      expect(fs.existsSync(target('escalated.txt'))).toBe(true);
      const calls = updatesFor(acp.wire, sessionId, start)
        .filter((u) => u.sessionUpdate === 'tool_call')
        .map((u) => u.toolCallId);
      expect(calls).toEqual(['call_sb_1', 'call_sb_1.unsandboxed']);

      // Escalation denied: the write stays refused, and the model is told so.
      answers.push('allow', 'deny');
      start = acp.wire.length;
      expect((await promptText(conn, sessionId, 'write another')).stopReason).toBe('end_turn');
      expect(asked).toHaveLength(4);
      expect(fs.existsSync(target('denied.txt'))).toBe(false);
      expect(JSON.stringify(updatesFor(acp.wire, sessionId, start))).toContain('refused a write outside the workspace');
      // The sandbox was on: the client's terminal was never used.
      expect(terminals).toHaveLength(0);

      // Sandbox off through the config option: no escalation to ask, and the client terminal runs it.
      const set = await conn.agent.request('session/set_config_option', {
        sessionId,
        configId: 'sandbox',
        value: 'off',
      });
      expect(set.configOptions.find((o) => o.id === 'sandbox')?.currentValue).toBe('off');
      answers.push('allow');
      expect((await promptText(conn, sessionId, 'write unsandboxed')).stopReason).toBe('end_turn');
      expect(asked).toHaveLength(5);
      expect(terminals).toHaveLength(1);
      expect(fs.existsSync(target('off.txt'))).toBe(true);
      await expect(
        conn.agent.request('session/set_config_option', { sessionId, configId: 'sandbox', value: 'sometimes' }),
      ).rejects.toMatchObject({ code: -32602 });
      expect(acp.violations).toEqual([]);
      conn.close();
      await acp.close();

      // The store: each bash call's sandbox, and the rerun marked as escalated.
      const replay = await runCli(['replay', sessionId, '--json', '--store', store]);
      const started = replay.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
        .filter((e) => e.type === 'tool.started')
        .map((e) => ({
          id: e.payload.toolCallId,
          sandbox: e.payload.sandbox,
          escalated: e.payload.escalated,
          parent: e.payload.parentToolCallId,
        }));
      const refusal = expect.stringMatching(
        /^\[the sandbox \(workspace-write\) refused a write outside the workspace: /,
      );
      expect(
        replay.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
          .filter((e) => e.type === 'user.approval.requested')
          .map((e) => [e.payload.toolName, e.payload.sandboxRefusal]),
      ).toEqual([
        ['bash', undefined],
        ['bash (unsandboxed)', refusal],
        ['bash', undefined],
        ['bash (unsandboxed)', refusal],
        ['bash', undefined],
      ]);
      expect(started).toEqual([
        { id: 'call_sb_1', sandbox: 'workspace-write', escalated: undefined, parent: undefined },
        { id: 'call_sb_1.unsandboxed', sandbox: 'off', escalated: true, parent: 'call_sb_1' },
        { id: 'call_sb_2', sandbox: 'workspace-write', escalated: undefined, parent: undefined },
        { id: 'call_sb_3', sandbox: 'off', escalated: undefined, parent: undefined },
      ]);
    } finally {
      conn.close();
      await acp.close();
      for (const t of terminals) t.kill();
    }
  }, 180_000);
});
