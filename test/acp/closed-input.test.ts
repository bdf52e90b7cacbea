/**
 * A client that closes its end while the agent waits for its answer (a permission request):
 * no answer can come any more, so the request fails closed (the tool is denied), the turn ends,
 * its prompt is answered and the process exits. Real process, real port, hand-made cassette.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT } from '../helpers/cli.js';

type Line = {
  id?: number | string | null;
  method?: string;
  result?: { sessionId?: string; stopReason?: string };
  params?: { update?: { sessionUpdate?: string; status?: string } };
};

describe('minicode acp when the client closes its input', () => {
  const dirs: string[] = [];
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('denies a pending permission request, answers the prompt and exits', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minicode-acp-closed-'));
    dirs.push(dir);
    const cwd = path.join(dir, 'project');
    fs.mkdirSync(cwd);
    const child = spawn(
      process.execPath,
      [
        CLI,
        'acp',
        '--provider',
        'replay',
        '--cassette',
        path.join(ROOT, 'test/cassettes/acp-conformance'),
        '--store',
        path.join(dir, 'store'),
      ],
      {
        env: { ...process.env, MINICODE_HOME: path.join(dir, 'home') },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    const lines: Line[] = [];
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
    let rest = '';
    child.stdout.on('data', (d: Buffer) => {
      rest += d.toString();
      for (let i = rest.indexOf('\n'); i >= 0; i = rest.indexOf('\n')) {
        const line = JSON.parse(rest.slice(0, i)) as Line;
        rest = rest.slice(i + 1);
        lines.push(line);
        if (line.id === 2)
          send({
            jsonrpc: '2.0',
            id: 3,
            method: 'session/prompt',
            params: { sessionId: line.result!.sessionId, prompt: [{ type: 'text', text: 'run it' }] },
          });
        // The client goes away with the question unanswered.
        if (line.method === 'session/request_permission') child.stdin.end();
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd, mcpServers: [] } });

    expect(await exited).toBe(0);
    expect(lines.some((l) => l.method === 'session/request_permission')).toBe(true);
    expect(lines.find((l) => l.id === 3)?.result?.stopReason).toBe('end_turn');
    expect(
      lines.some((l) => l.params?.update?.sessionUpdate === 'tool_call_update' && l.params.update.status === 'failed'),
    ).toBe(true);
    expect(stderr).toContain('denying bash');
  });
});
