/**
 * More of the MCP protocol against the reference server-everything (from npm) over stdio: the
 * workspace given as the client's one root (`roots/list`), `notifications/progress` passed on as
 * the call's live progress, and `readOnlyHint` read from the tool annotations into the policy
 * (a read-only tool may be asked for in read-only mode; everything else of a server stays refused there).
 */
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpManager } from '../../lib/mcp/manager.js';
import { decide } from '../../lib/policy/decide.js';
import { context } from '../tools/helpers.js';
import { EVERYTHING, nodeServer, resolved, tempDir } from './helpers.js';

const managers: McpManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((m) => m.close()));
});

async function everything(cwd: string): Promise<McpManager> {
  const manager = await startMcpServers([resolved('everything', nodeServer(EVERYTHING, ['stdio']))], {
    env: process.env,
    cwd,
  });
  managers.push(manager);
  expect(manager.statuses()[0]).toMatchObject({ state: 'ready' });
  return manager;
}

const tool = (manager: McpManager, name: string) => {
  const found = manager.tools().find((t) => t.name === `mcp__everything__${name}`);
  expect(found, name).toBeDefined();
  return found!;
};

describe('MCP roots, progress and read-only hints against server-everything', () => {
  it('tells the server the workspace is its one root', async () => {
    const cwd = tempDir('minicode-roots-');
    const manager = await everything(cwd);
    const outcome = await tool(manager, 'get-roots-list').run({}, context(cwd).ctx);
    expect(outcome).toMatchObject({ status: 'completed' });
    const output = (outcome as { output: string }).output;
    expect(output).toContain('(1 total)');
    expect(output).toContain(`URI: ${pathToFileURL(cwd).href}`);
  }, 90_000);

  it("passes the server's progress notifications on as the call's progress", async () => {
    const cwd = tempDir();
    const manager = await everything(cwd);
    const progress: string[] = [];
    const outcome = await tool(manager, 'trigger-long-running-operation').run(
      { duration: 0.3, steps: 3 },
      context(cwd, { progress: (m) => progress.push(m) }).ctx,
    );
    expect(outcome).toMatchObject({ status: 'completed' });
    // The SDK may settle the call before it handles a notification sent just before the result.
    expect(progress.slice(0, 2)).toEqual(['1/3', '2/3']);
  }, 90_000);

  it('reads readOnlyHint: a hinted tool is a read that read-only mode asks for, an unhinted one stays refused', async () => {
    const manager = await everything(tempDir());
    const echo = tool(manager, 'echo');
    const toggle = tool(manager, 'toggle-simulated-logging');
    expect(echo).toMatchObject({ kind: 'read', readOnly: true, gated: true });
    expect(toggle).toMatchObject({ kind: 'other', gated: true });
    expect(toggle.readOnly).toBeUndefined();
    const facts = (t: typeof echo) => ({
      name: t.name,
      kind: t.kind,
      gated: t.gated,
      server: 'everything',
      ...(t.readOnly ? { readOnly: true } : {}),
    });
    expect(decide(facts(echo), 'read-only', { tty: true }).decision).toBe('ask');
    expect(decide(facts(echo), 'read-only', { tty: false }).reason).toContain('no TTY');
    expect(decide({ ...facts(echo), trusted: true }, 'read-only', { tty: false }).decision).toBe('allow');
    expect(decide(facts(toggle), 'read-only', { tty: true })).toMatchObject({
      decision: 'deny',
      reason: expect.stringContaining('read-only mode'),
    });
    // The hint never lets a tool skip the question in the other modes.
    expect(decide(facts(echo), 'ask', { tty: true }).decision).toBe('ask');
    expect(decide(facts(echo), { mode: 'auto', allowTools: [] }, { tty: false }).decision).toBe('deny');
  }, 90_000);
});
