/**
 * Context compaction inside a real `minicode exec` run (control-plane §3): with a small
 * context window (`MINICODE_CONTEXT_WINDOW`), pressure compaction folds the oldest tool
 * results once the estimate passes 75% of the window and the run goes on; a context-length
 * error from the provider triggers recovery compaction and the request is sent again; a
 * second one in the same turn stops the run with budget_exceeded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplayServer, type Exchange, type ReplayServer } from '../../lib/replay/index.js';
import { streamOk } from '../corpus/scripted-exchanges.js';
import { contentTypeOf, execJson, ofType, tempDir, turnBody } from './helpers.js';

const servers: ReplayServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A project with one large prose file (about 2,300 tokens). */
function bigProject(): string {
  const dir = tempDir('minicode-big-');
  const lines = Array.from(
    { length: 160 },
    (_, i) => `Paragraph ${i + 1}: the greeting module formats names and the tests check both cases.`,
  );
  fs.writeFileSync(path.join(dir, 'big.txt'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 'README.md'), '# big\n');
  return dir;
}

/** An Anthropic turn whose reported input tokens are `inputTokens` (realistic growth, unlike the fixed cassettes). */
function anthropicTurn(turn: object, n: number, inputTokens: number): Exchange {
  const body = turnBody('anthropic', turn, n).replace(/"input_tokens":\d+/, `"input_tokens":${inputTokens}`);
  return streamOk(body, contentTypeOf('anthropic'));
}

const read = (k: number) => ({
  text: `Reading part ${k}.`,
  calls: [{ id: `toolu_big_${k}`, name: 'read_file', args: { path: 'big.txt' } }],
});

async function serve(exchanges: Exchange[]): Promise<{ server: ReplayServer; env: NodeJS.ProcessEnv }> {
  const server = await startReplayServer(exchanges);
  servers.push(server);
  return {
    server,
    env: {
      ANTHROPIC_BASE_URL: server.origin,
      ANTHROPIC_API_KEY: 'sk-ant-fake-compaction-0123456789',
      MINICODE_CONTEXT_WINDOW: '20000',
    },
  };
}

const CONTEXT_TOO_LONG: Exchange = {
  status: 400,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(
    JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    }),
  ),
  scripted: true,
};

describe('minicode exec compacts the context', () => {
  it('folds the oldest tool results once the estimate passes 75% of a small window, and completes', async () => {
    const turns: Exchange[] = [];
    for (let k = 1; k <= 7; k++) turns.push(anthropicTurn(read(k), k, 1500 + (k - 1) * 2300));
    turns.push(anthropicTurn({ text: 'Read it all.' }, 8, 12_000));
    const { server, env } = await serve(turns);
    const run = await execJson(['--provider', 'anthropic'], { cwd: bigProject(), env });
    expect(run.code, run.stderr).toBe(0);
    const compacted = ofType(run.records, 'context.compacted');
    expect(compacted).toHaveLength(1);
    expect(compacted[0]!.payload.reason).toMatch(/^pressure:0\.(7[5-9]|[89])/);
    expect(compacted[0]!.payload.strategy).toBe('mechanical');
    expect(compacted[0]!.payload.afterTokens).toBeLessThan(compacted[0]!.payload.beforeTokens);
    expect(run.summary).toMatchObject({ ok: true, reason: 'completed', tools: { completed: 7 } });
    // The request after compaction carried folded tool results, the recent ones whole.
    const before = server.requests[5]!.body.length;
    const after = server.requests[6]!.body.length;
    expect(after).toBeLessThan(before);
    const compactedRequest = JSON.parse(server.requests[6]!.body) as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(compactedRequest.messages)).toMatch(/(folded|removed) by compaction/);
    // The task itself is never compacted away.
    expect(compactedRequest.messages[0]).toMatchObject({ role: 'user' });
    expect(JSON.stringify(compactedRequest.messages[0])).toContain('Read the README and tell me what it says');
  });

  it('compacts for recovery after a context-length error and sends the request again', async () => {
    const { server, env } = await serve([CONTEXT_TOO_LONG, anthropicTurn({ text: 'Done.' }, 1, 900)]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: bigProject(), env });
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.records, 'context.compacted').map((e) => e.payload.reason)).toEqual(['recovery']);
    expect(server.requests).toHaveLength(2);
    expect(ofType(run.records, 'recovery.started')).toHaveLength(0); // not a provider retry
  });

  it('stops with budget_exceeded on a second context-length error in the turn', async () => {
    const { env } = await serve([CONTEXT_TOO_LONG, CONTEXT_TOO_LONG, anthropicTurn({ text: 'never sent' }, 1, 900)]);
    const run = await execJson(['--provider', 'anthropic'], { cwd: bigProject(), env });
    expect(run.code).toBe(1);
    expect(run.summary).toMatchObject({ ok: false, reason: 'budget_exceeded' });
    expect((run.summary.error as { message: string }).message).toContain('prompt is too long');
  });
});
